#include "iolab/harness/params.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "iolab/chain/chain.hpp"
#include "iolab/core/names.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/param_values.hpp"
#include "iolab/sys/reserve.hpp"

namespace iolab {

namespace {

using detail::chains;
using detail::items;
using detail::named;
using detail::names_in;
using detail::sizes;
using detail::sizes_as;
using detail::truth;
using detail::unique;
using detail::whole64;
using detail::whole_numbers;

std::string yes(bool b) { return b ? "true" : "false"; }

using Kind = Parameter::Kind;
using P = PlanRequest;
using O = RunOptions;
using C = CaseSpec;
using V = std::string_view;

// The number of values a plan gives a list parameter.
using detail::count;
// A parameter the strategy takes only: a case of another keeps the workload's default.
bool takes(const C& c, unsigned param) { return c.strategy && c.strategy->honours(static_cast<Param>(param)); }

// The table, one row a parameter: the case parameters in the order of labels and table columns,
// then the settings of the plan and of the run. Each row's expected text is what an error shows
// after "expected".
constexpr Parameter kParameters[] = {
    {.key = "buffer",
     .help = "Buffer size(s) for strategies that take one",
     .expected = "buffer sizes from 1 byte to 1G such as 64K, 4K,1M or 4K..1M",
     .kind = Kind::list,
     .takes = kParamBuffer,
     .apply = [](V v, P& p, O&) { p.buffers = sizes_as<std::size_t>(v, kMaxBuffer); },
     .in_label = true,
     .values = count<&P::buffers>,
     .take = [](const P& p, std::size_t i, C& c) { c.workload.buffer = p.buffers[i]; },
     .print_case = [](const C& c) { return format_compact(c.workload.buffer); }},
    {.key = "record",
     .help = "Record size(s) for writes",
     .expected = "record sizes from 1 byte to 1G such as 1K or 100,4K",
     .kind = Kind::list,
     .takes = kParamRecordSize,
     .apply = [](V v, P& p, O&) { p.records = sizes_as<std::size_t>(v, kMaxBuffer); },
     .in_label = true,
     .values = count<&P::records>,
     .take =
         [](const P& p, std::size_t i, C& c) {
             if (auto* r = c.workload.values_if<RecordValues>()) r->record = p.records[i];
         },
     .print_case = [](const C& c) { return format_compact(c.workload.records_of().record); }},
    {.key = "queue",
     .help = "Queue depth(s): io_uring entries, pipelined buffers (default 8)",
     .expected = "whole numbers from 1 to 4096 such as 8 or 1,4,16",
     .kind = Kind::list,
     .takes = kParamQueue,
     .apply = [](V v, P& p, O&) { p.queues = whole_numbers(v, kMaxQueue); },
     .in_label = true,
     .values = count<&P::queues>,
     .take = [](const P& p, std::size_t i, C& c) { c.workload.queue = p.queues[i]; },
     .print_case = [](const C& c) { return std::to_string(c.workload.queue); }},
    {.key = "iov",
     .help = "Buffers or records per readv/writev call (default 16)",
     .expected = "whole numbers from 1 to 1024 such as 16 or 4,64",
     .kind = Kind::list,
     .takes = kParamIov,
     .apply = [](V v, P& p, O&) { p.iovs = whole_numbers(v, kMaxIov); },
     .in_label = true,
     .values = count<&P::iovs>,
     .take = [](const P& p, std::size_t i, C& c) { c.workload.iov = p.iovs[i]; },
     .print_case = [](const C& c) { return std::to_string(c.workload.iov); }},
    {.key = "chain",
     .help = "write.chain layers, outermost first: buffer:64K>deflate:6>file",
     .expected = "",
     .kind = Kind::list,
     .takes = kParamChain,
     .apply = [](V v, P& p, O&) { p.chains = chains(v); },
     .in_label = true,
     .values = count<&P::chains>,
     .take =
         [](const P& p, std::size_t i, C& c) {
             if (auto* r = c.workload.values_if<RecordValues>(); r && takes(c, kParamChain))
                 r->chain = describe(parse_chain(p.chains[i]));
         },
     .print_case = [](const C& c) { return c.workload.records_of().chain; }},
    {.key = "feed",
     .help = "write.chain input: record (default) or byte, or both: byte,record",
     .expected = "record, byte or byte,record",
     .kind = Kind::list,
     .takes = kParamFeed,
     .apply = [](V v, P& p, O&) { p.feeds = names_in(kFeeds, v); },
     .in_label = true,
     .values = count<&P::feeds>,
     .take =
         [](const P& p, std::size_t i, C& c) {
             if (auto* r = c.workload.values_if<RecordValues>(); r && takes(c, kParamFeed)) r->feed_bytes = p.feeds[i];
         },
     .print_case = [](const C& c) { return std::string(name_of(kFeeds, c.workload.records_of().feed_bytes)); }},
    {.key = "pattern",
     .help = "Patterned strategies (*-ops): sequential, random or strided:STRIDE (a list sweeps)",
     .expected = "sequential, random or strided:SIZE such as strided:1M, or a list of them",
     .kind = Kind::list,
     .takes = kParamPattern,
     .apply =
         [](V v, P& p, O&) {
             std::vector<Pattern> out;
             for (auto item : items(v)) out.push_back(parse_pattern(item));
             p.access_patterns = unique(out);
         },
     .in_label = true,
     .values = count<&P::access_patterns>,
     .take =
         [](const P& p, std::size_t i, C& c) {
             if (!takes(c, kParamPattern)) return;
             c.workload.patterned = true;
             c.workload.pattern = p.access_patterns[i];
         },
     .print_case = [](const C& c) { return to_string(c.workload.pattern); }},
    {.key = "block",
     .help = "Patterned strategies: bytes of one operation (default 4K; a list sweeps)",
     .expected = "block sizes from 1 byte to 1G such as 4K or 4K,64K",
     .kind = Kind::list,
     .takes = kParamPattern,
     .apply = [](V v, P& p, O&) { p.blocks = sizes_as<std::size_t>(v, kMaxBuffer); },
     .in_label = true,
     .values = count<&P::blocks>,
     .take =
         [](const P& p, std::size_t i, C& c) {
             if (takes(c, kParamPattern)) c.workload.block = p.blocks[i];
         },
     .print_case = [](const C& c) { return format_compact(c.workload.block); }},
    {.key = "ops",
     .help = "Patterned strategies: operations per job (default: one pass over the span)",
     .expected = "a whole number of operations from 1 to 10^15",
     .takes = kParamPattern,
     .apply =
         [](V v, P& p, O&) {
             p.ops = whole64(v);
             if (p.ops == 0 || p.ops > 1'000'000'000'000'000ull) throw InputError("out of range");
         },
     .take =
         [](const P& p, std::size_t, C& c) {
             if (takes(c, kParamPattern)) c.workload.ops = p.ops;
         },
     .print_case = [](const C& c) { return std::to_string(c.workload.op_count()); }},
    {.key = "span",
     .help = "Patterned strategies: the operations fall in the file's first SPAN bytes (default: all of it)",
     .expected = "a size of at least 1 byte such as 1G",
     .takes = kParamPattern,
     .apply =
         [](V v, P& p, O&) {
             p.span = parse_size(v);
             if (p.span == 0) throw InputError("zero");
         },
     .take =
         [](const P& p, std::size_t, C& c) {
             if (takes(c, kParamPattern)) c.workload.span = p.span;
         },
     .print_case = [](const C& c) { return format_compact(c.workload.span_bytes()); }},
    {.key = "seed",
     .help = "Patterned strategies: the seed of the random order (runs with one seed do the same operations)",
     .expected = "a whole number from 0 to 18446744073709551615 such as 42",
     .takes = kParamPattern,
     .apply = [](V v, P& p, O&) { p.seed = whole64(v); },
     .take =
         [](const P& p, std::size_t, C& c) {
             if (takes(c, kParamPattern)) c.workload.seed = p.seed;
         },
     .print_case = [](const C& c) { return std::to_string(c.workload.seed); }},
    {.key = "count",
     .help = "Records per written file (default: size / record); files replaced in turn (replace, default 1000)",
     .expected = "a number of records or files, 1 or more",
     .takes = kParamCount,
     .apply =
         [](V v, P& p, O&) {
             const Amount a = parse_amount(v, "", false);
             if (a.seconds > 0) throw InputError("a time");
             p.count = a.count;
         },
     .take =
         [](const P& p, std::size_t, C& c) {
             if (p.count && takes(c, kParamCount)) *c.workload.item_count() = *p.count;  // records or files replaced
         },
     .print_case = [](const C& c) { return std::to_string(*c.workload.item_count()); }},
    // A write's size is its records: setting it sets the count (plan.cpp then applies count).
    {.key = "size",
     .help = "File size(s): 64M, 1.5G; lists 1M,64M and ranges 4K..1M",
     .expected = "sizes from 1 byte to 2^60 bytes such as 64M, 1M,64M or 4K..1M (binary units: 1K = 1024)",
     .kind = Kind::list,
     .apply = [](V v, P& p, O&) { p.sizes = sizes(v, kMaxCaseBytes); },
     .values = count<&P::sizes>,
     .take =
         [](const P& p, std::size_t i, C& c) {
             Workload& w = c.workload;
             w.size = p.sizes[i];
             if (auto* r = w.values_if<RecordValues>())
                 r->count = std::max<std::uint64_t>(1, w.size / std::max<std::size_t>(1, r->record));
         },
     .print_case = [](const C& c) { return format_compact(c.workload.file_bytes()); }},
    // Every case has its jobs (1 unless --jobs); a label names them past one.
    {.key = "jobs",
     .help = "Workers running each case at once, each on its own file (default 1; a list sweeps)",
     .expected = "whole numbers from 1 to 256 such as 4 or 1,2,4,8",
     .kind = Kind::list,
     .apply = [](V v, P& p, O&) { p.jobs = whole_numbers(v, kMaxJobs); },
     .in_label = true,
     .values = count<&P::jobs>,
     .take = [](const P& p, std::size_t i, C& c) { c.workload.jobs = p.jobs[i]; },
     .print_case = [](const C& c) { return std::to_string(c.workload.jobs); },
     .shown = [](const C& c) { return c.workload.jobs > 1; }},
    // What a byte-at-a-time case's slice stands for: worked out by the plan, not set.
    {.key = "slice_of",
     .help = "",
     .expected = "",
     .print_case = [](const C& c) { return format_compact(c.full_bytes); },
     .has_fn = [](const C& c) { return c.full_bytes > 0; },
     .set_fn =
         [](C& c, V v) {
             c.full_bytes = parse_size(v);
             if (c.full_bytes == 0) throw InputError(one_line(fmt::format("'{}' is not at least 1", v)));
         }},
    {.key = "data",
     .help = "random, text, zeros or compressible:R",
     .expected = "random, text, zeros or compressible:R with 1 <= R <= 4096",
     .apply = [](V v, P& p, O&) { p.data = parse_data_spec(v); },
     .take = [](const P& p, std::size_t, C& c) { c.workload.data = p.data; },
     .print_case = [](const C& c) { return to_string(c.workload.data); }},
    {.key = "byte_slice",
     .help = "Byte-at-a-time strategies run on this much (default 1M; 0: all)",
     .expected = "a size such as 1M, or 0 for all",
     .apply = [](V v, P& p, O&) { p.byte_slice = byte_slice_from(parse_size(v)); }},
    {.key = "warmup",
     .help = "Warm-up iterations (N) or time (2s)",
     .expected = "a count (0 or more) or a time such as 2s or 500ms, at most 86400s",
     .apply = [](V v, P&, O& o) { o.warmup = parse_amount(v, "", true); },
     .print = [](const O& o) { return o.warmup.describe(); },
     .json = JsonForm::text},
    {.key = "iterations",
     .help = "Measured iterations: auto (default: until --precision or --budget), N, or a target time (2s)",
     .expected = "auto, a count from 1 to 10000 or a time such as 2s or 500ms, at most 86400s",
     .apply =
         [](V v, P&, O& o) {
             o.iterations = parse_amount(v, "", false, true);
             if (o.iterations.count > o.max_iterations) throw InputError("too many");
         },
     .print = [](const O& o) { return o.iterations.describe(); },
     .json = JsonForm::text},
    {.key = "precision",
     .help = "With iterations auto: measure every case until its median's 95% interval is within this (default: "
             "race, below)",
     .expected = "a relative precision above 0 and at most 1, such as 3% or 0.03",
     .apply =
         [](V v, P&, O& o) {
             o.precision = parse_precision(v, "");
             o.race = false;
         },
     .print = [](const O& o) { return fmt::format("{}", o.precision); },
     .json = JsonForm::number},
    {.key = "budget",
     .help = "With iterations auto: measure every case until --precision or this much time (default 1.5s)",
     .expected = "a time such as 1s or 500ms, at most 86400s",
     .apply =
         [](V v, P&, O& o) {
             o.case_budget_s = parse_budget(v, "");
             o.race = false;
         },
     .print = [](const O& o) { return fmt::format("{}s", o.case_budget_s); },
     .json = JsonForm::seconds,
     .json_key = "budget_s"},
    {.key = "time_budget",
     .help = "With iterations auto: the whole run's time, shared by racing: only cases still in doubt are measured "
             "again (default 60s, or 3s a case for fewer cases)",
     .expected = "a time such as 60s, 90s or 5m, at most 86400s",
     .apply = [](V v, P&, O& o) { o.time_budget_s = parse_budget(v, ""); },
     .print = [](const O& o) { return o.time_budget_s > 0 ? fmt::format("{}s", o.time_budget_s) : std::string(); },
     .json = JsonForm::seconds,
     .json_key = "time_budget_s"},
    {.key = "margin",
     .help = "Racing and answers: a case leaves the winner group only when another is faster by more than this, "
             "with the interval of their comparison wholly beyond it (default 10%)",
     .expected = "a margin from 0 to 1, such as 10% or 0.1",
     .apply = [](V v, P&, O& o) { o.margin = parse_margin(v, ""); },
     .print = [](const O& o) { return fmt::format("{}", o.margin); },
     .json = JsonForm::number},
    {.key = "verify",
     .help =
         "sampled (default): measured reads check a fingerprint of every page; full: hash every byte inside the clock",
     .expected = "sampled or full",
     .apply = [](V v, P&, O& o) { o.verify = named(kVerifyModes, v); },
     .print = [](const O& o) { return std::string(to_string(o.verify)); },
     .json = JsonForm::text},
    {.key = "order_seed",
     .help = "The seed of the order in which each round measures the cases (runs with one seed measure in the "
             "same order)",
     .expected = "a whole number from 0 to 18446744073709551615 such as 7",
     .apply = [](V v, P&, O& o) { o.order_seed = whole64(v); },
     .print = [](const O& o) { return std::to_string(o.order_seed); },
     .json = JsonForm::number},
    {.key = "forks",
     .help = "Run each case in N child processes and pool their samples",
     .expected = "a whole number from 0 to 64",
     .apply =
         [](V v, P&, O& o) {
             const Amount a = parse_amount(v, "", true);
             if (a.seconds > 0 || a.count > 64) throw InputError("out of range");
             o.forks = static_cast<unsigned>(a.count);
         },
     .print = [](const O& o) { return std::to_string(o.forks); },
     .json = JsonForm::number},
    {.key = "cache",
     .help = "warm, cold or direct",
     .expected = "warm, cold or direct",
     .apply = [](V v, P&, O& o) { o.cache = named(kCacheModes, v); },
     .print = [](const O& o) { return std::string(to_string(o.cache)); },
     .json = JsonForm::text},
    {.key = "drop_caches",
     .help = "With cache cold, as root: also drop the kernel's caches",
     .expected = "true or false",
     .kind = Kind::flag,
     .apply = [](V v, P&, O& o) { o.drop_caches = truth(v); },
     .print = [](const O& o) { return yes(o.drop_caches); },
     .json = JsonForm::flag},
    {.key = "sync",
     .help = "none, fsync or fdatasync: durability inside the timed part",
     .expected = "none, fsync or fdatasync",
     .apply = [](V v, P&, O& o) { o.sync = named(kSyncPolicies, v); },
     .print = [](const O& o) { return std::string(to_string(o.sync)); },
     .json = JsonForm::text},
    {.key = "throttle",
     .help = "A simulated slow device on the write side: RATE (1MiB/s), or RATE+LATENCY per write (840000/s+45ms)",
     .expected = "a rate from 1 B/s to 1PiB/s such as 1MiB/s, optionally with a latency per write: 840000/s+45ms",
     .apply = [](V v, P&, O& o) { o.throttle = parse_device(v); },
     .print =
         [](const O& o) {
             const Device& d = o.throttle;
             if (!d.active()) return std::string();
             return fmt::format("{}/s", d.bytes_per_s) + (d.latency_s > 0 ? fmt::format("+{}s", d.latency_s) : "");
         },
     .json = JsonForm::device,
     .json_key = "throttle"},
    {.key = "timeline",
     .help = "Record the read and write events of copies that can (the last iteration)",
     .expected = "true or false",
     .kind = Kind::flag,
     .apply = [](V v, P&, O& o) { o.timeline = truth(v); },
     .print = [](const O& o) { return yes(o.timeline); },
     .json = JsonForm::flag},
    {.key = "stonewall",
     .help = "With --jobs: stop every job when the first ends, and count the bytes each did",
     .expected = "true or false",
     .kind = Kind::flag,
     .apply = [](V v, P&, O& o) { o.stonewall = truth(v); },
     .print = [](const O& o) { return yes(o.stonewall); },
     .json = JsonForm::flag},
    {.key = "cache_budget",
     .help = "A page cache of this size for the run: each group runs in a memory cgroup of its own (0: the machine's)",
     .expected = "a size such as 256M, or 0 for the machine's whole cache",
     .apply = [](V v, P&, O& o) { o.cache_budget = parse_size(v); },
     .print = [](const O& o) { return std::to_string(o.cache_budget); },
     .json = JsonForm::number,
     .json_key = "cache_budget_bytes"},
    {.key = "jvm_heap",
     .help = "The JVM worker's fixed heap (-Xms and -Xmx) for the jvm.* strategies (default 1G)",
     .expected = "a size from 128M to 64G such as 1G",
     .takes = kParamJvm,
     .apply =
         [](V v, P&, O& o) {
             o.jvm_heap = parse_size(v);
             if (o.jvm_heap < (128u << 20) || o.jvm_heap > (64ull << 30)) throw InputError("out of range");
         },
     .print = [](const O& o) { return std::to_string(o.jvm_heap); },
     .json = JsonForm::number,
     .json_key = "jvm_heap_bytes"},
    {.key = "jvm_deadline",
     .help = "How long one JVM request may take before the worker is ended and the case failed (default 300s)",
     .expected = "a time such as 30s or 5m, at most 86400s",
     .takes = kParamJvm,
     .apply = [](V v, P&, O& o) { o.jvm_deadline_s = parse_budget(v, ""); },
     .print = [](const O& o) { return fmt::format("{}s", o.jvm_deadline_s); },
     .json = JsonForm::seconds,
     .json_key = "jvm_deadline_s"},
    {.key = "shared_file",
     .help = "With --jobs: one file for all jobs, each on its own part of it (instead of a file each)",
     .expected = "true or false",
     .kind = Kind::flag,
     .apply = [](V v, P&, O& o) { o.shared_file = truth(v); },
     .print = [](const O& o) { return yes(o.shared_file); },
     .json = JsonForm::flag},
};

}  // namespace

std::span<const Parameter> parameters() {
    static const std::vector<Parameter> all = [] {
        std::vector<Parameter> rows(std::begin(kParameters), std::end(kParameters));
        std::vector<Parameter> kinds;
        for (const KindParam* k : kind_parameters())
            kinds.push_back({.key = k->key,
                             .help = k->help,
                             .expected = k->expected,
                             .kind = Kind::list,
                             .takes = k->takes,
                             .in_label = true,
                             .of_kind = k});
        const auto settings =
            std::find_if(rows.begin(), rows.end(), [](const Parameter& p) { return !p.case_param(); });
        rows.insert(settings, kinds.begin(), kinds.end());
        return rows;
    }();
    return all;
}

const Parameter* find_parameter(std::string_view key) { return find_by_key<Parameter>(parameters(), key); }

}  // namespace iolab
