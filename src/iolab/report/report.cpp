#include "iolab/report/report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "iolab/core/units.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

std::vector<Warning> Report::warnings() const {
    std::vector<Warning> out;
    for (const auto& c : cases) {
        out.insert(out.end(), c.warnings.begin(), c.warnings.end());
        // A ranked case above the ceiling of its kind of work by more than its interval: the
        // ceiling or the measurement is wrong. Not a device's ceiling: a device's rate varies
        // from one minute to the next by more than any interval (docs/harness.md, "Ceilings").
        const Ceiling* l = c.ranked() ? ceiling_for(limits, c.spec, options_of(c)) : nullptr;
        if (l && l->key.kind != LimitKind::device && rate_interval(c).first > l->mib_s)
            out.push_back({WarningKind::above_limit, c.spec.label(),
                           fmt::format("{:.0f}% of its ceiling ({}: {}) even at the low end of its interval",
                                       100 * c.throughput_mib_s / l->mib_s, l->key.describe(), format_rate(l->mib_s))});
    }
    return out;
}

std::vector<std::string> Report::warning_lines() const {
    std::vector<std::string> lines, outliers;
    for (const auto& w : warnings()) {
        if (w.kind == WarningKind::outliers)
            outliers.push_back(fmt::format("{} ({})", w.subject, w.message));
        else
            lines.push_back(fmt::format("{}: {}", w.subject, w.message));
    }
    if (!outliers.empty()) {
        // Name a few; the JSON has them all.
        constexpr std::size_t kNamed = 8;
        const std::size_t more = outliers.size() > kNamed ? outliers.size() - kNamed : 0;
        outliers.resize(std::min(outliers.size(), kNamed));
        lines.push_back(
            fmt::format("statistical outliers (modified z-score > {:g}, Iglewicz and Hoaglin) in {} "
                        "case(s); the machine may be busy: {}{}",
                        kOutlierThreshold, outliers.size() + more, fmt::join(outliers, ", "),
                        more ? fmt::format(" and {} more", more) : std::string()));
    }
    return lines;
}

const RunOptions& Report::options_of(const CaseResult& c) const {
    return groups.empty() ? options : group(c.spec.group).options;
}

const ReportGroup& Report::group(const std::string& id) const {
    for (const auto& g : groups)
        if (g.id == id) return g;
    static const ReportGroup none;
    return none;
}

bool Report::measured_nothing() const {
    return !cases.empty() &&
           std::none_of(cases.begin(), cases.end(), [](const CaseResult& c) { return c.status == Status::ok; });
}

bool Report::any_failed() const {
    // A published method kept with its bug (a jvm.*-as-published row) is meant to fail its
    // verification: that failure is its result, not the run's.
    const auto expected = [](const CaseResult& c) {
        return c.spec.strategy && !c.spec.strategy->bug.empty() &&
               c.reason.find("; as published, " + c.spec.strategy->bug) != std::string::npos;
    };
    return std::any_of(cases.begin(), cases.end(),
                       [&](const CaseResult& c) { return c.status == Status::failed && !expected(c); });
}

std::vector<std::uint64_t> Report::sizes() const {
    std::vector<std::uint64_t> out;
    for (const auto& c : cases)
        if (std::find(out.begin(), out.end(), c.spec.file_size()) == out.end()) out.push_back(c.spec.file_size());
    return out;
}

std::string Report::header() const {
    const std::vector<std::uint64_t> sizes = this->sizes();
    // A few sizes are named; more are a range, each table's heading naming its own.
    std::vector<std::string> size_text;
    if (sizes.size() > kSizesNamed) {
        const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
        size_text.push_back(fmt::format("{} sizes from {} to {}", sizes.size(), format_size(*lo), format_size(*hi)));
    } else {
        for (auto s : sizes) size_text.push_back(format_size(s));
    }
    if (sizes.empty()) size_text.push_back("no completed case");
    const std::string data = cases.empty() ? std::string("random")
                             : !cases.front().spec.workload.input.empty()
                                 ? "'" + cases.front().spec.workload.input + "'"
                                 : to_string(cases.front().spec.workload.data);
    const std::string throttle = options.throttle.active() ? fmt::format(", writes to a SIMULATED slow device of {}",
                                                                         options.throttle.describe())
                                                           : std::string();
    return fmt::format(
        "iolab {}{}: {} of {}, cache {}, sync {}{}, verify {}, warm-up {}, {}{}\nmachine: {}{}",
        suite.empty() ? "run" : suite, partial ? " (PARTIAL: interrupted)" : "", fmt::join(size_text, ", "),
        data + (cases.empty() || cases.front().spec.workload.input.empty() ? " data" : ""), to_string(options.cache),
        to_string(options.sync), throttle, to_string(options.verify), options.warmup.describe(),
        !options.iterations.adaptive ? "iterations " + options.iterations.describe()
        : options.race
            ? (time_budget_s > 0 ? fmt::format("raced in {:g} s", time_budget_s) : "raced")
            : fmt::format("iterations until ±{:g}% or {:g} s a case", options.precision * 100, options.case_budget_s),
        (options.forks ? fmt::format(" in {} forks", options.forks) : std::string()) +
            (options.cache_budget ? fmt::format(", page cache limited to {}", format_size(options.cache_budget))
                                  : std::string()),
        environment.one_line(), noise.empty() ? std::string() : "\n" + noise);
}

}  // namespace iolab
