#pragma once
// What a run produces: each case (a strategy at one point of its parameters), its samples,
// its status, what was checked and the warnings that cast doubt on its figures.
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "iolab/core/latency.hpp"
#include "iolab/core/names.hpp"
#include "iolab/core/timeline.hpp"
#include "iolab/core/workload.hpp"
#include "iolab/harness/options.hpp"
#include "iolab/harness/ratio.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/strategies/strategy.hpp"

namespace iolab {

struct CaseSpec;

// One strategy at one point of its parameters.
struct CaseSpec {
    const Strategy* strategy = nullptr;
    std::string group;  // the suite group it belongs to ("" outside suites)
    Workload workload;
    // Byte-at-a-time strategies run on a slice of the workload: the bytes of the whole one
    // (0: not a slice). Reports scale times by scale() so rows stay comparable.
    std::uint64_t full_bytes = 0;
    // Its count of items (records, files, replacements) was sized by time here, not given
    // (Session::size_by_time): it differs from machine to machine and run to run, so a comparison
    // of two runs matches the case without it.
    bool sized = false;
    double scale() const {
        return full_bytes ? static_cast<double>(full_bytes) / static_cast<double>(workload.bytes()) : 1.0;
    }
    // The parameters that define this case, for tables and exports.
    std::map<std::string, std::string> params() const;
    std::string label() const;         // "read.chunk buffer=64K"
    std::string label_params() const;  // "buffer=64K": what tells it from the strategy's other cases
    // The bytes of the file the case stands for (a byte-at-a-time slice stands for the whole).
    std::uint64_t whole_bytes() const { return full_bytes ? full_bytes : workload.bytes(); }
    // The size of its file (Workload::file_bytes; a byte-at-a-time slice's, the whole).
    std::uint64_t file_size() const { return full_bytes ? full_bytes : workload.file_bytes(); }
};

// The table a case is ranked in (core/workload.hpp): a kind with kTraitTableBySize has one for each
// size of its file (a write's bytes follow its records, which its label names).
inline TableKey table_of(const CaseSpec& c) {
    const bool by_size = has_trait(c.workload.family, kTraitTableBySize);
    return {c.workload.family, c.workload.item_bytes(), by_size ? c.file_size() : 0};
}

struct Sample {
    double wall_s = 0;
    double user_s = 0;
    double sys_s = 0;
    long vol_cs = 0;
    long invol_cs = 0;
    long minor_faults = 0;
    long major_faults = 0;
    std::uint64_t bytes = 0;
    std::uint64_t syscalls = 0;   // data-moving calls through iolab's syscall layer
    std::uint64_t all_calls = 0;  // every call through the layer
    double resident = -1;         // input resident in the page cache before the run (0..1), -1: n/a
    double resident_after = -1;   // and after it (reads), outside the clock
    // With several jobs: each job's own time, from its start to its end; wall_s is then from
    // the first job's start to the last one's end, and bytes all of theirs (the aggregate
    // throughput, IOR's rule). Empty for one job.
    std::vector<double> job_s;
    // Under MPI: each rank's own time, by rank, from its first job's start to its last job's end
    // (every rank moves bytes / rank_s.size()). Empty for one process.
    std::vector<double> rank_s;
    // Patterned cases: every operation's time (all jobs'), when measured in this process.
    std::shared_ptr<const Latency> latency;
    // External tools: the wall time of the same command on a one-page input, run in the same
    // round (the tool's fixed cost: its start-up and set-up); -1: not a tool.
    double fixed_s = -1;
    // The tool's own report of the time its work took (fio's runtime, dd's closing line), for all
    // its passes; -1: it reports none.
    double tool_s = -1;
    // How many times the tool did the work in this run (fio --loops: so that its job outlasts the
    // 10 ms steps in which fio notices that a job has ended). Bytes and times are per pass.
    unsigned passes = 1;
    // The run's own setup, outside the clock: its output's place made (a tree laid out to be
    // removed), its input evicted or synced, a worker readied, its output removed. Racing, it is
    // outside the time budget (run_group bounds how much); not kept in result files.
    double setup_s = 0;
};

// A reason to doubt a figure. Made by finish(), printed in one place by the reports.
enum class WarningKind { outliers, first_iteration, not_cold, resolution, over_budget, unstable, above_limit };
inline constexpr Named<WarningKind> kWarningKinds[] = {
    {WarningKind::outliers, "outliers"},      {WarningKind::first_iteration, "first-iteration"},
    {WarningKind::not_cold, "not-cold"},      {WarningKind::over_budget, "over-budget"},
    {WarningKind::resolution, "resolution"},  {WarningKind::unstable, "unstable"},
    {WarningKind::above_limit, "above-limit"}};
inline std::string_view to_string(WarningKind k) { return name_of(kWarningKinds, k); }

struct Warning {
    WarningKind kind = WarningKind::outliers;
    std::string subject;  // the case's label
    std::string message;
};

enum class Status { ok, failed, skipped };
inline constexpr Named<Status> kStatuses[] = {
    {Status::ok, "ok"}, {Status::failed, "failed"}, {Status::skipped, "skipped"}};
inline std::string_view to_string(Status s) { return name_of(kStatuses, s); }

// What the harness could check of a case's work.
enum class Checked {
    content,     // every byte of the output, or of what was read (sampled in measured reads)
    byte_count,  // only the byte count a tool reported (dd, fio): the whole job was done
    none,        // nothing (cat): the case is shown, but is unverified
};
inline constexpr Named<Checked> kChecked[] = {
    {Checked::content, "content"}, {Checked::byte_count, "byte count"}, {Checked::none, "none"}};
inline std::string_view to_string(Checked c) { return name_of(kChecked, c); }

// Why a case stopped being measured.
enum class StopReason {
    none,            // not measured (failed or skipped before its first sample)
    precise,         // its median's interval reached the precision target
    clearly_slower,  // racing: shown slower than its table's leader by more than the margin: out of the winner group
    settled,         // racing in a run with findings: no finding or knee needs more of it
    case_budget,     // its own time budget (--budget) was spent
    run_budget,      // the run's time budget (--time-budget) was spent
    count,           // the iterations asked for (--iterations N, or a time)
    cap,             // the most iterations a case may have
    interrupted,     // a signal stopped the run
};
inline constexpr Named<StopReason> kStopReasons[] = {{StopReason::none, "none"},
                                                     {StopReason::precise, "precise"},
                                                     {StopReason::clearly_slower, "clearly slower"},
                                                     {StopReason::settled, "settled"},
                                                     {StopReason::case_budget, "case budget"},
                                                     {StopReason::run_budget, "time budget"},
                                                     {StopReason::count, "count"},
                                                     {StopReason::cap, "cap"},
                                                     {StopReason::interrupted, "interrupted"}};
inline std::string_view to_string(StopReason r) { return name_of(kStopReasons, r); }

// The widest interval of a median (relative, either side) of a case that does not "vary": one
// wider is said to vary (its figure is shown with its spread, and counted in a warning), and still
// ranks: the intervals of its comparisons carry its spread.
inline constexpr double kStableBound = 0.10;

struct CaseResult {
    CaseSpec spec;
    Status status = Status::ok;
    std::string reason;     // failed / skipped
    bool verified = false;  // ok, and its content checked in every iteration
    Checked checked = Checked::none;
    // Cold case whose input was more than 5 % cached before some iteration: not ranked as cold,
    // and no finding may use it.
    bool cold_unproven = false;
    // Under --cache-budget: some run's input was cached well beyond the budget (a locked memory
    // reserve cannot hold the cache exactly), so the case is not ranked and no finding uses it.
    bool budget_unheld = false;
    StopReason stopped = StopReason::none;
    // Its median's 95 % interval is within kStableBound of it (finish()). A case that is not
    // "varies": marked, and counted in a warning; it ranks and decides as any other.
    bool stable = false;
    // Why its figure cannot be, so that it is shown without a rank and decides nothing: a tool's
    // net time inside the noise of its fixed cost (finish()), a rate above the ceiling of its kind
    // of work (hold_to_ceilings, limits.hpp); empty: none.
    std::string no_figure;
    // Its time is the device's (O_DIRECT, O_DSYNC, a durable append, a cold read, a synced run):
    // noise the envelope of too few samples was not calibrated on, so its comparisons need
    // Moses's interval (finish()).
    bool device_bound = false;
    std::vector<Sample> samples;
    Summary stats;  // of time_s per run: the wall time, or a tool's net time
    // External tools: the summaries of the process's wall time and of its fixed cost, for a whole
    // run of all its passes (n = 0 otherwise).
    Summary gross, fixed;
    double throughput_mib_s = 0;  // bytes over the median time (a tool's net time)
    std::vector<Warning> warnings;
    std::shared_ptr<Timeline> timeline;  // the last measured iteration's, when recorded
    // Patterned cases: the operations of every measured iteration, and the rate of operations
    // over the median time.
    std::shared_ptr<const Latency> latency;
    double ops_per_s = 0;

