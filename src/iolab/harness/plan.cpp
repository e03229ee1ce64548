#include "iolab/harness/plan.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "iolab/chain/chain.hpp"
#include "iolab/core/records.hpp"
#include "iolab/core/units.hpp"

namespace iolab {

namespace {

std::vector<const Strategy*> select(const std::vector<std::string>& patterns, const Registry& registry) {
    std::vector<const Strategy*> out;
    if (patterns.empty()) {
        for (const auto& s : registry.all()) out.push_back(&s);
        return out;
    }
    for (const auto& p : patterns) {
        const auto found = registry.match(p);
        if (found.empty()) {
            const bool glob = p.find_first_of("*?[") != std::string::npos;
            if (glob)
                throw InputError(
                    one_line(fmt::format("strategy pattern '{}' matches no strategy "
                                         "(see iolab list --names)",
                                         p)));
            throw InputError(one_line(
                fmt::format("unknown strategy '{}': did you mean {}?", p, fmt::join(registry.closest(p), ", "))));
        }
        for (const auto* s : found)
            if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
    return out;
}

// What tells two cases apart: the strategy and every parameter.
std::string case_key(const CaseSpec& c) {
    std::string key = c.strategy->name;
    for (const auto& [k, v] : c.params()) key += fmt::format("\n{}={}", k, v);
    return key;
}

}  // namespace

std::vector<CaseSpec> build_plan(const PlanRequest& req, const Registry& registry) {
    const auto strategies = select(req.patterns, registry);
    if (!req.input.empty())
        for (const Strategy* s : strategies) {
            if (s->family == Family::write)
                throw InputError(
                    fmt::format("with --input only read and copy strategies run (the input "
                                "is never written); {} is a write strategy",
                                s->name));
            if (s->byte_at_a_time() && req.sizes.front() > req.byte_slice)
                throw InputError(
                    fmt::format("{} makes one call per byte and would read all {} of --input "
                                "'{}'; choose strategies that read in blocks",
                                s->name, format_size(req.sizes.front()), req.input));
        }
    for (auto size : req.sizes)
        if (size > kMaxCaseBytes)
            throw InputError(fmt::format("size {} is more than {} bytes, the limit of one case", format_compact(size),
                                         format_compact(kMaxCaseBytes)));
    // Only a strategy that takes a buffer is held to it: the default buffer never refuses a small
    // file to one that does not. (An existing --input may be small: a larger buffer reads it in
    // one call.)
    const bool buffered =
        std::any_of(strategies.begin(), strategies.end(), [](const Strategy* s) { return s->honours(kParamBuffer); });
    for (auto size : req.sizes)
        for (auto b : req.buffers) {
            if (b == 0) throw InputError("invalid buffer '0': expected at least 1 byte");
            if (b > kMaxBuffer)
                throw InputError(
                    fmt::format("buffer {} is over the limit of {}", format_compact(b), format_compact(kMaxBuffer)));
            if (buffered && size > 0 && b > size && req.input.empty())
                throw InputError(
                    fmt::format("buffer {} is larger than the {} file: expected a buffer no larger than the size",
                                format_compact(b), format_compact(size)));
        }
    for (auto r : req.records) {
        if (r == 0) throw InputError("invalid record '0': expected at least 1 byte");
        if (r > kMaxBuffer)
            throw InputError(
                fmt::format("record {} is over the limit of {}", format_compact(r), format_compact(kMaxBuffer)));
    }
    for (auto b : req.blocks) {
        if (b > kMaxBuffer)
            throw InputError(
                fmt::format("block {} is over the limit of {}", format_compact(b), format_compact(kMaxBuffer)));
        const bool patterned = std::any_of(strategies.begin(), strategies.end(),
                                           [](const Strategy* s) { return s->honours(kParamPattern); });
        for (auto size : req.sizes) {
            const std::uint64_t span = req.span ? req.span : size;
            // With --input, sizes holds the user's file's size: held to the same.
            const std::string file = req.input.empty() ? "" : " '" + req.input + "'";
            if (patterned && span > size)
                throw InputError(
                    fmt::format("span {} is larger than the {} file{}: expected a span no larger than the size",
                                format_compact(span), format_compact(size), file));
            if (patterned && b > std::min(span, size))
                throw InputError(
                    fmt::format("block {} is larger than the {} span: expected a block no larger than the span",
                                format_compact(b), format_compact(std::min(span, size))));
            for (const Pattern& p : req.patterns_of_ops)
                if (patterned && p.kind == PatternKind::strided && p.stride >= std::min(span, size))
                    throw InputError(fmt::format(
                        "stride {} is not smaller than the {} span: expected a stride that leaves room for two blocks",
                        format_compact(p.stride), format_compact(std::min(span, size))));
        }
    }
    if (req.ops > kMaxCaseBytes)
        throw InputError(fmt::format("ops {} is more than {}, the limit of one case", req.ops, kMaxCaseBytes));
    for (auto q : req.queues)
        if (q == 0 || q > kMaxQueue)
            throw InputError(fmt::format("invalid queue depth '{}': expected 1 to {}", q, kMaxQueue));
    for (auto j : req.jobs)
        if (j == 0 || j > kMaxJobs) throw InputError(fmt::format("invalid jobs '{}': expected 1 to {}", j, kMaxJobs));
    for (auto v : req.iovs)
        if (v == 0 || v > kMaxIov)
            throw InputError(fmt::format("invalid vector length '{}': expected 1 to {}", v, kMaxIov));
    // Each chain checked and put in one written form, once.
    std::vector<std::string> canonical_chains;
    for (const auto& c : req.chains) canonical_chains.push_back(describe(parse_chain(c)));

    std::vector<CaseSpec> plan;
    std::set<std::string> seen;
    for (const Strategy* s : strategies) {
        const std::vector<std::size_t> buffers =
            s->honours(kParamBuffer) ? req.buffers : std::vector<std::size_t>{req.buffers.front()};
        const std::vector<std::size_t> records =
            s->honours(kParamRecord) ? req.records : std::vector<std::size_t>{req.records.front()};
        // A parameter the strategy does not honour takes its first value: no duplicate cases.
        const auto own = [&](Param p, const auto& values) {
            return s->honours(p) ? values : std::decay_t<decltype(values)>{values.front()};
        };
        const auto queues = own(kParamQueue, req.queues);
        const auto iovs = own(kParamIov, req.iovs);
        const auto chains = own(kParamChain, canonical_chains);
        const auto feeds = own(kParamFeed, req.feeds);
        const auto op_patterns = own(kParamPattern, req.patterns_of_ops);
        const auto blocks = own(kParamPattern, req.blocks);
        for (const Pattern& op_pattern : op_patterns)
            for (auto block : blocks)
                for (auto jobs : req.jobs)
                    for (auto size : req.sizes)
                        for (auto buffer : buffers)
                            for (auto record : records)
                                for (auto queue : queues)
                                    for (auto iov : iovs)
                                        for (const auto& chain : chains)
                                            for (bool feed : feeds) {
                                                CaseSpec c;
                                                c.strategy = s;
                                                Workload& w = c.workload;
                                                w.family = s->family;
                                                w.buffer = buffer;
                                                w.record = record;
                                                w.data = req.data;
                                                w.size = size;
                                                w.queue = queue;
                                                w.iov = iov;
                                                w.chain = chain;
                                                w.feed_bytes = feed;
                                                w.input = req.input;
                                                w.jobs = jobs;
                                                if (s->honours(kParamPattern)) {
                                                    w.patterned = true;
                                                    w.pattern = op_pattern;
                                                    w.block = block;
                                                    w.ops = req.ops;
                                                    w.span = req.span;
                                                    w.seed = req.seed;
                                                    checked_product(w.block, "block", w.op_count(), "ops",
                                                                    kMaxCaseBytes, "the limit of one case");
                                                }
                                                if (s->honours(kParamRecord)) {
                                                    w.count = req.count ? *req.count
                                                                        : std::max<std::uint64_t>(1, size / record);
                                                    w.size = checked_product(w.record, "record", w.count, "count",
                                                                             kMaxCaseBytes, "the limit of one case");
                                                }
                                                if (s->byte_at_a_time() && w.bytes() > req.byte_slice &&
                                                    req.input.empty()) {
                                                    const std::uint64_t full = w.bytes();
                                                    if (s->family == Family::write) {
                                                        w.count = std::max<std::uint64_t>(1, req.byte_slice / w.record);
                                                        w.size = w.record * w.count;
                                                    } else {
                                                        w.size = req.byte_slice;
                                                    }
                                                    c.full_bytes = full;
                                                }
                                                // Lists that name one case twice (4K,4096; a size a
                                                // count overrides) make it once.
                                                if (!seen.insert(case_key(c)).second) continue;
                                                plan.push_back(c);
                                                if (plan.size() > kMaxCases)
                                                    throw InputError(fmt::format(
                                                        "the parameter lists make more than {} cases; narrow "
                                                        "--strategy or the lists",
                                                        kMaxCases));
                                            }
    }
    return plan;
}

std::uint64_t memory_needed(const CaseSpec& c) {
    const Strategy& s = *c.strategy;
    const Workload& w = c.workload;
    std::uint64_t buffers = s.honours(kParamBuffer) ? w.buffer : 64 * 1024;
    if (s.honours(kParamChain))
        for (const LayerSpec& l : parse_chain(w.chain))
            if (l.kind == LayerSpec::Kind::buffer) buffers = saturating_add(buffers, l.size);
    // A patterned case holds a block per operation in flight, and one more for its reference.
    if (w.patterned) buffers = w.block;
    if (s.honours(kParamQueue)) buffers = saturating_mul(buffers, w.queue);
    if (w.patterned) buffers = saturating_add(buffers, w.block);
    if (s.honours(kParamIov) && s.family == Family::read) buffers *= w.iov;
    // A write's records come from a pool of one block and up to Records::kSpread bytes; a
    // compressed chain's output is decoded whole to be verified.
    std::uint64_t data = 0;
    const std::uint64_t unit = w.patterned ? w.block : w.record;
    if (s.family == Family::write)
        data = saturating_add(std::max<std::uint64_t>(unit, Records::kMinBlock) + unit,
                              std::min<std::uint64_t>(w.patterned ? w.span_bytes() : w.bytes(), Records::kSpread));
    if (s.honours(kParamChain)) data = saturating_add(data, saturating_mul(w.bytes(), 2));
    // Jobs share a write's records (read only) but each has its own buffers.
    return saturating_add(saturating_mul(buffers, w.jobs), data);
}

std::uint64_t scratch_needed(const std::vector<CaseSpec>& plan) {
    // The cases of a group share their inputs (one file per data kind, size and job) and keep
    // one output per job at a time.
    std::set<std::tuple<std::string, std::uint64_t, unsigned>> inputs;
    std::uint64_t in = 0, out = 0;
    for (const auto& c : plan) {
        // A patterned read's input is the whole file, not the bytes its operations read.
        const Workload& cw = c.workload;
        const std::uint64_t b = cw.family != Family::write ? cw.size : cw.patterned ? cw.span_bytes() : cw.bytes();
        if (c.workload.family != Family::read) out = std::max(out, saturating_mul(b, c.workload.jobs));
        if (c.workload.family == Family::write || !c.workload.input.empty()) continue;
        for (unsigned j = 0; j < c.workload.jobs; ++j)
            if (inputs.emplace(to_string(c.workload.data), b, j).second) in = saturating_add(in, b);
    }
    return saturating_add(in, out);
}

}  // namespace iolab
