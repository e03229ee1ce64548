#include "iolab/report/compare.hpp"

#include <cmath>

#include <fmt/format.h>

#include "iolab/suite/findings.hpp"

namespace iolab {

std::string render_comparison(const Report& before, const Report& after, bool markdown) {
    std::vector<std::vector<std::string>> rows;
    int only_before = 0;
    for (const auto& b : before.cases) {
        if (b.status != Status::ok) continue;
        const CaseResult* a = nullptr;
        for (const auto& c : after.cases)
            if (c.status == Status::ok && c.spec.group == b.spec.group && c.spec.label() == b.spec.label() &&
                c.spec.workload.bytes() == b.spec.workload.bytes())
                a = &c;
        if (!a) {
            ++only_before;
            continue;
        }
        // time per byte after / before: below 1 the second run is faster.
        const RatioInterval r = ratio_of(*a, b);
        const char* verdict = r.high < 1 ? "faster" : r.low > 1 ? "slower" : "no clear change";
        rows.push_back({(b.spec.group.empty() ? "" : b.spec.group + " ") + b.spec.label(),
                        fmt::format("{:.1f}", b.throughput_mib_s), fmt::format("{:.1f}", a->throughput_mib_s),
                        fmt::format("{:+.1f}%", (1 / r.ratio - 1) * 100),
                        fmt::format("[{:.3f}, {}]", r.low, std::isfinite(r.high) ? fmt::format("{:.3f}", r.high) : "inf"),
                        verdict});
    }
    const std::vector<std::string> cols = {"case", "MiB/s before", "MiB/s after", "throughput", "time ratio 99.9%",
                                           "verdict"};
    std::string out;
    if (markdown) {
        out += fmt::format("| {} |\n|", fmt::join(cols, " | "));
        for (std::size_t i = 0; i < cols.size(); ++i) out += i == 0 ? " --- |" : " ---: |";
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
    if (only_before) out += fmt::format("\n{} case(s) of the first run are not in the second.\n", only_before);
    return out;
}

}  // namespace iolab