    std::string name() const { return spec.strategy ? spec.strategy->name : std::string(); }
    // Shown with a rank: ok, not an unproven cold case, and a figure that can be.
    bool ranked() const { return status == Status::ok && !cold_unproven && !budget_unheld && no_figure.empty(); }
    // Fit to decide a finding: ranked and checked (content or byte count).
    bool trusted() const { return ranked() && checked != Checked::none; }
    // A tool timed net of its fixed cost.
    bool net() const { return fixed.n > 0; }
    // Seconds per pass of every sample, the one time every figure, rank, ratio and stop rule is of:
    // the wall time, or where every sample has a fixed cost (a tool's, a worker's) the net time,
    // less the median of those costs.
    std::vector<double> times() const;
    // The same per byte moved, as ranks and ratios compare them.
    std::vector<double> per_byte() const;
};

// Data calls per MiB for a case, or -1 when its I/O is not in the syscall layer.
double calls_per_mib(const CaseResult& c);
// Every call through the syscall layer (opens, stats, syncs, renames, data) per item of a kind that
// counts items (Workload::item_bytes: a file, a commit, a replacement), or -1 where its I/O is not in
// the syscall layer or it counts no items.
double calls_per_item(const CaseResult& c);
// CPU time (user + system) over wall time, as a fraction.
double cpu_fraction(const CaseResult& c);
// The median share of the input in the page cache before a run, or -1.
double median_resident(const CaseResult& c);

// a's times per byte over b's with their interval (ratio.hpp): the envelope only where neither is
// device-bound.
RatioEstimate ratio_of(const CaseResult& a, const CaseResult& b, double confidence);

// How much a case's figure varies, for people: "±15.2%" (the larger side of its median's 95 %
// interval), or "" when it does not vary past kStableBound or has too few samples to tell.
std::string variation(const CaseResult& c);

// Statistics, throughput and warnings from the samples (also used on pooled samples).
void finish(CaseResult& r, const RunOptions& opts, double resolution_s);

// The median's interval as one of throughputs (low, high); (0, 0) without a 95 % interval.
std::pair<double, double> rate_interval(const CaseResult& c);
bool has_interval(const CaseResult& c);

}  // namespace iolab
