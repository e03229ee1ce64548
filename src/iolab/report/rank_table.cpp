// Under MPI: each rank's part of a case, from its own times, and the table of them (table.hpp).
#include <algorithm>

#include <fmt/format.h>

#include "iolab/core/units.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

std::vector<RankFigures> rank_figures(const CaseResult& c, const std::vector<std::string>& hosts) {
    std::vector<RankFigures> out;
    const std::size_t ranks = hosts.size();
    if (ranks == 0 || c.status != Status::ok || c.samples.empty()) return out;
    for (const Sample& s : c.samples)
        if (s.rank_s.size() != ranks) return out;
    for (std::size_t r = 0; r < ranks; ++r) {
        std::vector<double> times;
        double bytes = 0;
        for (const Sample& s : c.samples) {
            times.push_back(s.rank_s[r] * c.spec.scale());
            bytes += static_cast<double>(s.bytes) / static_cast<double>(ranks);
        }
        RankFigures f{r, hosts[r], summarize(times), 0};
        const double per_sample = bytes / static_cast<double>(c.samples.size());
        if (f.stats.median > 0) f.throughput_mib_s = per_sample * c.spec.scale() / f.stats.median / (1024.0 * 1024.0);
        out.push_back(std::move(f));
    }
    return out;
}

Table rank_table(const Report& report) {
    Table t;
    t.title = fmt::format(
        "per rank ({} ranks; each moves 1/{} of a case's bytes, timed from its first job's start "
        "to its last job's end)",
        report.environment.hosts.size(), report.environment.hosts.size());
    t.columns = {{"case", true}, {"rank"}, {"host", true}, {"median"}, {"MiB/s"}, {"±95%"}, {"vs fastest"}};
    for (const CaseResult& c : report.cases) {
        if (!c.ranked()) continue;  // as the ranked tables: not failed, skipped nor unproven cold
        const auto ranks = rank_figures(c, report.environment.hosts);
        double fastest = 0;
        for (const auto& f : ranks) fastest = std::max(fastest, f.throughput_mib_s);
        for (const auto& f : ranks) {
            Row row;
            // The case as the group and the size tell it apart from the others of the run.
            row.cells = {fmt::format("{}{} ({})", c.spec.group.empty() ? "" : c.spec.group + ": ", c.spec.label(),
                                     format_size(c.spec.whole_bytes())),
                         std::to_string(f.rank),
                         f.host,
                         format_seconds(f.stats.median),
                         fmt::format("{:.1f}", f.throughput_mib_s),
                         f.stats.n > 1 && f.stats.median_confidence >= kMedianConfidence
                             ? fmt::format("±{:.1f}%", 100 * f.stats.median_precision())
                             : fmt::format("? (n={})", f.stats.n),
                         f.throughput_mib_s > 0 ? fmt::format("{:.2f}x", fastest / f.throughput_mib_s) : "-"};
            t.rows.push_back(std::move(row));
        }
    }
    return t;
}

}  // namespace iolab
