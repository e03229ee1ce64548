// Case parameters and labels, and what finish() makes of a case's samples: statistics,
// throughput and every warning's text.
#include "iolab/harness/result.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "iolab/chain/chain.hpp"
#include "iolab/core/units.hpp"

namespace iolab {

namespace {

// A size or count of at least 1 (no case has an empty buffer, record or file).
std::uint64_t size_of(std::string_view v) {
    const std::uint64_t n = parse_size(v);
    if (n == 0) throw InputError(one_line(fmt::format("'{}' is not at least 1", v)));
    return n;
}
// An operation count or a seed: a plain whole number of 64 bits.
std::uint64_t whole64(std::string_view v) {
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size())
        throw InputError(one_line(fmt::format("'{}' is not a whole number", v)));
    return n;
}
// A queue depth or vector length: a plain whole number from 1 to 2^32 - 1.
unsigned whole(std::string_view v) {
    if (v.empty() || v.find_first_not_of("0123456789") != std::string_view::npos)
        throw InputError(one_line(fmt::format("'{}' is not a whole number", v)));
    const std::uint64_t n = v.size() > 10 ? UINT64_MAX : std::stoull(std::string(v));
    if (n == 0 || n > UINT32_MAX) throw InputError(one_line(fmt::format("'{}' is not from 1 to {}", v, UINT32_MAX)));
    return static_cast<unsigned>(n);
}

bool honours(const CaseSpec& c, Param p) { return c.strategy && c.strategy->honours(p); }
bool writes(const CaseSpec& c) { return honours(c, kParamRecord); }

using C = CaseSpec;
using V = std::string_view;

// In the order of labels and table columns.
constexpr CaseParam kCaseParams[] = {
    {"buffer", true, [](const C& c) { return honours(c, kParamBuffer); },
     [](const C& c) { return format_compact(c.workload.buffer); }, [](C& c, V v) { c.workload.buffer = size_of(v); }},
    {"record", true, writes, [](const C& c) { return format_compact(c.workload.record); },
     [](C& c, V v) { c.workload.record = size_of(v); }},
    {"queue", true, [](const C& c) { return honours(c, kParamQueue); },
     [](const C& c) { return std::to_string(c.workload.queue); }, [](C& c, V v) { c.workload.queue = whole(v); }},
    {"iov", true, [](const C& c) { return honours(c, kParamIov); },
     [](const C& c) { return std::to_string(c.workload.iov); }, [](C& c, V v) { c.workload.iov = whole(v); }},
    {"chain", true, [](const C& c) { return honours(c, kParamChain); }, [](const C& c) { return c.workload.chain; },
     [](C& c, V v) { c.workload.chain = describe(parse_chain(std::string(v))); }},
    {"feed", true, [](const C& c) { return honours(c, kParamFeed); },
     [](const C& c) { return std::string(name_of(kFeeds, c.workload.feed_bytes)); },
     [](C& c, V v) {
         const auto f = value_of(kFeeds, v);
         if (!f) throw InputError(one_line(fmt::format("feed '{}' is not {}", v, names_of(kFeeds))));
         c.workload.feed_bytes = *f;
     }},
    {"pattern", true, [](const C& c) { return honours(c, kParamPattern); },
     [](const C& c) { return to_string(c.workload.pattern); },
     [](C& c, V v) {
         c.workload.pattern = parse_pattern(v);
         c.workload.patterned = true;
     }},
    {"block", true, [](const C& c) { return honours(c, kParamPattern); },
     [](const C& c) { return format_compact(c.workload.block); }, [](C& c, V v) { c.workload.block = size_of(v); }},
    {"ops", false, [](const C& c) { return honours(c, kParamPattern); },
     [](const C& c) { return std::to_string(c.workload.op_count()); }, [](C& c, V v) { c.workload.ops = whole64(v); }},
    {"span", false, [](const C& c) { return honours(c, kParamPattern); },
     [](const C& c) { return format_compact(c.workload.span_bytes()); },
     [](C& c, V v) { c.workload.span = size_of(v); }},
    {"seed", false, [](const C& c) { return honours(c, kParamPattern); },
     [](const C& c) { return std::to_string(c.workload.seed); }, [](C& c, V v) { c.workload.seed = whole64(v); }},
    {"count", false, writes, [](const C& c) { return std::to_string(c.workload.count); },
     [](C& c, V v) { c.workload.count = size_of(v); }},
    // A write's size is its records: setting it sets the count.
    {"size", false, [](const C&) { return true; },
     [](const C& c) { return format_compact(c.workload.patterned ? c.workload.size : c.workload.bytes()); },
     [](C& c, V v) {
         c.workload.size = size_of(v);
         if (c.workload.family == Family::write)
             c.workload.count =
                 std::max<std::uint64_t>(1, c.workload.size / std::max<std::size_t>(1, c.workload.record));
     }},
    // Every case has its jobs (1 unless --jobs); a label names them past one.
    {"jobs", true, [](const C&) { return true; }, [](const C& c) { return std::to_string(c.workload.jobs); },
     [](C& c, V v) { c.workload.jobs = whole(v); }, [](const C& c) { return c.workload.jobs > 1; }},
    {"slice_of", false, [](const C& c) { return c.full_bytes > 0; },
     [](const C& c) { return format_compact(c.full_bytes); }, [](C& c, V v) { c.full_bytes = size_of(v); }},
    {"data", false, [](const C&) { return true; }, [](const C& c) { return to_string(c.workload.data); },
     [](C& c, V v) { c.workload.data = parse_data_spec(v); }},
};

}  // namespace

