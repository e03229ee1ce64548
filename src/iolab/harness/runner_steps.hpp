#pragma once
// The state of a case while its group runs, and the steps of run_group that runner.cpp and
// runner_setup.cpp share. Internal to the two: the order of the steps is run_group's.
#include <exception>
#include <memory>
#include <utility>
#include <vector>

#include "iolab/core/scratch.hpp"
#include "iolab/harness/clock.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/options.hpp"
#include "iolab/harness/result.hpp"

namespace iolab::detail {

// One job of a case (--jobs): its fixture and the sink its reads go to.
struct CaseJob {
    std::unique_ptr<Fixture> fx;
    std::unique_ptr<Sink> sink;
};

// One case of a group while it is measured.
struct CaseState {
    CaseResult r;
    std::vector<CaseJob> jobs;  // one, or --jobs of them; none when the case was not prepared
    Checked checked = Checked::content;
    std::uint64_t target = 0;  // a fixed number of measured iterations; 0: adaptive
    double spent_s = 0;        // time spent on its measured iterations, harness work included
    bool done = false;
    // An external tool's probe: the same command on a one-page input, run beside each of its
    // runs; its time is the tool's fixed cost (Sample::fixed_s).
    std::unique_ptr<Fixture> probe;
    Sink probe_sink;
    // The group's write or copy whose output is still on disk (held by run_group): removed just
    // before the next write or copy starts, so that the memory it frees is what that one fills.
    Fixture** last_output = nullptr;
};

// The case failed, or was skipped (a CannotRun): it is done.
void fail(CaseState& c, const std::exception& e);
// A stop asked for (here, or on another rank) cuts the case short: it keeps what it measured,
// and says why it stopped. Returns whether e was such a stop.
bool cut_short(CaseState& c, const std::exception& e);
// One run of a case: its one job, or all of its jobs at once; a tool's beside its probe.
std::pair<Sample, Checked> run_once(CaseState& c, const RunOptions& opts, Clock& clock, Timeline* tl, VerifyMode mode);

// Step 1: skips, inputs and fixtures. Under MPI the ranks agree on each case: one rank's skip or
// failure is every rank's.
void prepare(std::vector<CaseState>& cases, const std::vector<CaseSpec>& specs, const RunOptions& opts,
             const ScratchDir& dir, InputPool& pool);
// Step 2: one canonical warm state: every input evicted, then read back once in order (the
// state of a file that has been read, whatever wrote it).
void bring_to_warm_state(const InputPool& pool);
// Step 3: the warm-ups, case by case, and the iteration count each case aims for; a tool that
// repeats by a longer input gets it from the pool, brought to the warm state.
void warm_up_all(std::vector<CaseState>& cases, const RunOptions& opts, Clock& clock, InputPool& pool);

}  // namespace iolab::detail
