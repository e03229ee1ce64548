#include "iolab/harness/settings.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "iolab/chain/chain.hpp"
#include "iolab/core/names.hpp"
#include "iolab/core/units.hpp"
#include "iolab/sys/reserve.hpp"

namespace iolab {

namespace {

// "a, b,c" -> a, b, c; an empty item is an error.
std::vector<std::string_view> items(std::string_view text) {
    auto out = split_items(text);
    if (std::count(out.begin(), out.end(), std::string_view())) throw InputError("an empty item");
    return out;
}

// A list without its repeats, in first-seen order (4K,4096 is one buffer).
template <class T>
std::vector<T> unique(std::vector<T> v) {
    std::vector<T> out;
    for (const T& x : v)
        if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
    return out;
}

// Sizes of at least 1 byte, ranges expanded, repeats dropped.
std::vector<std::uint64_t> sizes(std::string_view text) {
    std::vector<std::uint64_t> out;
    for (auto item : items(text))
        for (auto s : parse_size_list(item)) {
            if (s == 0) throw InputError("zero");
            out.push_back(s);
        }
    return unique(out);
}

std::vector<unsigned> whole_numbers(std::string_view text, unsigned max) {
    std::vector<unsigned> out;
    for (auto item : items(text)) {
        // Digits only: "1e2" and "2.0" are not how a count is written.
        if (item.empty() || item.find_first_not_of("0123456789") != std::string_view::npos)
            throw InputError("not a whole number");
        const Amount a = parse_amount(item, "", false);
        if (a.seconds > 0 || a.count > max) throw InputError("out of range");
        out.push_back(static_cast<unsigned>(a.count));
    }
    return unique(out);
}

template <class E, std::size_t N>
E named(const Named<E> (&table)[N], std::string_view text) {
    if (const auto v = value_of(table, text)) return *v;
    throw InputError("unknown name");
}

bool truth(std::string_view text) { return named(kBooleans, text); }

using Kind = Setting::Kind;
using P = PlanRequest;
using O = RunOptions;

// The table. Each row's expected text is what the error shows after "expected".
constexpr Setting kSettings[] = {
    {"size", "File size(s): 64M, 1.5G; lists 1M,64M and ranges 4K..1M",
     "sizes of at least 1 byte such as 64M, 1M,64M or 4K..1M (binary units: 1K = 1024)", Kind::list,
     [](std::string_view v, P& p, O&) { p.sizes = sizes(v); }},
    {"buffer", "Buffer size(s) for strategies that take one",
     "buffer sizes of at least 1 byte such as 64K, 4K,1M or 4K..1M", Kind::list,
     [](std::string_view v, P& p, O&) {
         const auto s = sizes(v);
         p.buffers.assign(s.begin(), s.end());
     }},
    {"record", "Record size(s) for writes", "record sizes of at least 1 byte such as 1K or 100,4K", Kind::list,
     [](std::string_view v, P& p, O&) {
         const auto s = sizes(v);
         p.records.assign(s.begin(), s.end());
     }},
    {"count", "Records per written file (default: size / record)", "a number of records, 1 or more", Kind::one,
     [](std::string_view v, P& p, O&) {
         const Amount a = parse_amount(v, "", false);
         if (a.seconds > 0) throw InputError("a time");
         p.count = a.count;
     }},
    {"byte_slice", "Byte-at-a-time strategies run on this much (default 1M; 0: all)", "a size such as 1M, or 0 for all",
     Kind::one, [](std::string_view v, P& p, O&) { p.byte_slice = byte_slice_from(parse_size(v)); }},
    {"data", "random, text, zeros or compressible:R", "random, text, zeros or compressible:R with 1 <= R <= 4096",
     Kind::one, [](std::string_view v, P& p, O&) { p.data = parse_data_spec(v); }},
    {"queue", "Queue depth(s): io_uring entries, pipelined buffers (default 8)",
     "whole numbers from 1 to 4096 such as 8 or 1,4,16", Kind::list,
     [](std::string_view v, P& p, O&) { p.queues = whole_numbers(v, kMaxQueue); }},
    {"jobs", "Workers running each case at once, each on its own file (default 1; a list sweeps)",
     "whole numbers from 1 to 256 such as 4 or 1,2,4,8", Kind::list,
     [](std::string_view v, P& p, O&) { p.jobs = whole_numbers(v, kMaxJobs); }},
    {"iov", "Buffers or records per readv/writev call (default 16)", "whole numbers from 1 to 1024 such as 16 or 4,64",
     Kind::list, [](std::string_view v, P& p, O&) { p.iovs = whole_numbers(v, kMaxIov); }},
    {"chain", "write.chain layers, outermost first: buffer:64K>deflate:6>file", "", Kind::list,
     [](std::string_view v, P& p, O&) {
         p.chains.clear();
         for (auto c : items(v)) {
             std::string canonical;  // one written form: deflate is deflate:6, buffer:8192 is buffer:8K
             try {
                 canonical = describe(parse_chain(std::string(c)));
             } catch (const ChainError& e) {
                 throw InputError(e.why());  // apply_setting names the setting and the value
             }
             if (std::find(p.chains.begin(), p.chains.end(), canonical) == p.chains.end())
                 p.chains.push_back(canonical);
         }
     }},
    {"feed", "write.chain input: record (default) or byte, or both: byte,record", "record, byte or byte,record",
     Kind::list,
     [](std::string_view v, P& p, O&) {
         p.feeds.clear();
         for (auto f : items(v)) p.feeds.push_back(named(kFeeds, f));
         p.feeds = unique(p.feeds);
     }},
    {"pattern", "Patterned strategies (*-ops): sequential, random or strided:STRIDE (a list sweeps)",
     "sequential, random or strided:SIZE such as strided:1M, or a list of them", Kind::list,
     [](std::string_view v, P& p, O&) {
         std::vector<Pattern> out;
         for (auto item : items(v)) out.push_back(parse_pattern(item));
         p.patterns_of_ops = unique(out);
     }},
    {"block", "Patterned strategies: bytes of one operation (default 4K; a list sweeps)",
     "block sizes of at least 1 byte such as 4K or 4K,64K", Kind::list,
     [](std::string_view v, P& p, O&) {
         const auto s = sizes(v);
         p.blocks.assign(s.begin(), s.end());
     }},
    {"ops", "Patterned strategies: operations per job (default: one pass over the span)",
     "a whole number of operations from 1 to 10^15", Kind::one,
     [](std::string_view v, P& p, O&) {
         if (v.empty() || v.find_first_not_of("0123456789") != std::string_view::npos || v.size() > 16)
             throw InputError("not a whole number");
         p.ops = std::stoull(std::string(v));
         if (p.ops == 0 || p.ops > 1'000'000'000'000'000ull) throw InputError("out of range");
     }},
    {"span", "Patterned strategies: the operations fall in the file's first SPAN bytes (default: all of it)",
     "a size of at least 1 byte such as 1G", Kind::one,
     [](std::string_view v, P& p, O&) {
         p.span = parse_size(v);
         if (p.span == 0) throw InputError("zero");
     }},
    {"seed", "Patterned strategies: the seed of the random order (runs with one seed do the same operations)",
     "a whole number from 0 to 18446744073709551615 such as 42", Kind::one,
     [](std::string_view v, P& p, O&) {
         const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), p.seed);
         if (v.empty() || ec != std::errc() || end != v.data() + v.size()) throw InputError("not a whole number");
     }},
    {"warmup", "Warm-up iterations (N) or time (2s)",
     "a count (0 or more) or a time such as 2s or 500ms, at most 86400s", Kind::one,
     [](std::string_view v, P&, O& o) { o.warmup = parse_amount(v, "", true); }},
    {"iterations", "Measured iterations: auto (default: until --precision or --budget), N, or a target time (2s)",
     "auto, a count from 1 to 10000 or a time such as 2s or 500ms, at most 86400s", Kind::one,
     [](std::string_view v, P&, O& o) {
         o.iterations = parse_amount(v, "", false, true);
         if (o.iterations.count > o.max_iterations) throw InputError("too many");
     }},
    {"precision",
     "With iterations auto: measure every case until its median's 95% interval is within this (default: race, "
     "below)",
     "a relative precision above 0 and at most 1, such as 3% or 0.03", Kind::one,
     [](std::string_view v, P&, O& o) {
         o.precision = parse_precision(v, "");
         o.race = false;
     }},
    {"budget", "With iterations auto: measure every case until --precision or this much time (default 1.5s)",
     "a time such as 1s or 500ms, at most 86400s", Kind::one,
     [](std::string_view v, P&, O& o) {
         o.budget_s = parse_budget(v, "");
         o.race = false;
     }},
    {"time_budget",
     "With iterations auto: the whole run's time, shared by racing: only cases still in doubt are measured again "
     "(default 60s, or 3s a case for fewer cases)",
     "a time such as 60s, 90s or 5m, at most 86400s", Kind::one,
     [](std::string_view v, P&, O& o) { o.time_budget_s = parse_budget(v, ""); }},
    {"verify",
     "sampled (default): measured reads check a fingerprint of every page; full: hash every byte inside the clock",
     "sampled or full", Kind::one, [](std::string_view v, P&, O& o) { o.verify = named(kVerifyModes, v); }},
    {"forks", "Run each case in N child processes and pool their samples", "a whole number from 0 to 64", Kind::one,
     [](std::string_view v, P&, O& o) {
         const Amount a = parse_amount(v, "", true);
         if (a.seconds > 0 || a.count > 64) throw InputError("out of range");
         o.forks = static_cast<unsigned>(a.count);
     }},
    {"cache", "warm, cold or direct", "warm, cold or direct", Kind::one,
     [](std::string_view v, P&, O& o) { o.cache = named(kCacheModes, v); }},
    {"drop_caches", "With cache cold, as root: also drop the kernel's caches", "true or false", Kind::flag,
     [](std::string_view v, P&, O& o) { o.drop_caches = truth(v); }},
    {"sync", "none, fsync or fdatasync: durability inside the timed part", "none, fsync or fdatasync", Kind::one,
     [](std::string_view v, P&, O& o) { o.sync = named(kSyncPolicies, v); }},
    {"throttle", "A simulated slow device on the write side: RATE (1MiB/s), or RATE+LATENCY per write (840000/s+45ms)",
     "a rate of at least 1 B/s such as 1MiB/s, optionally with a latency per write: 840000/s+45ms", Kind::one,
     [](std::string_view v, P&, O& o) { o.throttle = parse_device(v); }},
    {"timeline", "Record the read and write events of copies that can (the last iteration)", "true or false",
     Kind::flag, [](std::string_view v, P&, O& o) { o.timeline = truth(v); }},
    {"stonewall", "With --jobs: stop every job when the first ends, and count the bytes each did", "true or false",
     Kind::flag, [](std::string_view v, P&, O& o) { o.stonewall = truth(v); }},
    {"cache_budget",
     "A page cache of this size for the run: each group runs in a memory cgroup of its own (0: the machine's)",
     "a size such as 256M, or 0 for the machine's whole cache", Kind::one,
     [](std::string_view v, P&, O& o) { o.cache_budget = parse_size(v); }},
    {"shared_file", "With --jobs: one file for all jobs, each on its own part of it (instead of a file each)",
     "true or false", Kind::flag, [](std::string_view v, P&, O& o) { o.shared_file = truth(v); }},
};

}  // namespace

