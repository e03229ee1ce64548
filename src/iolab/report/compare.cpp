#include "iolab/report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "iolab/harness/stats.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

namespace {

// Cases are matched by group, strategy and every parameter.
using CaseKey = std::tuple<std::string, std::string, std::map<std::string, std::string>>;

CaseKey key_of(const CaseResult& c) { return CaseKey{c.spec.group, c.name(), c.spec.params()}; }

Table comparison_table() {
    Table t;
    t.columns = {{"case", true},
                 {"MiB/s before"},
                 {"MiB/s after"},
                 {"time ratio"},
                 {fmt::format("{:.0f}% interval", kRatioConfidence * 100)},
                 {"p (U test)"},
                 {"change", true}};
    return t;
}

// A case both runs measured: its throughputs, time ratio and interval, p-value and verdict.
struct Change {
    Row row;
    double ratio = 0;
    bool significant = false;
};

Change compare_case(const CaseResult& b, const CaseResult& a, double alpha) {
    // Time per byte after over before: below 1 the second run is faster.
    const RatioEstimate r = ratio_of(a, b);
    const double p = mann_whitney_p(a.per_byte(), b.per_byte());  // a tool's net time, as ranked
    const bool enough = a.samples.size() >= kMinSamplesForVerdict && b.samples.size() >= kMinSamplesForVerdict;
    const bool changed = enough && p < alpha && (r.high < 1 || r.low > 1);
    Change ch{{}, r.ratio, changed};
    ch.row.cells = {fmt::format("{}{} size={}", b.spec.group.empty() ? "" : b.spec.group + " ", b.spec.label(),
                                format_compact(b.spec.whole_bytes())),
                    fmt::format("{:.1f}", b.throughput_mib_s),
                    fmt::format("{:.1f}", a.throughput_mib_s),
                    fmt::format("{:.3f}", r.ratio),
                    fmt::format("[{:.3f}, {:.3f}]", r.low, r.high),
                    enough ? fmt::format("{:.3g}", p) : "-",
                    !enough       ? "~ (fewer than 5 samples)"
                    : !changed    ? "~"
                    : r.ratio < 1 ? "faster"
                                  : "slower"};
    return ch;
}

// Under MPI a case is every rank's work: runs of different rank counts moved different bytes.
std::string rank_warning(const Report& before, const Report& after) {
    const auto ranks = [](const Report& r) { return std::max<std::size_t>(1, r.environment.hosts.size()); };
    if (ranks(before) == ranks(after)) return "";
    return fmt::format(
        "\nthe runs had {} and {} MPI rank(s): each case's bytes and throughput are all ranks' together, so "
        "the times compare different amounts of work\n",
        ranks(before), ranks(after));
}

}  // namespace

std::string render_comparison(const Report& before, const Report& after, bool markdown) {
    std::map<CaseKey, const CaseResult*> later;
    for (const auto& c : after.cases)
        if (c.status == Status::ok) later[key_of(c)] = &c;
    Table t = comparison_table();
    std::vector<double> ratios;
    int only_before = 0, significant = 0;
    const double alpha = 1 - kRatioConfidence;
    for (const auto& b : before.cases) {
        if (b.status != Status::ok) continue;
        const auto it = later.find(key_of(b));
        if (it == later.end()) {
            ++only_before;
            continue;
        }
        Change ch = compare_case(b, *it->second, alpha);
        ratios.push_back(ch.ratio);
        significant += ch.significant;
        t.rows.push_back(std::move(ch.row));
    }
    std::string out = markdown ? markdown_table(t) : text_table(t, false);
    if (!ratios.empty())
        out += fmt::format(
            "\ngeometric mean of the time ratios over {} case(s): {:.3f} ({} significant change(s) at "
            "p < {:g}; ~: no significant difference)\n",
            ratios.size(), geometric_mean(ratios), significant, alpha);
    if (only_before) out += fmt::format("\n{} case(s) of the first run are not in the second.\n", only_before);
    return out + rank_warning(before, after);
}

}  // namespace iolab
