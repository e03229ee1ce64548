#include "iolab/report/table.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "iolab/core/units.hpp"
#include "iolab/harness/stats.hpp"

namespace iolab {

namespace {

std::string params_text(const CaseSpec& c) {
    std::vector<std::string> parts;
    for (const auto& [k, v] : c.params())
        if (k != "size" && k != "data" && k != "slice_of" && k != "count") parts.push_back(k + "=" + v);
    return fmt::format("{}", fmt::join(parts, " "));
}

}  // namespace

std::string options_text(const RunOptions& o) {
    std::string t = fmt::format("cache {}, sync {}, verify {}", to_string(o.cache), to_string(o.sync), to_string(o.verify));
    if (o.throttle > 0)
        t += fmt::format(", writes throttled to {}/s: SIMULATED", format_size(static_cast<std::uint64_t>(o.throttle)));
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
        t.title = fmt::format("{}{} ({})", g.title.empty() ? "" : g.title + ": ", to_string(f), options_text(g.options));
        // Reads are held against a memcpy into a cache-sized buffer (what a page-cache read
        // does), copies against a large memcpy.
        const double limit = !report.limits.measured() || f == Family::write ? 0
                             : f == Family::read ? report.limits.memcpy_cache_mib_s
                                                 : report.limits.memcpy_large_mib_s;
        t.columns = {"#", "strategy", "params", "median", "MiB/s", fmt::format("±{:.0f}%", kMedianConfidence * 100),
                     "vs best", "calls/MiB", "CPU"};
        if (limit > 0) t.columns.insert(t.columns.begin() + 5, "of limit");
        if (cold && f != Family::write) t.columns.push_back("cached");
        t.columns.push_back("verified");
        const double best = cases.front()->ranked() ? cases.front()->throughput_mib_s : 0;
        int rank = 0;
        bool scaled = false;
        for (const CaseResult* c : cases) {
            TableRow row;
            row.status = c->status;
            if (!c->ranked()) {
                const bool not_cold = c->status == Status::ok;
                row.status = not_cold ? Status::skipped : c->status;
                row.cells = {"-", c->name(), params_text(c->spec),
                             c->status == Status::failed ? "FAILED" : not_cold ? "not ranked" : "skipped",
                             not_cold ? fmt::format("not proven cold ({:.0f}% of the input cached, median)",
                                                    median_resident(*c) * 100)
                                      : c->reason};
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
                         params_text(c->spec),
                         median,
                         fmt::format("{:.1f}", c->throughput_mib_s),
                         interval ? fmt::format("±{:.1f}%", half * 100) : fmt::format("? (n={})", c->stats.n),
                         format_ratio(c->throughput_mib_s > 0 ? best / c->throughput_mib_s : 0),
                         cpm < 0 ? "n/a" : fmt::format("{:.1f}", cpm),
                         fmt::format("{:.0f}%", cpu_fraction(*c) * 100)};
            if (limit > 0) row.cells.insert(row.cells.begin() + 5, fmt::format("{:.0f}%", 100 * c->throughput_mib_s / limit));
            if (cold && f != Family::write) {
                const double r = median_resident(*c);
                row.cells.push_back(r < 0 ? "-" : fmt::format("{:.0f}%", r * 100));
            }
            row.cells.push_back(c->verified                               ? "yes"
                                : c->checked == Checked::byte_count       ? "bytes"
                                : c->spec.strategy->output_checked        ? "NO"
                                                                          : "n/a");
            t.rows.push_back(std::move(row));
        }
        for (const CaseResult* c : cases)
            if (c->timeline) t.notes.push_back(fmt::format("timeline of {}: {}", c->spec.label(), c->timeline->summary()));
        if (limit > 0) {
            TableRow ref;
            ref.status = Status::skipped;
            ref.reference = true;
            ref.cells = {"ref", f == Family::read ? "memcpy into a 64 KiB buffer" : "memcpy, 256 MiB to 256 MiB",
                         "", "limit", fmt::format("{:.1f} MiB/s: in-process reference, not ranked", limit)};
            t.rows.insert(t.rows.begin(), std::move(ref));
        }
        if (scaled)
            t.notes.push_back("* byte-at-a-time case measured on a slice of the file; its time is scaled to the "
                              "whole size (throughput is as measured)");
        if (std::any_of(cases.begin(), cases.end(), [](const CaseResult* c) {
                return c->status == Status::ok && !c->spec.strategy->in_syscall_layer;
            }))
            t.notes.push_back("n/a: the I/O happens inside libstdc++ or another program, where iolab cannot count "
                              "calls (or, for verified, leaves no output to check); bytes: only the byte count "
                              "the tool reported was checked");
        tables.push_back(std::move(t));
    }
    return tables;
}

