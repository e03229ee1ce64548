#pragma once
// A whole run, between the suite and the report: the plan built once, the checks made before
// anything is created, every group measured in turn, then the findings and knees judged.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "iolab/session/run.hpp"
#include "iolab/suite/findings.hpp"
#include "iolab/suite/suite.hpp"

namespace iolab {

struct SessionSettings {
    std::string scratch_parent;  // empty: the system temp folder
    bool keep = false;           // keep the scratch folder
    bool limits = true;          // measure the ceilings of the tables' kinds of work
    bool peers = true;           // run the peers that give a figure of their own (pg_test_fsync)
    // Called before each measured iteration: (index of the case from 0, total cases, the case,
    // the share of the whole run's measured work done, 0 to 1).
    std::function<void(std::size_t, std::size_t, const CaseSpec&, double)> on_case;
    // Called when a group is over: (its index from 0, the number of groups, the group, the
    // seconds since the run began).
    std::function<void(std::size_t, std::size_t, const ReportGroup&, double)> on_group;
    // Called as a look decides a finding before the run ends (sequential verdicts): (the finding,
    // how many are decided now, how many the suite has).
    std::function<void(const FindingResult&, std::size_t, std::size_t)> on_finding;
    // Called as a group starts laying out inputs that take a while to make (a tree of 5,000 files
    // or more, a file of 1 GiB or more, to read or copy): (its index from 0, the number of groups,
    // what it lays out, and whether that is outside a racing budget).
    std::function<void(std::size_t, std::size_t, const std::string&)> on_setup;
    // Called before the first case with what the run should know before it waits (a case whose one
    // iteration would take long here, and about how long).
    std::function<void(const std::string&)> on_note;
};

// What setting a run up takes here, outside its time budget (Session::setup_estimate).
struct SetupEstimate {
    double seconds = 0;
    std::uint64_t files = 0;       // laid out as the groups' inputs (trees of files)
    std::string_view fewer_files;  // the setting that gives them ("files")
    std::string longest;           // the case whose one run is longest, and that run's estimate
    double longest_s = 0;
    std::string_view shorter;  // the setting that makes its run shorter ("count", "files"; "": none)
    bool warm_ups = false;     // a case warms up first
};
// What the estimate measures here, asked only for what the plan holds: one synced write
// (sync_seconds) and one file of a tree of a size laid out and written back (file_layout_seconds).
struct SetupProbes {
    std::function<double()> sync_s;
    std::function<double(std::uint64_t)> file_s;
};
class Session {
public:
    // Builds every group's cases (a plain run is a suite of one group without findings). Throws
    // InputError for a plan that cannot be run: an unknown strategy, values that do not fit, more
    // cases than kMaxCases in all, or more samples than kMaxRunSamples (plan.hpp) in all.
    explicit Session(Suite suite);

    const Suite& suite() const { return suite_; }
    // Each group's cases, in the suite's order, each tagged with its group's id.
    const std::vector<std::vector<CaseSpec>>& plan() const { return plan_; }
    std::size_t size() const;

    // Throws InputError naming the case that would hold more than half of this machine's memory.
    void check_memory() const;
    // Throws InputError naming the case that would hold more files open than this process may.
    void check_descriptors() const;
    // Throws InputError when the filesystem holding `dir` has less free space than the largest
    // group's files, times `ranks` (the ranks of an MPI job sharing it), and a margin.
    void check_space(const std::string& dir, unsigned ranks = 1) const;

    // Sizes by time the cases whose one iteration makes synced writes (durable appends, safe saves)
    // and whose --count was not given: the count that makes one iteration take about
    // kIterationTargetS here, given one synced write's time (`sync_s`, asked only when a case syncs:
    // sync_seconds), at least kSizedCountFloor and never more than it was. Returns a line for each
    // group it changed, saying so.
    std::vector<std::string> size_by_time(const std::function<double()>& sync_s);

    // About how long the racing groups take here beyond their time budget: laying out their trees of
    // files once (in each child of --forks), and each case's warm-ups and first measured run (which
    // racing makes however long it is), a run its job's synced writes and the files of its tree.
    // Other inputs (files of bytes, logs), a run's own setup and groups given a count of iterations
    // are not counted.
    SetupEstimate setup_estimate(const SetupProbes& probe) const;

    // Runs every group in a scratch folder of its own in `settings.scratch_parent`. When a stop
    // is requested (interrupt.hpp) it returns at the next safe point with the cases completed so
    // far and `partial` set.
    Run run(const SessionSettings& settings, std::string* kept_scratch = nullptr) const;

private:
    void keep_within_samples();

    Suite suite_;
    std::vector<std::vector<CaseSpec>> plan_;
};

// One iteration of a case sized by time takes about this long here (Session::size_by_time).
inline constexpr double kIterationTargetS = 0.1;
// And makes at least this many synced writes, however slow they are.
inline constexpr std::uint64_t kSizedCountFloor = 16;

// A run's setup may take this long, or its time budget when that is longer: beyond it the run is
// refused before anything is made (check_setup).
inline constexpr double kMaxSetupS = 3600;
// The longest --time-budget (a time setting's range).
inline constexpr double kMaxTimeBudgetS = 86400;
// Throws InputError, with the estimate and what makes it shorter, for a setup longer than that.
void check_setup(const SetupEstimate& e, double time_budget_s);

// What the run should be told before it waits: each case whose one iteration would make so many
// synced writes that it takes more than 10 s here (a synced append measured in dir), with the
// estimate.
std::vector<std::string> long_iterations(const std::vector<std::vector<CaseSpec>>& plan, const std::string& dir);

// Free bytes for an unprivileged writer on the filesystem holding dir.
std::uint64_t free_space(const std::string& dir);

}  // namespace iolab