std::span<const CaseParam> case_params() { return kCaseParams; }

const CaseParam* find_case_param(std::string_view key) { return find_by_key<CaseParam>(kCaseParams, key); }

std::map<std::string, std::string> CaseSpec::params() const {
    std::map<std::string, std::string> out;
    for (const auto& p : kCaseParams)
        if (p.has(*this)) out[std::string(p.key)] = p.get(*this);
    return out;
}

std::string CaseSpec::label_params() const {
    std::string l;
    for (const auto& p : kCaseParams)
        if (p.labelled(*this)) l += fmt::format("{}{}={}", l.empty() ? "" : " ", p.key, p.get(*this));
    return l;
}

std::string CaseSpec::label() const {
    const std::string params = label_params();
    return params.empty() ? strategy->name : strategy->name + " " + params;
}

std::vector<double> CaseResult::per_byte() const {
    const double asked = static_cast<double>(spec.workload.all_bytes());
    std::vector<double> out;
    out.reserve(samples.size());
    // Its own bytes: a stonewalled run moves fewer than asked (and an empty file counts one).
    for (const auto& smp : samples)
        out.push_back(smp.time_s() / (smp.bytes > 0 ? static_cast<double>(smp.bytes) : std::max(1.0, asked)));
    return out;
}

RatioEstimate ratio_of(const CaseResult& slower, const CaseResult& faster) {
    return ratio_of_medians(slower.per_byte(), faster.per_byte());
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

std::string instability(const CaseResult& c) {
    if (c.stable || c.status != Status::ok) return {};
    if (c.stats.n < 2 || c.stats.median_confidence < kMedianConfidence)
        return fmt::format("had {} sample{}, too few for a {:.0f}% interval", c.stats.n, c.stats.n == 1 ? "" : "s",
                           kMedianConfidence * 100);
    if (c.stats.median <= 0)
        return c.net() ? "had a net time no larger than its fixed cost's noise" : "had no measurable time";
    return fmt::format("varied ±{:.1f}% (over ±{:.0f}%)", 100 * c.stats.median_precision(), 100 * kStableBound);
}

void finish(CaseResult& r, const RunOptions& opts, double resolution_s) {
    std::vector<double> walls, times, fixed;
    for (const auto& smp : r.samples) {
        walls.push_back(smp.wall_s);
        times.push_back(smp.time_s());
        if (smp.fixed_s >= 0) fixed.push_back(smp.fixed_s);
    }
    r.stats = summarize(times);
    // A tool's figures are net of its fixed cost only where every sample has one.
    const bool net = !fixed.empty() && fixed.size() == r.samples.size();
    r.gross = net ? summarize(walls) : Summary{};
    r.fixed = net ? summarize(fixed) : Summary{};
    r.stable =
        r.status == Status::ok && r.stats.median > 0 &&
        (r.stopped == StopReason::clearly_slower || (r.stats.n > 1 && r.stats.median_confidence >= kMedianConfidence &&
                                                     r.stats.median_precision() <= kStableBound));
    r.warnings.clear();
    if (opts.cache == CacheMode::cold) r.cold_unproven = false;  // decided below; kept otherwise (a re-read result)
    r.budget_unheld = false;                                     // decided below
    r.throughput_mib_s = 0;
    if (r.samples.empty()) return;
    if (r.stats.median > 0) r.throughput_mib_s = static_cast<double>(r.samples[0].bytes) / r.stats.median / (1 << 20);
    // Samples of different sizes (jobs stopped by --stonewall): the median of their rates.
    if (std::any_of(r.samples.begin(), r.samples.end(),
                    [&](const Sample& s) { return s.bytes != r.samples[0].bytes; })) {
        std::vector<double> rates;
        for (const auto& s : r.samples) rates.push_back(static_cast<double>(s.bytes) / s.time_s() / (1 << 20));
        r.throughput_mib_s = std::max(0.0, median(rates));
    }
    if (r.spec.workload.patterned) {
        auto all = std::make_shared<Latency>();
        for (const auto& smp : r.samples)
            if (smp.latency) all->merge(*smp.latency);
        if (all->count()) r.latency = std::move(all);  // else kept: read from a result file
        // From the throughput, so that the two agree (under --stonewall both are the median of
        // the samples' rates).
        r.ops_per_s = r.throughput_mib_s * (1 << 20) / static_cast<double>(r.spec.workload.block);
    }
    const std::string name = r.spec.label();

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

    if (opts.cache == CacheMode::cold) {
        std::size_t warm = 0;
        double worst = 0;
        for (const auto& smp : r.samples)
            if (smp.resident > 0.05) {
                ++warm;
                worst = std::max(worst, smp.resident);
            }
        if (warm > 0) {
            r.cold_unproven = true;
            r.warnings.push_back({WarningKind::not_cold, name,
                                  fmt::format("{} of {} cold iterations started with up to {:.0f}% of the input in "
                                              "the page cache, so the case is not ranked as cold; the filesystem "
                                              "may ignore POSIX_FADV_DONTNEED (as root, try --drop-caches)",
                                              warm, r.samples.size(), worst * 100)});
        }
    }
    if (opts.cache_budget > 0 && r.spec.workload.family != Family::write) {
        // The input's cached bytes before or after a run, against the budget (a quarter over it,
        // and 8 MiB, are the buffers' and the process's room).
        double most = 0;
        for (const auto& smp : r.samples) most = std::max({most, smp.resident, smp.resident_after});
        const double cached = most * static_cast<double>(r.spec.workload.size);
        if (cached > 1.25 * static_cast<double>(opts.cache_budget) + (8 << 20)) {
            r.budget_unheld = true;
            r.warnings.push_back(
                {WarningKind::over_budget, name,
                 fmt::format("up to {} of the input was in the page cache, over the budget of {}, so "
                             "the case is not ranked: the budget did not hold here",
                             format_size(static_cast<std::uint64_t>(cached)), format_size(opts.cache_budget))});
        }
    }
    if (r.stats.median > 0 && r.stats.median < 1000 * resolution_s)
        r.warnings.push_back({WarningKind::resolution, name,
                              "the median time is under 1,000 ticks of the clock; use a larger --size for a "
                              "meaningful figure"});
    if (r.status == Status::ok && !r.stable)
        r.warnings.push_back({WarningKind::unstable, name, instability(r) + ": it is not ranked and decides nothing"});
}

}  // namespace iolab
