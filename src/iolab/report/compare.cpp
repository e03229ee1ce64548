#include "iolab/report/compare.hpp"

#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "iolab/harness/stats.hpp"
#include "iolab/suite/findings.hpp"

namespace iolab {

namespace {

std::vector<double> walls(const CaseResult& c) {
    std::vector<double> w;
    for (const auto& s : c.samples) w.push_back(s.wall_s);
    return w;
}

}  // namespace

std::string render_comparison(const Report& before, const Report& after, bool markdown) {
    // Cases are matched by group, label and size.
    using Key = std::tuple<std::string, std::string, std::uint64_t>;
    const auto key = [](const CaseResult& c) { return Key{c.spec.group, c.spec.label(), c.spec.workload.bytes()}; };
    std::map<Key, const CaseResult*> later;
    for (const auto& c : after.cases)
        if (c.status == Status::ok) later[key(c)] = &c;

    std::vector<std::vector<std::string>> rows;
    std::vector<double> ratios;
    int only_before = 0, significant = 0;
    const double alpha = 1 - kRatioConfidence;
    for (const auto& b : before.cases) {
        if (b.status != Status::ok) continue;
        const auto it = later.find(key(b));
        if (it == later.end()) {
            ++only_before;
            continue;
        }
        const CaseResult& a = *it->second;
        // Time per byte after over before: below 1 the second run is faster.
        const RatioInterval r = ratio_of(a, b);
        const double p = mann_whitney_p(walls(a), walls(b));
        const bool enough = a.samples.size() >= kMinSamplesForVerdict && b.samples.size() >= kMinSamplesForVerdict;
        const bool changed = enough && p < alpha && (r.high < 1 || r.low > 1);
        ratios.push_back(r.ratio);
        significant += changed;
        rows.push_back({(b.spec.group.empty() ? "" : b.spec.group + " ") + b.spec.label(),
                        fmt::format("{:.1f}", b.throughput_mib_s), fmt::format("{:.1f}", a.throughput_mib_s),
                        fmt::format("{:.3f}", r.ratio), fmt::format("[{:.3f}, {:.3f}]", r.low, r.high),
                        enough ? fmt::format("{:.3g}", p) : "-",
                        !enough ? "~ (fewer than 5 samples)" : !changed ? "~" : r.ratio < 1 ? "faster" : "slower"});
    }
    const std::vector<std::string> cols = {"case",  "MiB/s before", "MiB/s after", "time ratio",
                                           fmt::format("{:.0f}% interval", kRatioConfidence * 100), "p (U test)",
                                           "change"};
    std::string out;
    if (markdown) {
        out += fmt::format("| {} |\n|", fmt::join(cols, " | "));
        for (std::size_t i = 0; i < cols.size(); ++i) out += i == 0 || i + 1 == cols.size() ? " --- |" : " ---: |";
        out += "\n";
        for (const auto& r : rows) out += fmt::format("| {} |\n", fmt::join(r, " | "));
    } else {
        std::vector<std::size_t> w(cols.size());
        for (std::size_t i = 0; i < cols.size(); ++i) w[i] = cols[i].size();
        for (const auto& r : rows)
            for (std::size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
        const auto line = [&](const std::vector<std::string>& cells) {
            std::string l;
            for (std::size_t i = 0; i < cells.size(); ++i)
                l += (i ? "  " : "") + (i == 0 || i + 1 == cells.size() ? fmt::format("{:<{}}", cells[i], w[i])
                                                                        : fmt::format("{:>{}}", cells[i], w[i]));
            while (!l.empty() && l.back() == ' ') l.pop_back();
            return l + "\n";
        };
        out += line(cols);
        for (const auto& r : rows) out += line(r);
    }
    if (!ratios.empty())
        out += fmt::format("\ngeometric mean of the time ratios over {} case(s): {:.3f} ({} significant change(s) at "
                           "p < {:g}; ~: no significant difference)\n",
                           ratios.size(), geometric_mean(ratios), significant, alpha);
    if (only_before) out += fmt::format("\n{} case(s) of the first run are not in the second.\n", only_before);
    return out;
}

}  // namespace iolab