Table findings_table(const Report& report) {
    Table t;
    t.title = "findings";
    t.columns = {"verdict", "measured here", fmt::format("{:.0f}% interval", kRatioConfidence * 100), "claim needs",
                 "published", "claim"};
    for (const auto& f : report.findings) {
        TableRow row;
        const bool measured = f.ratio > 0;
        row.cells = {std::string(to_string(f.verdict)),
                     measured ? format_ratio(f.ratio) : "-",
                     measured ? fmt::format("[{}, {}]", f.low > 0 ? format_ratio(f.low) : std::string("0x"),
                                            std::isfinite(f.high) ? format_ratio(f.high) : std::string("inf"))
                              : "-",
                     f.threshold(),
                     f.finding.published > 0 ? "~" + format_ratio(f.finding.published) : "-",
                     (f.suite.empty() ? "" : f.suite + ": ") + f.finding.claim + (f.note.empty() ? "" : " (" + f.note + ")")};
        t.rows.push_back(std::move(row));
    }
    return t;
}

std::vector<std::string> knee_lines(const Report& report) {
    std::vector<std::string> out;
    for (const auto& k : report.knees) out.push_back("knee: " + k.describe());
    return out;
}

std::string render_terminal(const Report& report, bool colour) {
    const auto style = [&](const std::string& s, const char* code) {
        return colour ? fmt::format("\x1b[{}m{}\x1b[0m", code, s) : s;
    };
    std::string out = style(report.header(), "1") + "\n";
    for (const Table& t : ranked_tables(report)) {
        std::vector<std::size_t> width(t.columns.size(), 0);
        const auto utf8_len = [](const std::string& s) {
            return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
        };
        for (std::size_t i = 0; i < t.columns.size(); ++i) width[i] = utf8_len(t.columns[i]);
        // Failed and skipped rows share the first three columns; their reason runs on.
        for (const auto& r : t.rows)
            for (std::size_t i = 0; i < r.cells.size() && i < width.size() && (r.status == Status::ok || i < 3); ++i)
                width[i] = std::max(width[i], utf8_len(r.cells[i]));
        const auto line = [&](const std::vector<std::string>& cells) {
            std::string l;
            for (std::size_t i = 0; i < cells.size(); ++i) {
                const bool left = i == 1 || i == 2;
                const std::size_t pad = width[i] > utf8_len(cells[i]) ? width[i] - utf8_len(cells[i]) : 0;
                if (i) l += "  ";
                l += left ? cells[i] + std::string(pad, ' ') : std::string(pad, ' ') + cells[i];
            }
            while (!l.empty() && l.back() == ' ') l.pop_back();
            return l;
        };
        out += fmt::format("\n{}\n", style(t.title, "1"));
        out += line(t.columns) + "\n";
        for (const auto& r : t.rows) {
            if (r.status == Status::ok) {
                out += line(r.cells) + "\n";
                continue;
            }
            // Failed and skipped cases: name, params, then the reason on the rest of the line.
            std::string l = fmt::format("{:>{}}  {:<{}}  {:<{}}  ", r.cells[0], width[0], r.cells[1], width[1],
                                        r.cells[2], width[2]);
            const std::string what = r.cells[3] + ": " + r.cells[4];
            out += l + style(what, r.status == Status::failed ? "31" : "33") + "\n";
        }
        for (const auto& n : t.notes) out += n + "\n";
    }
    if (!report.findings.empty()) {
        const Table ft = findings_table(report);
        std::vector<std::size_t> w(ft.columns.size(), 0);
        for (std::size_t i = 0; i < w.size(); ++i) w[i] = ft.columns[i].size();
        for (const auto& r : ft.rows)
            for (std::size_t i = 0; i + 1 < r.cells.size(); ++i) w[i] = std::max(w[i], r.cells[i].size());
        out += fmt::format("\n{}\n", style("findings", "1"));
        const auto row = [&](const std::vector<std::string>& cells, bool colour_verdict) {
            std::string l;
            for (std::size_t i = 0; i < cells.size(); ++i) {
                std::string cell = i + 1 < cells.size() ? fmt::format("{:<{}}", cells[i], w[i]) : cells[i];
                if (i == 0 && colour_verdict)
                    cell = style(cell, cells[0] == "HOLDS" ? "32" : cells[0] == "DOES NOT HOLD" ? "31" : "33");
                l += (i ? "  " : "") + cell;
            }
            return l + "\n";
        };
        out += row(ft.columns, false);
        for (const auto& r : ft.rows) out += row(r.cells, true);
    }
    for (const auto& k : knee_lines(report)) out += k + "\n";
    if (report.process_startup_s >= 0)
        out += fmt::format("external tools are timed as processes: starting one costs {} here (median of 20 runs "
                           "of 'true'), included in their times\n",
                           format_seconds(report.process_startup_s));
    const auto warnings = report.warning_lines();
    if (!warnings.empty()) {
        out += fmt::format("\n{}\n", style("warnings", "1;33"));
        for (const auto& w : warnings) out += fmt::format("  - {}\n", w);
    }
    return out;
}

}  // namespace iolab
