// What finish() makes of a case's samples: statistics,
// throughput and every warning's text.
#include "iolab/harness/result.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "iolab/chain/chain.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/plan.hpp"

namespace iolab {

std::vector<double> CaseResult::times() const {
    // Less the median of the case's fixed costs, not each run's own: a probe that a hiccup of the
    // machine made longer than its run (a JVM round trip of 3 ms beside a copy of 0.9 ms) would
    // make a time below zero, which no ratio can take.
    const bool net = !samples.empty() &&
                     std::all_of(samples.begin(), samples.end(), [](const Sample& smp) { return smp.fixed_s >= 0; });
    double fixed = 0;
    if (net) {
        std::vector<double> costs;
        costs.reserve(samples.size());
        for (const auto& smp : samples) costs.push_back(smp.fixed_s);
        fixed = median(costs);
    }
    std::vector<double> out;
    out.reserve(samples.size());
    for (const auto& smp : samples) out.push_back((smp.wall_s - fixed) / smp.passes);
    return out;
}

std::vector<double> CaseResult::per_byte() const {
    const double asked = static_cast<double>(spec.workload.all_bytes());
    std::vector<double> out = times();
    // Its own bytes: a stonewalled run moves fewer than asked (and an empty file counts one).
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] /= samples[i].bytes > 0 ? static_cast<double>(samples[i].bytes) : std::max(1.0, asked);
    return out;
}

double calls_per_mib(const CaseResult& c) {
    if (!c.spec.strategy->in_syscall_layer() || c.samples.empty()) return -1;
    double calls = 0, bytes = 0;
    for (const auto& s : c.samples) {
        calls += static_cast<double>(s.syscalls);
        bytes += static_cast<double>(s.bytes) * s.passes;
    }
    return bytes > 0 ? calls / (bytes / (1 << 20)) : 0;
}

double calls_per_item(const CaseResult& c) {
    const std::uint64_t item = c.spec.workload.item_bytes();
    if (!c.spec.strategy->in_syscall_layer() || c.samples.empty() || item == 0) return -1;
    double calls = 0, items = 0;
    for (const auto& s : c.samples) {
        calls += static_cast<double>(s.all_calls);
        items += static_cast<double>(s.bytes) * s.passes / static_cast<double>(item);
    }
    return items > 0 ? calls / items : 0;
}

double cpu_fraction(const CaseResult& c) {
    double cpu = 0, wall = 0;
    for (const auto& s : c.samples) {
        cpu += s.user_s + s.sys_s;
        wall += s.wall_s;
    }
    return wall > 0 ? cpu / wall : 0;
}

double median_resident(const CaseResult& c) {
    std::vector<double> r;
    for (const auto& s : c.samples)
        if (s.resident >= 0) r.push_back(s.resident);
    return r.empty() ? -1 : median(r);
}

RatioEstimate ratio_of(const CaseResult& a, const CaseResult& b, double confidence) {
    return ratio_interval(a.per_byte(), b.per_byte(), confidence, !a.device_bound && !b.device_bound);
}

std::string variation(const CaseResult& c) {
    if (c.status != Status::ok || !has_interval(c) || c.stats.median_precision() <= kStableBound) return {};
    return fmt::format("±{:.0f}%", 100 * c.stats.median_precision());
}

