// The Markdown exporter: the ranked tables and findings, ready to paste into an issue or a post.
#include <fmt/format.h>

#include "iolab/report/exporter.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

std::string markdown_escape(const std::string& s) {
    std::string e;
    for (char c : s) {
        if (c == '|') e += '\\';
        e += c;
    }
    return e;
}

std::string markdown_table(const Table& t) {
    std::vector<std::string> names;
    for (const auto& c : t.columns) names.push_back(markdown_escape(c.name));
    std::string out = fmt::format("| {} |\n|", fmt::join(names, " | "));
    for (const auto& c : t.columns) out += c.left ? " --- |" : " ---: |";
    out += "\n";
    for (const auto& r : t.rows) {
        std::vector<std::string> cells;
        for (const auto& c : r.cells) cells.push_back(markdown_escape(c));
        if (r.kind != RowKind::ranked) {
            cells.push_back(markdown_escape(r.status + ": " + r.reason));
            while (cells.size() < t.columns.size()) cells.emplace_back();
        }
        out += fmt::format("| {} |\n", fmt::join(cells, " | "));
    }
    return out;
}

std::string to_markdown(const Report& report) {
    const std::string header = report.header();
    const auto nl = header.find('\n');
    std::string out = fmt::format("## {}\n", markdown_escape(header.substr(0, nl)));
    if (nl != std::string::npos) out += fmt::format("\n{}\n", markdown_escape(header.substr(nl + 1)));
    for (const Table& t : ranked_tables(report)) {
        out += fmt::format("\n### {}\n\n", markdown_escape(t.title));
        out += markdown_table(t);
        for (const auto& n : t.notes) out += fmt::format("\n{}\n", markdown_escape(n));
    }
    if (const Table rt = rank_table(report); !rt.rows.empty())
        out += fmt::format("\n### {}\n\n", markdown_escape(rt.title)) + markdown_table(rt);
    if (const Table lt = latency_table(report); !lt.rows.empty()) {
        out += fmt::format("\n### {}\n\n", markdown_escape(lt.title)) + markdown_table(lt);
        for (const auto& n : lt.notes) out += fmt::format("\n{}\n", markdown_escape(n));
    }
    if (!report.findings.empty()) {
        const Table ft = findings_table(report);
        out += "\n### Findings\n\n" + markdown_table(ft);
        for (const auto& n : ft.notes) out += fmt::format("\n{}\n", markdown_escape(n));
    }
    for (const auto& k : knee_lines(report)) out += fmt::format("\n{}\n", markdown_escape(k));
    if (report.process_startup_s >= 0)
        out += fmt::format("\nExternal tools are timed as processes: starting one costs {} here.\n",
                           format_seconds(report.process_startup_s));
    const auto warnings = report.warning_lines();
    if (!warnings.empty()) {
        out += "\n**Warnings**\n\n";
        for (const auto& w : warnings) out += fmt::format("- {}\n", markdown_escape(w));
    }
    return out;
}

}  // namespace iolab
