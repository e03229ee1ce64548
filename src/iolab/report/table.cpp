#include "iolab/report/table.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "iolab/core/units.hpp"
#include "iolab/harness/stats.hpp"

namespace iolab {

namespace {}  // namespace

std::string options_text(const RunOptions& o) {
    std::string t =
        fmt::format("cache {}, sync {}, verify {}", to_string(o.cache), to_string(o.sync), to_string(o.verify));
    if (o.shared_file) t += ", jobs share one file";
    if (o.stonewall) t += ", stonewall";
    if (o.throttle.active()) t += fmt::format(", writes to a SIMULATED device of {}", o.throttle.describe());
    if (o.cache_budget) t += fmt::format(", page cache limited to {}", format_size(o.cache_budget));
    return t;
}

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

std::string format_ns(std::uint64_t ns) {
    const auto d = static_cast<double>(ns);
    if (ns < 1000) return fmt::format("{} ns", ns);
    if (ns < 1'000'000) return fmt::format("{:.3g} us", d / 1e3);
    if (ns < 1'000'000'000) return fmt::format("{:.3g} ms", d / 1e6);
    return fmt::format("{:.3g} s", d / 1e9);
}

std::string rate_sparkline(const std::vector<std::uint64_t>& slices, std::size_t width) {
    if (slices.empty() || width == 0) return "";
    // The last slice is partly empty (the run ended inside it): left out when there are others.
    const std::size_t n = slices.size() > 1 ? slices.size() - 1 : 1;
    const std::size_t cells = std::min(width, n);
    std::vector<double> rate(cells, 0);
    for (std::size_t c = 0; c < cells; ++c) {
        const std::size_t from = c * n / cells, to = (c + 1) * n / cells;
        std::uint64_t sum = 0;
        for (std::size_t i = from; i < to; ++i) sum += slices[i];
        rate[c] = static_cast<double>(sum) / static_cast<double>(to - from);
    }
    const double top = *std::max_element(rate.begin(), rate.end());
    static constexpr const char* kLevels[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    std::string out;
    for (double r : rate)
        out += kLevels[top > 0 ? std::min<std::size_t>(7, static_cast<std::size_t>(r / top * 7.999)) : 0];
    return out;
}

Table latency_table(const Report& report) {
    Table t;
    t.title = "latency per operation";
    t.columns = {{"case", true}, {"ops/s"}, {"p50"}, {"p90"}, {"p99"}, {"p99.9"}, {"max"}, {"rate over the run", true}};
    std::uint64_t ops = 0;
    for (const CaseResult& c : report.cases) {
        if (!c.ranked() || !c.latency) continue;
        const Latency& l = *c.latency;
        ops += l.count();
        Row row;
        row.cells = {fmt::format("{}{}", c.spec.group.empty() ? "" : c.spec.group + ": ", c.spec.label()),
                     fmt::format("{:.0f}", c.ops_per_s),
                     format_ns(l.percentile(0.50)),
                     format_ns(l.percentile(0.90)),
                     format_ns(l.percentile(0.99)),
                     format_ns(l.percentile(0.999)),
                     format_ns(l.max()),
                     rate_sparkline(l.slices())};
        t.rows.push_back(std::move(row));
    }
    if (t.rows.empty()) return t;
    t.title = fmt::format("latency per operation ({} operations in the measured iterations)", ops);
    t.notes.push_back(
        "rate over the run: the operations completed in each 0.1 s of a run (the measured iterations added), "
        "as high as the highest");
    if (report.clock_read_ns >= 0)
        t.notes.push_back(fmt::format(
            "each operation is timed by two reads of the clock, which cost {:.0f} ns each here (the latencies "
            "include one of them)",
            report.clock_read_ns));
    return t;
}

std::vector<Table> ranked_tables(const Report& report) {
    std::vector<Table> tables;
    std::vector<ReportGroup> groups = report.groups;
    if (groups.empty()) groups.push_back(ReportGroup{"", "", report.options});
    for (const ReportGroup& g : groups)
        for (Family f : {Family::read, Family::write, Family::copy}) {
            const auto cases = report.ranked(g.id, f);
            if (cases.empty()) continue;
            const bool cold = g.options.cache == CacheMode::cold;
            Table t;
            t.family = f;
            t.group = g.id;
            t.title =
                fmt::format("{}{} ({})", g.title.empty() ? "" : g.title + ": ", to_string(f), options_text(g.options));
            // Reads are held against a memcpy into a cache-sized buffer (what a page-cache read
            // does), copies against a large memcpy.
            const double limit = !report.limits.measured() || f == Family::write ? 0
                                 : f == Family::read                             ? report.limits.memcpy_cache_mib_s
                                                                                 : report.limits.memcpy_large_mib_s;
            t.columns = {{"#"},       {"strategy", true}, {"params", true},
                         {"median"},  {"MiB/s"},          {fmt::format("±{:.0f}%", kMedianConfidence * 100)},
                         {"vs best"}, {"calls/MiB"},      {"CPU"}};
            if (limit > 0) t.columns.insert(t.columns.begin() + 5, {"of limit"});
            if (cold && f != Family::write) t.columns.push_back({"cached"});
            t.columns.push_back({"verified"});
            const double best = cases.front()->ranked() ? cases.front()->throughput_mib_s : 0;
            int rank = 0;
            bool scaled = false;
            for (const CaseResult* c : cases) {
                Row row;
                if (!c->ranked()) {
                    const bool not_cold = c->status == Status::ok;
                    row.kind = c->status == Status::failed ? RowKind::failed : RowKind::skipped;
                    row.cells = {"-", c->name(), c->spec.label_params()};
                    row.status = c->status == Status::failed ? "FAILED" : not_cold ? "not ranked" : "skipped";
                    row.reason = not_cold && c->budget_unheld
                                     ? fmt::format("the page cache held more of the input than the budget of {}",
                                                   format_size(report.group(c->spec.group).options.cache_budget))
                                 : not_cold ? fmt::format("not proven cold ({:.0f}% of the input cached, median)",
                                                          median_resident(*c) * 100)
                                            : c->reason;
                    t.rows.push_back(std::move(row));
                    continue;
                }
                const double scale = c->spec.scale();
                std::string median = format_seconds(c->stats.median * scale);
                if (c->spec.full_bytes) {
                    median = "~" + median + "*";
                    scaled = true;
                }
                // The interval of the median printed beside it; "?" when the samples are too few for
                // the stated confidence.
                const double half = c->stats.median_precision();
                const bool interval = c->stats.n > 1 && c->stats.median_confidence >= kMedianConfidence;
                const double cpm = calls_per_mib(*c);
                row.cells = {std::to_string(++rank),
                             c->name(),
                             c->spec.label_params(),
                             median,
                             fmt::format("{:.1f}", c->throughput_mib_s),
                             interval ? fmt::format("±{:.1f}%", half * 100) : fmt::format("? (n={})", c->stats.n),
                             format_ratio(c->throughput_mib_s > 0 ? best / c->throughput_mib_s : 0),
                             cpm < 0 ? "n/a" : fmt::format("{:.1f}", cpm),
                             fmt::format("{:.0f}%", cpu_fraction(*c) * 100)};
                if (limit > 0)
                    row.cells.insert(row.cells.begin() + 5, fmt::format("{:.0f}%", 100 * c->throughput_mib_s / limit));
                if (cold && f != Family::write) {
                    const double r = median_resident(*c);
                    row.cells.push_back(r < 0 ? "-" : fmt::format("{:.0f}%", r * 100));
                }
                row.cells.push_back(c->verified                          ? "yes"
                                    : c->checked == Checked::byte_count  ? "bytes"
                                    : c->spec.strategy->output_checked() ? "NO"
                                                                         : "n/a");
                t.rows.push_back(std::move(row));
            }
            for (const CaseResult* c : cases)
                if (c->timeline)
                    t.notes.push_back(fmt::format("timeline of {}{}: {}", c->spec.label(),
                                                  c->spec.workload.jobs > 1
                                                      ? fmt::format(" (job 1 of {})", c->spec.workload.jobs)
                                                      : std::string(),
                                                  c->timeline->summary()));
            for (const CaseResult* c : cases) {
                // Scaled as the median is (a byte-at-a-time slice stands for the whole file).
                std::vector<double> each;
                for (const Sample& s : c->samples)
                    for (double t : s.job_s) each.push_back(t * c->spec.scale());
                if (each.empty() || !c->ranked()) continue;
                std::sort(each.begin(), each.end());
                t.notes.push_back(fmt::format(
                    "jobs of {}: one job took {} to {}, median {}, over every iteration; MiB/s is all jobs' "
                    "bytes over the first start to the last end",
                    c->spec.label(), format_seconds(each.front()), format_seconds(each.back()),
                    format_seconds(median(each))));
            }
            if (limit > 0) {
                t.limit_mib_s = limit;
                t.limit_label = f == Family::read ? "memcpy into a 64 KiB buffer" : "memcpy, 256 MiB to 256 MiB";
                Row ref;
                ref.kind = RowKind::reference;
                ref.cells = {"ref", t.limit_label, ""};
                ref.status = "limit";
                ref.reason = fmt::format("{:.1f} MiB/s: in-process reference, not ranked", limit);
                t.rows.insert(t.rows.begin(), std::move(ref));
            }
            if (scaled)
                t.notes.push_back(
                    "* byte-at-a-time case measured on a slice of the file; its time is scaled to the "
                    "whole size (throughput is as measured)");
            if (std::any_of(cases.begin(), cases.end(), [](const CaseResult* c) {
                    return c->status == Status::ok && !c->spec.strategy->in_syscall_layer();
                }))
                t.notes.push_back(
                    "n/a: the I/O happens inside libstdc++ or another program, where iolab cannot count "
                    "calls (or, for verified, leaves no output to check); bytes: only the byte count "
                    "the tool reported was checked");
            tables.push_back(std::move(t));
        }
    return tables;
}

Table findings_table(const Report& report) {
    Table t;
    t.title = "findings";
    for (const std::string name : {"verdict", "measured here", "interval", "claim needs", "published", "claim"})
        t.columns.push_back(
            {name == "interval" ? fmt::format("{:.0f}% interval", kRatioConfidence * 100) : name, true});
    for (const auto& f : report.findings) {
        Row row;
        row.tone = f.verdict == Verdict3::holds           ? Tone::good
                   : f.verdict == Verdict3::does_not_hold ? Tone::bad
                                                          : Tone::doubtful;
        const bool measured = f.ratio > 0;
        row.cells = {
            std::string(to_string(f.verdict)),
            measured ? format_ratio(f.ratio) : "-",
            measured ? fmt::format("[{}, {}]", f.low > 0 ? format_ratio(f.low) : std::string("0x"),
                                   std::isfinite(f.high) ? format_ratio(f.high) : std::string("inf"))
                     : "-",
            f.threshold(),
            f.finding.published > 0 ? fmt::format("~{}", format_ratio(f.finding.published)) : "-",
            (f.suite.empty() ? "" : f.suite + ": ") + f.finding.claim + (f.note.empty() ? "" : " (" + f.note + ")")};
        t.rows.push_back(std::move(row));
        // A suite's reason is shown where the verdict contradicts the write-up.
        if (!f.finding.explanation.empty() && f.verdict == Verdict3::does_not_hold)
            t.notes.push_back(fmt::format("why, {}{}: {}", f.suite.empty() ? "" : f.suite + ": ", f.finding.claim,
                                          f.finding.explanation));
    }
    return t;
}

std::vector<std::string> knee_lines(const Report& report) {
    std::vector<std::string> out;
    for (const auto& k : report.knees) out.push_back("knee: " + k.describe());
    return out;
}

}  // namespace iolab