namespace {

// The case's statistics from its samples: times, and a tool's gross and fixed times, where every
// sample has a fixed cost; whether it is stable. Returns the samples' times.
std::vector<double> summarize_samples(CaseResult& r) {
    std::vector<double> walls, fixed;
    for (const auto& smp : r.samples) {
        walls.push_back(smp.wall_s);
        if (smp.fixed_s >= 0) fixed.push_back(smp.fixed_s);
    }
    const std::vector<double> times = r.times();
    r.stats = summarize(times);
    // A tool's figures are net of its fixed cost only where every sample has one.
    const bool net = !fixed.empty() && fixed.size() == r.samples.size();
    r.gross = net ? summarize(walls) : Summary{};
    r.fixed = net ? summarize(fixed) : Summary{};
    r.stable = r.status == Status::ok && r.stats.median > 0 && r.stats.n > 1 &&
               r.stats.median_confidence >= kMedianConfidence && r.stats.median_precision() <= kStableBound;
    return times;
}

// Why a tool's figure cannot be: its net time (each run's less its probe's) is inside the noise of
// its fixed cost, three of the probes' robust standard deviations (1.4826 MAD; with two probes,
// their difference), so that the work it did cannot be told from the start-up it did not.
std::string net_in_noise(const CaseResult& r) {
    if (!r.net() || r.samples.empty()) return {};
    std::vector<double> fixed, net;
    for (const Sample& s : r.samples) {
        fixed.push_back(s.fixed_s);
        net.push_back(s.wall_s - s.fixed_s);
    }
    double noise = 0;
    if (fixed.size() >= 3) {
        const double m = median(fixed);
        std::vector<double> dev;
        for (const double f : fixed) dev.push_back(std::fabs(f - m));
        noise = 1.4826 * median(dev);
    } else if (fixed.size() == 2) {
        noise = std::fabs(fixed[1] - fixed[0]);
    }
    const double work = median(net);
    if (work > 3 * noise && work > 0) return {};
    return fmt::format(
        "its net time ({}) is inside the noise of its fixed cost ({} ± {}): its work cannot be told "
        "from its start-up",
        format_seconds(std::max(0.0, work) / r.samples[0].passes), format_seconds(median(fixed) / r.samples[0].passes),
        format_seconds(noise / r.samples[0].passes));
}

// Throughput, and a patterned case's latency and operations per second (of a case with samples).
void set_rates(CaseResult& r) {
    if (r.stats.median > 0) r.throughput_mib_s = static_cast<double>(r.samples[0].bytes) / r.stats.median / (1 << 20);
    // Samples of different sizes (jobs stopped by --stonewall): the median of their rates.
    if (std::any_of(r.samples.begin(), r.samples.end(),
                    [&](const Sample& s) { return s.bytes != r.samples[0].bytes; })) {
        std::vector<double> rates;
        const std::vector<double> times = r.times();
        for (std::size_t i = 0; i < times.size(); ++i)
            rates.push_back(static_cast<double>(r.samples[i].bytes) / times[i] / (1 << 20));
        r.throughput_mib_s = std::max(0.0, median(rates));
    }
    if (r.spec.workload.op_bytes() > 0) {
        auto all = std::make_shared<Latency>();
        for (const auto& smp : r.samples)
            if (smp.latency) all->merge(*smp.latency);
        if (all->count()) r.latency = std::move(all);  // else kept: read from a result file
        // From the throughput, so that the two agree (under --stonewall both are the median of
        // the samples' rates).
        r.ops_per_s = items_per_s(r.throughput_mib_s, r.spec.workload.op_bytes());
    }
}

// Warnings about the samples' times: outliers, and a first iteration far slower than the rest.
void warn_of_times(CaseResult& r, const std::vector<double>& times, const std::string& name) {
    // The modified z-score needs a few samples to mean anything (its MAD comes from them).
    if (const auto out = times.size() >= 5 ? outliers(times) : std::vector<std::size_t>{}; !out.empty())
        r.warnings.push_back({WarningKind::outliers, name, fmt::format("{} of {} samples", out.size(), times.size())});
    if (times.size() >= 3) {
        const double rest = median(std::vector<double>(times.begin() + 1, times.end()));
        if (rest > 0 && times[0] > 2 * rest)
            r.warnings.push_back({WarningKind::first_iteration, name,
                                  fmt::format("the first measured iteration took {:.2f}x the median of the rest; "
                                              "the warm-up may be too short (--warmup)",
                                              times[0] / rest)});
    }
}

// A cold case whose iterations started with the input partly cached is not proven cold.
void check_cold(CaseResult& r, const std::string& name) {
    std::size_t warm = 0;
    double worst = 0;
    for (const auto& smp : r.samples)
        if (smp.resident > 0.05) {
            ++warm;
            worst = std::max(worst, smp.resident);
        }
    if (warm == 0) return;
    r.cold_unproven = true;
    r.warnings.push_back({WarningKind::not_cold, name,
                          fmt::format("{} of {} cold iterations started with up to {:.0f}% of the input in "
                                      "the page cache, so the case is not ranked as cold; the filesystem "
                                      "may ignore POSIX_FADV_DONTNEED (as root, try --drop-caches)",
                                      warm, r.samples.size(), worst * 100)});
}

// The input's cached bytes before or after a run, against the cache budget (a quarter over it,
// and 8 MiB, are the buffers' and the process's room).
void check_budget(CaseResult& r, const RunOptions& opts, const std::string& name) {
    double most = 0;
    for (const auto& smp : r.samples) most = std::max({most, smp.resident, smp.resident_after});
    const double cached = most * static_cast<double>(r.spec.workload.size);
    if (cached <= 1.25 * static_cast<double>(opts.cache_budget) + (8 << 20)) return;
    r.budget_unheld = true;
    r.warnings.push_back(
        {WarningKind::over_budget, name,
         fmt::format("up to {} of the input was in the page cache, over the budget of {}, so "
                     "the case is not ranked: the budget did not hold here",
                     format_size(static_cast<std::uint64_t>(cached)), format_size(opts.cache_budget))});
}

}  // namespace

void finish(CaseResult& r, const RunOptions& opts, double resolution_s) {
    const std::vector<double> times = summarize_samples(r);
    r.warnings.clear();
    r.no_figure = r.status == Status::ok ? net_in_noise(r) : std::string();
    const Strategy* s = r.spec.strategy;
    r.device_bound = (s && (s->waits_for_device() || syncs_per_job(*s, r.spec.workload) > 0)) ||
                     opts.cache != CacheMode::warm || opts.sync != SyncPolicy::none;
    if (opts.cache == CacheMode::cold) r.cold_unproven = false;  // decided below; kept otherwise (a re-read result)
    r.budget_unheld = false;                                     // decided below
    r.throughput_mib_s = 0;
    if (r.samples.empty()) return;
    set_rates(r);
    const std::string name = r.spec.label();
    warn_of_times(r, times, name);
    if (opts.cache == CacheMode::cold) check_cold(r, name);
    if (opts.cache_budget > 0 && !writes_records(r.spec.workload.family)) check_budget(r, opts, name);
    if (r.stats.median > 0 && r.stats.median < 1000 * resolution_s)
        r.warnings.push_back({WarningKind::resolution, name,
                              "the median time is under 1,000 ticks of the clock; use a larger --size for a "
                              "meaningful figure"});
    if (const std::string v = variation(r); !v.empty())
        r.warnings.push_back({WarningKind::unstable, name,
                              fmt::format("varies {} (its median's {:.0f}% interval): the comparisons it is in carry "
                                          "its spread",
                                          v, kMedianConfidence * 100)});
}

std::pair<double, double> rate_interval(const CaseResult& c) {
    if (!has_interval(c) || c.stats.median_low <= 0 || c.stats.median_high <= 0) return {0, 0};
    const double t = c.throughput_mib_s, m = c.stats.median;
    return {t * m / c.stats.median_high, t * m / c.stats.median_low};
}

bool has_interval(const CaseResult& c) { return c.stats.n > 1 && c.stats.median_confidence >= kMedianConfidence; }

}  // namespace iolab