std::span<const Setting> settings() { return kSettings; }

const Setting* find_setting(std::string_view key) { return find_by_key<Setting>(kSettings, key); }

std::string setting_name(std::string_view key, Syntax syntax) {
    if (syntax == Syntax::suite) return std::string(key);
    std::string name = "--" + std::string(key);
    std::replace(name.begin(), name.end(), '_', '-');
    return name;
}

void apply_setting(const Setting& s, std::string_view value, Syntax syntax, PlanRequest& plan, RunOptions& options) {
    try {
        s.apply(value, plan, options);
    } catch (const InputError& e) {
        // A chain says which layer is wrong; in a list, the first item that is wrong is named.
        std::string detail = s.expected.empty() ? std::string(e.what()) : "expected " + std::string(s.expected);
        if (s.kind == Setting::Kind::list && value.find(',') != std::string_view::npos) {
            for (const std::string_view item : split_items(value)) {
                PlanRequest p = plan;
                RunOptions o = options;
                try {
                    s.apply(item, p, o);
                } catch (const InputError& bad) {
                    const std::string why = s.expected.empty() ? std::string(bad.what()) : detail;
                    detail = item.empty() ? (s.expected.empty() ? why : "an empty item; " + why)
                                          : fmt::format("'{}' is wrong; {}", item, why);
                    break;
                }
            }
        }
        throw InputError(one_line(fmt::format("invalid {} '{}': {}", setting_name(s.key, syntax), value, detail)));
    }
}

