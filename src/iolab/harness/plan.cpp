#include "iolab/harness/plan.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "iolab/chain/chain.hpp"
#include "iolab/core/records.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/strategies/kind.hpp"

namespace iolab {

std::vector<const Strategy*> chosen_strategies(const std::vector<std::string>& patterns, const Registry& registry) {
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

namespace {

// What tells two cases apart: the strategy and every parameter.
std::string case_key(const CaseSpec& c) {
    std::string key = c.strategy->name;
    for (const auto& [k, v] : c.params()) key += fmt::format("\n{}={}", k, v);
    return key;
}

// What --input allows: only reads and copies, and no byte loop over a whole large file.
void check_input(const PlanRequest& req, const std::vector<const Strategy*>& strategies) {
    if (req.input.empty()) return;
    for (const Strategy* s : strategies) {
        if (!has_trait(s->family, kTraitFileInput))
            throw InputError(
                fmt::format("with --input only read and copy strategies run (the input is never written); {} is a "
                            "{} strategy",
                            s->name, to_string(s->family)));
        if (s->byte_at_a_time() && req.sizes.front() > req.byte_slice)
            throw InputError(fmt::format(
                "{} makes one call per byte and would read all {} of --input '{}'; choose strategies that read in "
                "blocks",
                s->name, format_size(req.sizes.front()), req.input));
    }
}

// The rules between parameters: a buffer no larger than the file, a span no larger than the file,
// a block and a stride that fit the span.
void check_fit(const PlanRequest& req, const std::vector<const Strategy*>& strategies) {
    const auto any = [&](Param p) {
        return std::any_of(strategies.begin(), strategies.end(), [&](const Strategy* s) { return s->honours(p); });
    };
    // Only a strategy that takes a buffer is held to it: the default buffer never refuses a small
    // file to one that does not. (An existing --input may be small: a larger buffer reads it in
    // one call.)
    if (any(kParamBuffer) && req.input.empty())
        for (auto size : req.sizes)
            for (auto b : req.buffers)
                if (b > size)
                    throw InputError(
                        fmt::format("buffer {} is larger than the {} file: expected a buffer no larger than the size",
                                    format_compact(b), format_compact(size)));
    if (!any(kParamPattern)) return;
    // With --input, sizes holds the user's file's size: held to the same.
    const std::string file = req.input.empty() ? "" : " '" + req.input + "'";
    for (auto size : req.sizes) {
        const std::uint64_t span = req.span ? req.span : size;
        if (span > size)
            throw InputError(
                fmt::format("span {} is larger than the {} file{}: expected a span no larger than the size",
                            format_compact(span), format_compact(size), file));
        const std::uint64_t room = std::min(span, size);
        for (auto b : req.blocks)
            if (b > room)
                throw InputError(
                    fmt::format("block {} is larger than the {} span: expected a block no larger than the span",
                                format_compact(b), format_compact(room)));
        for (const Pattern& p : req.access_patterns)
            if (p.kind == PatternKind::strided && p.stride >= room)
                throw InputError(fmt::format(
                    "stride {} is not smaller than the {} span: expected a stride that leaves room for two blocks",
                    format_compact(p.stride), format_compact(room)));
    }
}

// A crossed case made whole: a write's count, a patterned case's operations, a byte loop's slice.
void finish_case(CaseSpec& c, const PlanRequest& req) {
    const Strategy& s = *c.strategy;
    Workload& w = c.workload;
    if (w.patterned) checked_product(w.block, "block", w.op_count(), "ops", kMaxCaseBytes, "the limit of one case");
    if (s.honours(kParamRecordSize)) {
        RecordValues& r = w.records_of();
        r.count = req.count ? *req.count : std::max<std::uint64_t>(1, w.size / r.record);
        w.size = checked_product(r.record, "record", r.count, "count", kMaxCaseBytes, "the limit of one case");
    }
    if (s.byte_at_a_time() && w.bytes() > req.byte_slice && req.input.empty()) {
        const std::uint64_t full = w.bytes();
        if (auto* r = w.values_if<RecordValues>()) {
            r->count = std::max<std::uint64_t>(1, req.byte_slice / r->record);
            w.size = r->record * r->count;
        } else {
            w.size = req.byte_slice;
        }
        c.full_bytes = full;
    }
}

}  // namespace

std::vector<CaseSpec> build_plan(const PlanRequest& req, const Registry& registry) {
    const auto strategies = chosen_strategies(req.strategies, registry);
    check_input(req, strategies);
    check_fit(req, strategies);
    std::vector<CaseSpec> plan;
    std::set<std::string> seen;
    for (const Strategy* s : strategies)
        for (CaseSpec& c : cross(*s, req)) {
            finish_case(c, req);
            // Lists that name one case twice (4K,4096; a size a count overrides) make it once.
            if (!seen.insert(case_key(c)).second) continue;
            plan.push_back(std::move(c));
            if (plan.size() > kMaxCases)
                throw InputError(fmt::format(
                    "the parameter lists make more than {} cases; narrow --strategy or the lists", kMaxCases));
        }
    return plan;
}

std::uint64_t memory_needed(const CaseSpec& c) {
    const Strategy& s = *c.strategy;
    const Workload& w = c.workload;
    std::uint64_t buffers = s.honours(kParamBuffer) ? w.buffer : 64 * 1024;
    if (s.honours(kParamChain))
        for (const LayerSpec& l : parse_chain(w.records_of().chain))
            if (l.kind == LayerSpec::Kind::buffer) buffers = saturating_add(buffers, l.size);
    // A patterned case holds a block per operation in flight, and one more for its reference.
    if (w.patterned) buffers = w.block;
    if (s.honours(kParamQueue)) buffers = saturating_mul(buffers, w.queue);
    if (w.patterned) buffers = saturating_add(buffers, w.block);
    if (s.honours(kParamIov) && s.family == Family::read) buffers *= w.iov;
    // What the kind makes in memory (a write's records); a compressed chain's output is decoded whole
    // to be verified.
    const KindModule& k = kind_module(s.family);
    std::uint64_t data = k.memory ? k.memory(w) : 0;
    if (s.honours(kParamChain)) data = saturating_add(data, saturating_mul(w.bytes(), 2));
    // Jobs share a write's records (read only) but each has its own buffers.
    return saturating_add(saturating_mul(buffers, w.jobs), data);
}

std::uint64_t samples_per_case(const std::vector<std::vector<CaseSpec>>& plan, unsigned ranks,
                               std::uint64_t max_iterations) {
    std::uint64_t sixteenths = 0;  // what one sample of every case weighs
    for (const auto& cases : plan)
        for (const auto& c : cases)
            sixteenths += 16 + (c.workload.jobs > 1 ? c.workload.jobs : 0) + (ranks > 1 ? ranks : 0);
    if (sixteenths == 0) return max_iterations;
    return std::min(max_iterations, kMaxRunSamples * 16 / sixteenths);
}

std::uint64_t syncs_per_job(const Strategy& s, const Workload& w) {
    const KindModule& k = kind_module(w.family);
    return k.syncs ? k.syncs(s, w) : 0;
}

std::uint64_t syncs_per_iteration(const CaseSpec& c) {
    return c.strategy ? saturating_mul(c.workload.jobs, syncs_per_job(*c.strategy, c.workload)) : 0;
}

std::uint64_t descriptors_needed(const CaseSpec& c) {
    const Workload& w = c.workload;
    // What the kind's module holds open (files in flight).
    const std::uint64_t open = c.strategy ? kind_module(w.family).descriptors(*c.strategy, w) : w.queue;
    // Besides: the tree's root (or the file and its output), and a few of the strategy's own.
    return saturating_mul(w.jobs, saturating_add(open, 8));
}

namespace {

// The cases of a group share their inputs (one of each name a job) and keep one output per job at
// a time: the sum of one measure of the inputs, and the largest of the outputs.
std::uint64_t scratch_of(const std::vector<CaseSpec>& plan, std::uint64_t KindSpace::*input,
                         std::uint64_t KindSpace::*output) {
    std::set<std::pair<std::string, unsigned>> inputs;
    std::uint64_t in = 0, out = 0;
    for (const auto& c : plan) {
        const Workload& w = c.workload;
        const KindSpace need = kind_module(w.family).space(w);
        out = std::max(out, saturating_mul(need.*output, w.jobs));
        if (need.input.empty()) continue;
        for (unsigned j = 0; j < w.jobs; ++j)
            if (inputs.emplace(need.input, j).second) in = saturating_add(in, need.*input);
    }
    return saturating_add(in, out);
}

}  // namespace

std::uint64_t scratch_inodes_needed(const std::vector<CaseSpec>& plan) {
    return scratch_of(plan, &KindSpace::input_inodes, &KindSpace::output_inodes);
}

std::uint64_t scratch_needed(const std::vector<CaseSpec>& plan) {
    return scratch_of(plan, &KindSpace::input_bytes, &KindSpace::output_bytes);
}

}  // namespace iolab
