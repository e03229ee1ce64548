#pragma once
// A whole run: a scratch folder, the environment, every case of every group in turn, then the
// findings and knees checked against the results.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "iolab/report/report.hpp"
#include "iolab/suite/findings.hpp"
#include "iolab/suite/suite.hpp"

namespace iolab {

struct SessionSettings {
    std::string suite;
    std::string description;
    std::string scratch_parent;  // empty: the system temp folder
    bool keep = false;           // keep the scratch folder
    bool limits = true;          // measure the ceilings of the tables' kinds of work
    // Called before each measured iteration: (index of the case from 0, total cases, the case,
    // the share of the whole run's measured work done, 0 to 1).
    std::function<void(std::size_t, std::size_t, const CaseSpec&, double)> on_case;
    // Called when a group is over: (its index from 0, the number of groups, the group, the
    // seconds since the run began).
    std::function<void(std::size_t, std::size_t, const ReportGroup&, double)> on_group;
    // Called as a look decides a finding before the run ends (sequential verdicts): (the finding,
    // how many are decided now, how many the suite has).
    std::function<void(const FindingResult&, std::size_t, std::size_t)> on_finding;
};

// The cases of a group, each tagged with the group's id.
std::vector<CaseSpec> group_cases(const Group& g);

// Runs every group of `suite` (a plain run is a suite of one group without findings). When a
// stop is requested (interrupt.hpp) it returns at the next safe point with the cases completed
// so far and `partial` set.
Report run_session(const Suite& suite, const SessionSettings& settings, std::string* kept_scratch = nullptr);

// Free bytes for an unprivileged writer on the filesystem holding dir.
std::uint64_t free_space(const std::string& dir);

}  // namespace iolab