void check_settings(const PlanRequest& plan, const RunOptions& options, Syntax syntax) {
    // A budget the machine cannot give limits nothing, and a report would claim it.
    if (const std::uint64_t memory = sys::memory_total(); memory > 0 && options.cache_budget > memory) {
        // In bytes where the short forms would read the same.
        const bool close = format_size(options.cache_budget) == format_size(memory);
        const auto size = [&](std::uint64_t b) { return close ? fmt::format("{} bytes", b) : format_size(b); };
        throw InputError(
            fmt::format("invalid {} {}: more than this machine's memory, {}; expected at most {}, or 0 "
                        "for the machine's whole cache",
                        setting_name("cache_budget", syntax), size(options.cache_budget), size(memory), size(memory)));
    }
    if (options.drop_caches && options.cache != CacheMode::cold)
        throw InputError(
            fmt::format("{} needs {} cold", setting_name("drop_caches", syntax), setting_name("cache", syntax)));
    // Jobs read a user's file together: after the first, it is in the cache.
    if (!plan.input.empty() && options.cache == CacheMode::cold &&
        std::any_of(plan.jobs.begin(), plan.jobs.end(), [](unsigned j) { return j > 1; }))
        throw InputError(
            fmt::format("{} above 1 with --input and {} cold: every job would read the one file, so "
                        "only the first would start cold; run one job, or generated files",
                        setting_name("jobs", syntax), setting_name("cache", syntax)));
    if (options.shared_file && !plan.input.empty())
        throw InputError(
            fmt::format("{} with --input: the jobs' shared file is one iolab makes, with a part for each "
                        "job; read a file of your own with file per job",
                        setting_name("shared_file", syntax)));
    // Zeros make every part alike: a job on another part than its own would verify.
    if (options.shared_file && plan.data.kind == DataKind::zeros)
        throw InputError(
            fmt::format("{} with {} zeros: every part of the shared file would hold the same bytes, so "
                        "a job on the wrong part would still verify; use random, text or compressible",
                        setting_name("shared_file", syntax), setting_name("data", syntax)));
    // A stopped job's bytes are counted from its own output file, which a shared file is not.
    if (options.shared_file && options.stonewall)
        throw InputError(
            fmt::format("{} with {}: a stopped job's bytes are counted from its own output file, and "
                        "with a shared file the jobs have none of their own",
                        setting_name("shared_file", syntax), setting_name("stonewall", syntax)));
}

}  // namespace iolab
