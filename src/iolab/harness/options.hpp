#pragma once
// How a group of cases is run: cache state, durability, warm-up, iterations, precision.
#include <cstdint>
#include <string>
#include <string_view>

#include "iolab/core/names.hpp"
#include "iolab/core/sink.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

// A count of iterations ("10"), a time ("2s", "500ms"), or, for measured iterations, "auto":
// as many as the precision target needs, within the time budget.
struct Amount {
    std::uint64_t count = 0;
    double seconds = 0;
    bool adaptive = false;
    std::string describe() const;
};
// Throws InputError naming the value. zero_ok: "0" is allowed (no warm-up);
// auto_ok: "auto" is allowed.
Amount parse_amount(std::string_view text, const char* what, bool zero_ok, bool auto_ok = false);
inline constexpr Amount kAdaptive{0, 0, true};

// "5%" or "0.05" (a fraction above 0 and at most 1); a time such as "1s".
// Each throws InputError naming `what` and the value.
double parse_precision(std::string_view text, const char* what);
double parse_budget(std::string_view text, const char* what);

enum class CacheMode { warm, cold, direct };
inline constexpr Named<CacheMode> kCacheModes[] = {
    {CacheMode::warm, "warm"}, {CacheMode::cold, "cold"}, {CacheMode::direct, "direct"}};
inline std::string_view to_string(CacheMode m) { return name_of(kCacheModes, m); }

enum class SyncPolicy { none, fsync, fdatasync };
inline constexpr Named<SyncPolicy> kSyncPolicies[] = {
    {SyncPolicy::none, "none"}, {SyncPolicy::fsync, "fsync"}, {SyncPolicy::fdatasync, "fdatasync"}};
inline std::string_view to_string(SyncPolicy p) { return name_of(kSyncPolicies, p); }

// A simulated slow device on the write side: a bandwidth and a fixed cost per write request
// (t = requests x latency + bytes / rate), shared by every writer as one device is.
struct Device {
    double bytes_per_s = 0;  // 0: no device model (writes go at the speed of the real one)
    double latency_s = 0;    // per write call
    bool active() const { return bytes_per_s > 0; }
    std::string describe() const;  // "1 MiB/s" or "6.7 MiB/s + 5.62 ms a write"
    // The model's time for `bytes` written in `requests` calls.
    double seconds(std::uint64_t bytes, std::uint64_t requests) const {
        return static_cast<double>(requests) * latency_s + static_cast<double>(bytes) / bytes_per_s;
    }
};
// "1MiB/s" or "840000/s+45ms" (binary units, as every size in iolab: 0.84MB/s is 0.84 MiB/s).
// Throws InputError.
Device parse_device(std::string_view text);

// A racing run's time budget when none is given: a minute, or 3 s a case for a run of fewer than
// twenty cases (a question about two ways need not take a minute).
inline constexpr double kDefaultTimeBudget = 60, kDefaultTimePerCase = 3;

// The margin of the winner group: a case leaves it only when another is faster by more than this,
// with the interval of their comparison wholly beyond it (docs/harness.md).
inline constexpr double kDefaultMargin = 0.10;

// "10%" or "0.1": a fraction from 0 to 1. Throws InputError naming `what` and the value.
double parse_margin(std::string_view text, const char* what);

struct RunOptions {
    Amount warmup{1, 0};
    Amount iterations = kAdaptive;
    // With adaptive iterations: sample until the median's interval (kMedianConfidence) is
    // within +-precision of it, with at least min_iterations samples, or until case_budget_s of
    // measured time has been spent on the case.
    double precision = 0.03;
    double case_budget_s = 1.5;  // --budget: seconds of measured time a case (not --time-budget, the run's)
    std::uint64_t min_iterations = 6;
    // With adaptive iterations and no --precision given: racing. Each round measures only the
    // cases whose place in an answer is still in doubt (runner.cpp), within the run's time budget,
    // which the session shares among the groups (run_group's budget_s: a group's).
    bool race = true;
    double time_budget_s = 0;  // 0: kDefaultTimeBudget, or less for a run of few cases
    // Racing, winner groups, knees and iolab tune: how much faster another case must surely be for
    // a case to leave the winner group.
    double margin = kDefaultMargin;
    // What measured iterations of reads check (the first run of every case checks every byte).
    VerifyMode verify = VerifyMode::sampled;
    std::uint64_t order_seed = 0x10ab5eed;  // the order of the cases in each round (--seed is the access pattern's)
    CacheMode cache = CacheMode::warm;
    SyncPolicy sync = SyncPolicy::none;
    bool drop_caches = false;
    unsigned forks = 0;
    Device throttle;         // a simulated slow device on the write side; inactive: none
    bool timeline = false;   // record the last iteration's timeline where the strategy can
    bool stonewall = false;  // with several jobs: stop them all when the first one ends
    // With several jobs: one file for all, each job on its own part of it (IOR's segmented
    // layout), instead of a file per job.
    bool shared_file = false;
    // A page cache of this many bytes for the group (0: the machine's): the group runs in a child
    // process in a memory cgroup of that size (and what its buffers need), so that a file larger
    // than the budget does not fit in the cache however much memory the machine has.
    std::uint64_t cache_budget = 0;
    std::uint64_t max_iterations = 10000;
    // The JVM worker of the jvm.* strategies: its fixed heap (-Xms = -Xmx), and how long one
    // request may take before the worker is ended and the case failed.
    std::uint64_t jvm_heap = 1u << 30;
    double jvm_deadline_s = 300;
};

}  // namespace iolab
