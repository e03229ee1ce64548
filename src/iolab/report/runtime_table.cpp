// Each JVM method beside its C++ counterpart (Strategy::counterpart) where a run measured both on
// the same work: the ratio of their times with its interval (table.hpp).
#include <cmath>

#include <fmt/format.h>

#include "iolab/core/data.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/options.hpp"
#include "iolab/harness/ratio.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

namespace {

// The same work: one group and family, the same bytes of the same data, and every parameter of the
// C++ case at the same value in the JVM's (whose heap and deadline are its own): a JVM method without
// a buffer is not paired with a C++ strategy that takes one (transferTo's one sendfile per file is not
// copy.sendfile's N bytes a call).
bool same_work(const CaseResult& jvm, const CaseResult& cpp) {
    const CaseSpec &a = jvm.spec, &b = cpp.spec;
    if (a.group != b.group || a.workload.family != b.workload.family || a.whole_bytes() != b.whole_bytes() ||
        to_string(a.workload.data) != to_string(b.workload.data) || a.workload.jobs != b.workload.jobs)
        return false;
    const auto ours = a.params();
    for (const auto& [key, value] : b.params())
        if (const auto it = ours.find(key); it == ours.end() || it->second != value) return false;
    return true;
}

// "C++ 2.3x faster", "JVM 1.4x faster", "tied (within 10%)": the JVM's time over its counterpart's.
std::string verdict(const RatioEstimate& r) {
    if (!(r.low > 0) || !std::isfinite(r.high)) return "not told apart (no interval)";
    switch (order_at(r, kDefaultMargin)) {
        case Order::slower: return fmt::format("C++ {} faster", format_ratio(r.ratio));
        case Order::faster: return fmt::format("JVM {} faster", format_ratio(1 / r.ratio));
        case Order::tied: break;
    }
    return fmt::format("tied (within {:.0f}%)", 100 * kDefaultMargin);
}

}  // namespace

Table runtimes_table(const Report& report) {
    Table t;
    t.title = "the JVM beside C++: each method against the C++ strategy making the same calls";
    t.columns = {{"JVM method", true}, {"C++ counterpart", true}, {"JVM/C++ time"}, {"99% interval"}, {"", true}};
    for (const CaseResult& jvm : report.cases) {
        if (!jvm.ranked() || jvm.spec.strategy->counterpart.empty()) continue;
        for (const CaseResult& cpp : report.cases) {
            if (!cpp.ranked() || cpp.name() != jvm.spec.strategy->counterpart || !same_work(jvm, cpp)) continue;
            const RatioEstimate r = ratio_of(jvm, cpp, kRatioConfidence);
            if (r.ratio <= 0) continue;
            Row row;
            row.cells = {fmt::format("{}{}", jvm.spec.group.empty() ? "" : jvm.spec.group + ": ", jvm.spec.label()),
                         cpp.spec.label(), format_ratio(r.ratio),
                         std::isfinite(r.high) && r.low > 0
                             ? fmt::format("{} to {}", format_ratio(r.low), format_ratio(r.high))
                             : "-",
                         verdict(r)};
            t.rows.push_back(std::move(row));
        }
    }
    t.notes = {fmt::format(
        "JVM/C++ time: the JVM method's time per byte over its counterpart's, both measured in the same rounds "
        "(the JVM's net of its worker's round trip); below 1 the JVM is faster; tied: the 99% interval does not "
        "place them more than {:.0f}% apart",
        100 * kDefaultMargin)};
    return t;
}

}  // namespace iolab
