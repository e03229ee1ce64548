#pragma once
// Runs the cases of a group: inputs prepared and brought to the cache state once, a warm-up per
// case (the first run verifying every byte), then measured iterations in rounds, the cases in
// a seeded random order each round, each case sampled until its median is precise enough or
// its time budget is spent. Every iteration is timed from outside the strategy, with its CPU
// time, context switches, page faults and system calls, the cache state proven before it and
// the output verified after it.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "iolab/core/scratch.hpp"
#include "iolab/core/timeline.hpp"
#include "iolab/core/workload.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/strategies/strategy.hpp"

namespace iolab {

enum class CacheMode { warm, cold, direct };
enum class SyncPolicy { none, fsync, fdatasync };
std::string_view to_string(CacheMode m);
std::string_view to_string(SyncPolicy p);

// A count of iterations ("10"), a time ("2s", "500ms"), or, for measured iterations, "auto":
// as many as the precision target needs, within the time budget.
struct Amount {
    std::uint64_t count = 0;
    double seconds = 0;
    bool adaptive = false;
    std::string describe() const;
};
// Throws std::invalid_argument naming the value. zero_ok: "0" is allowed (no warm-up);
// auto_ok: "auto" is allowed.
Amount parse_amount(std::string_view text, const char* what, bool zero_ok, bool auto_ok = false);
inline constexpr Amount kAdaptive{0, 0, true};

// "sampled" or "full"; "5%" or "0.05" (a fraction above 0 and at most 1); a time such as "1s".
// Each throws std::invalid_argument naming `what` and the value.
VerifyMode parse_verify_mode(std::string_view text, const char* what);
double parse_precision(std::string_view text, const char* what);
double parse_budget(std::string_view text, const char* what);

struct RunOptions {
    Amount warmup{1, 0};
    Amount iterations = kAdaptive;
    // With adaptive iterations: sample until the median's interval (kMedianConfidence) is
    // within +-precision of it, with at least min_iterations samples, or until budget_s of
    // measured time has been spent on the case.
    double precision = 0.03;
    double budget_s = 1.5;
    std::uint64_t min_iterations = 6;
    // What measured iterations of reads check (the first run of every case checks every byte).
    VerifyMode verify = VerifyMode::sampled;
    std::uint64_t seed = 0x10ab5eed;  // the order of the cases in each round
    CacheMode cache = CacheMode::warm;
    SyncPolicy sync = SyncPolicy::none;
    bool drop_caches = false;
    unsigned forks = 0;
    double throttle = 0;     // bytes per second on the write side; 0: none (a simulated slow device)
    bool timeline = false;   // record the last iteration's timeline where the strategy can
    std::uint64_t max_iterations = 10000;
};

// One strategy at one point of its parameters.
struct CaseSpec {
    const Strategy* strategy = nullptr;
    std::string group;  // the suite group it belongs to ("" outside suites)
    Workload workload;
    // Byte-at-a-time strategies run on a slice of the workload: the bytes of the whole one
    // (0: not a slice). Reports scale times by scale() so rows stay comparable.
    std::uint64_t full_bytes = 0;
    double scale() const {
        return full_bytes ? static_cast<double>(full_bytes) / static_cast<double>(workload.bytes()) : 1.0;
    }
    // The parameters that define this case, for tables and exports.
    std::map<std::string, std::string> params() const;
    std::string label() const;  // "read.chunk buffer=64K"
};

struct Sample {
    double wall_s = 0;
    double user_s = 0;
    double sys_s = 0;
    long vol_cs = 0;
    long invol_cs = 0;
    long minor_faults = 0;
    long major_faults = 0;
    std::uint64_t bytes = 0;
    std::uint64_t syscalls = 0;     // data-moving calls through iolab's syscall layer
    std::uint64_t all_calls = 0;    // every call through the layer
    double resident = -1;           // input resident in the page cache before the run (0..1), -1: n/a
};

// A reason to doubt a figure. Data, printed in one place by the reports.
struct Warning {
    std::string kind;     // "outliers", "first-iteration", "not-cold", "resolution"
    std::string subject;  // the case's label
    std::string message;
};

enum class Status { ok, failed, skipped };
std::string_view to_string(Status s);

// What the harness could check of a case's work.
enum class Checked {
    content,     // every byte of the output, or of what was read (sampled in measured reads)
    byte_count,  // only the byte count a tool reported (dd, fio): the whole job was done
    none,        // nothing (cat): the case is shown, but is unverified
};
std::string_view to_string(Checked c);

struct CaseResult {
    CaseSpec spec;
    Status status = Status::ok;
    std::string reason;  // failed / skipped
    bool verified = false;  // ok, and its content checked in every iteration
    Checked checked = Checked::none;
    // Cold case whose input was more than 5 % cached before some iteration: not ranked as cold,
    // and no finding may use it.
    bool cold_unproven = false;
    bool precision_met = false;  // adaptive iterations: stopped by the precision target
    std::vector<Sample> samples;
    Summary stats;  // of wall_s per run
    double throughput_mib_s = 0;  // bytes over the median wall time
    std::vector<Warning> warnings;
    std::shared_ptr<Timeline> timeline;  // the last measured iteration's, when recorded

    std::string name() const { return spec.strategy ? spec.strategy->name : std::string(); }
    // Shown with a rank: ok, and not an unproven cold case.
    bool ranked() const { return status == Status::ok && !cold_unproven; }
    // Fit to decide a finding: ranked and checked (content or byte count).
    bool trusted() const { return ranked() && checked != Checked::none; }
};

// The time source, replaceable in tests.
class Clock {
public:
    virtual ~Clock() = default;
    virtual std::uint64_t now_ns() = 0;
    virtual double resolution_s() = 0;
};
Clock& system_clock();

// Iterations to measure for a target time, given one run's duration: target / run, rounded
// up, with a floor of 3 and a ceiling of max_iterations.
std::uint64_t iterations_for(double target_s, double run_s, std::uint64_t max_iterations);

// Called before each iteration of a measured round: (index of the case in the group, the case).
using ProgressFn = std::function<void(std::size_t, const CaseSpec&)>;

// Runs the cases of a group, interleaved. When a stop is requested (interrupt.hpp) it returns
// at the next iteration boundary; the cases it cut short are then incomplete (check
// interrupt::requested()).
std::vector<CaseResult> run_group(const std::vector<CaseSpec>& specs, const RunOptions& opts, const ScratchDir& dir,
                                  Clock& clock = system_clock(), const ProgressFn& progress = {});
// As run_group, in `opts.forks` child processes whose samples are pooled case by case.
std::vector<CaseResult> run_group_forked(const std::vector<CaseSpec>& specs, const RunOptions& opts,
                                         const ScratchDir& dir, const ProgressFn& progress = {});
// One case alone.
CaseResult run_case(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir,
                    Clock& clock = system_clock());
CaseResult run_case_forked(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir);

// Statistics, throughput and warnings from the samples (also used on pooled samples).
void finish(CaseResult& r, const RunOptions& opts, double resolution_s);

}  // namespace iolab
