#pragma once
// A whole run: a scratch folder, the environment, every case of the plan in turn.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "iolab/harness/runner.hpp"
#include "iolab/report/report.hpp"

namespace iolab {

struct SessionSettings {
    std::string suite;
    std::string scratch_parent;  // empty: the system temp folder
    bool keep = false;           // keep the scratch folder
    RunOptions options;
    // Called before each case: (index from 0, total, the case).
    std::function<void(std::size_t, std::size_t, const CaseSpec&)> on_case;
    // Polled between cases and iterations; when it becomes true the run stops early and the
    // report is marked partial.
    const std::atomic<bool>* stop = nullptr;
};

Report run_session(const std::vector<CaseSpec>& plan, const SessionSettings& settings,
                   std::string* kept_scratch = nullptr);

// Free bytes for an unprivileged writer on the filesystem holding dir.
std::uint64_t free_space(const std::string& dir);

}  // namespace iolab
