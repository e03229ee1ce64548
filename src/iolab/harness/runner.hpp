#pragma once
// Runs one case: warm-up, then measured iterations, each timed from outside the strategy,
// with its CPU time, context switches, page faults and system calls, the cache state proven
// before it and the output verified after it.
#include <cstdint>
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

// A count of iterations ("10") or a time ("2s", "500ms").
struct Amount {
    std::uint64_t count = 0;
    double seconds = 0;
    std::string describe() const;
};
// Throws std::invalid_argument naming the value. zero_ok: "0" is allowed (no warm-up).
Amount parse_amount(std::string_view text, const char* what, bool zero_ok);

struct RunOptions {
    Amount warmup{1, 0};
    Amount iterations{5, 0};
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

struct CaseResult {
    CaseSpec spec;
    Status status = Status::ok;
    std::string reason;  // failed / skipped
    bool verified = false;
    std::vector<Sample> samples;
    Summary stats;  // of wall_s per run
    double throughput_mib_s = 0;  // bytes over the median wall time
    std::vector<Warning> warnings;
    std::shared_ptr<Timeline> timeline;  // the last measured iteration's, when recorded

    std::string name() const { return spec.strategy ? spec.strategy->name : std::string(); }
};

// The time source, replaceable in tests.
class Clock {
public:
    virtual ~Clock() = default;
    virtual std::uint64_t now_ns() = 0;
    virtual double resolution_s() = 0;
};
Clock& system_clock();

// Iterations to measure for a target time, given one run's duration (Google Benchmark's
// rule, with a floor of 3 so an interval exists and a ceiling of max_iterations).
std::uint64_t iterations_for(double target_s, double run_s, std::uint64_t max_iterations);

CaseResult run_case(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir,
                    Clock& clock = system_clock());
// As run_case, in `opts.forks` child processes whose samples are pooled.
CaseResult run_case_forked(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir);

// Statistics, throughput and warnings from the samples (also used on pooled samples).
void finish(CaseResult& r, const RunOptions& opts, double resolution_s);

}  // namespace iolab
