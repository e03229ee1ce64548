// Suites once read: a run's time budget, several suites as one run, and the smoke run of one.
#include "iolab/suite/suite.hpp"

#include <algorithm>

#include "iolab/strategies/kind.hpp"

namespace iolab {

double time_budget(const Suite& suite, std::size_t cases) {
    double given = 0;
    for (const Group& g : suite.groups) given = std::max(given, g.options.time_budget_s);
    return given > 0 ? given : std::min(kDefaultTimeBudget, kDefaultTimePerCase * static_cast<double>(cases));
}

double time_budget(const Suite& suite) {
    std::size_t cases = 0;
    for (const Group& g : suite.groups) cases += build_plan(g.plan).size();
    return time_budget(suite, cases);
}

Suite combine(const std::vector<Suite>& suites, const std::string& name) {
    Suite all;
    all.name = name;
    all.description = "the published experiments, re-run here";
    double whole = 0;
    for (const auto& s : suites) {
        const auto prefixed = [&](const std::string& id) { return s.name + "/" + id; };
        // The suite's budget, over its groups by their cases (or the weights they had).
        const double budget = time_budget(s);
        whole += budget;
        std::vector<double> weights;
        for (const Group& g : s.groups)
            weights.push_back(g.weight > 0 ? g.weight : static_cast<double>(build_plan(g.plan).size()));
        double sum = 0;
        for (double w : weights) sum += w;
        for (std::size_t i = 0; i < s.groups.size(); ++i) {
            Group g = s.groups[i];
            g.title = s.name + ": " + g.title;
            g.id = prefixed(g.id);
            g.weight = sum > 0 ? budget * weights[i] / sum : 0;
            all.groups.push_back(std::move(g));
        }
        for (auto f : s.findings) {
            f.suite = s.name;
            f.faster.group = prefixed(f.faster.group);
            f.slower.group = prefixed(f.slower.group);
            all.findings.push_back(std::move(f));
        }
        for (auto k : s.knees) {
            k.suite = s.name;
            k.group = prefixed(k.group);
            all.knees.push_back(std::move(k));
        }
    }
    for (Group& g : all.groups) g.options.time_budget_s = whole;
    return all;
}

void make_smoke(Suite& suite) {
    for (auto& g : suite.groups) {
        // Small files, but large enough for the largest buffer and block, and a stride with a block
        // after it, so every case still exists; an input file keeps its size.
        std::size_t block = 0;
        for (const auto b : g.plan.blocks) block = std::max(block, b);
        std::uint64_t floor = std::max<std::uint64_t>(256 * 1024, block);
        for (const auto b : g.plan.buffers) floor = std::max<std::uint64_t>(floor, b);
        for (const auto& p : g.plan.access_patterns) floor = std::max(floor, p.stride + block);
        if (g.plan.input.empty())
            for (auto& s : g.plan.sizes) s = std::min(s, floor);
        if (g.plan.span) g.plan.span = std::min(g.plan.span, floor);
        for (auto& r : g.plan.records) r = std::min<std::size_t>(r, floor);
        if (g.plan.count) g.plan.count = std::min<std::uint64_t>(*g.plan.count, 16);
        // The kinds' parameters, as each says (trees of a few dozen small files).
        for (const KindParam* k : kind_parameters()) {
            const std::uint64_t most = k->size ? std::min(floor, k->smoke_max ? k->smoke_max : floor) : k->smoke_max;
            if (most == 0) continue;
            auto& values = g.plan.kind_values[std::string(k->key)];
            if (values.empty()) values = {default_of(*k)};
            for (auto& v : values) v = std::min(v, most);
        }
        // A byte slice the command line gives is kept (it may have to cover an --input).
        const auto& given = g.plan.given;
        if (std::find(given.begin(), given.end(), "byte_slice") == given.end())
            g.plan.byte_slice = std::min<std::uint64_t>(g.plan.byte_slice, 16 * 1024);
        // Patterned cases: a few hundred operations; no cache budget (a 256 KiB file fits any).
        if (g.plan.ops) g.plan.ops = std::min<std::uint64_t>(g.plan.ops, 256);
        g.options.cache_budget = 0;
        g.options.warmup = Amount{0, 0};
        g.options.iterations = Amount{1, 0};
        g.options.time_budget_s = 0;  // measured once: nothing to race
        // The device model 64x faster: every ratio of its times stays the same.
        g.options.throttle.bytes_per_s *= 64;
        g.options.throttle.latency_s /= 64;
    }
}

}  // namespace iolab
