#include "iolab/report/markdown.hpp"

#include <fmt/format.h>

#include "iolab/report/table.hpp"

namespace iolab {

namespace {
std::string escape(const std::string& s) {
    std::string e;
    for (char c : s) {
        if (c == '|') e += '\\';
        e += c;
    }
    return e;
}
}  // namespace

std::string to_markdown(const Report& report) {
    const std::string header = report.header();
    const auto nl = header.find('\n');
    std::string out = fmt::format("## {}\n", escape(header.substr(0, nl)));
    if (nl != std::string::npos) out += fmt::format("\n{}\n", escape(header.substr(nl + 1)));
    for (const Table& t : ranked_tables(report)) {
        out += fmt::format("\n### {}\n\n", escape(t.title));
        std::vector<std::string> cols;
        for (const auto& c : t.columns) cols.push_back(escape(c));
        out += fmt::format("| {} |\n|", fmt::join(cols, " | "));
        for (std::size_t i = 0; i < t.columns.size(); ++i) out += (i == 1 || i == 2) ? " --- |" : " ---: |";
        out += "\n";
        for (const auto& r : t.rows) {
            std::vector<std::string> cells;
            if (r.status == Status::ok) {
                for (const auto& c : r.cells) cells.push_back(escape(c));
            } else {
                cells = {r.cells[0], escape(r.cells[1]), escape(r.cells[2]),
                         escape(fmt::format("{}: {}", r.cells[3], r.cells[4]))};
                while (cells.size() < t.columns.size()) cells.push_back("");
            }
            out += fmt::format("| {} |\n", fmt::join(cells, " | "));
        }
        for (const auto& n : t.notes) out += fmt::format("\n{}\n", escape(n));
    }
    if (!report.findings.empty()) {
        const Table ft = findings_table(report);
        out += "\n### Findings\n\n";
        std::vector<std::string> cols;
        for (const auto& c : ft.columns) cols.push_back(escape(c));
        out += fmt::format("| {} |\n|", fmt::join(cols, " | "));
        for (std::size_t i = 0; i < ft.columns.size(); ++i) out += " --- |";
        out += "\n";
        for (const auto& r : ft.rows) {
            std::vector<std::string> cells;
            for (const auto& c : r.cells) cells.push_back(escape(c));
            out += fmt::format("| {} |\n", fmt::join(cells, " | "));
        }
    }
    for (const auto& k : knee_lines(report)) out += fmt::format("\n{}\n", escape(k));
    if (report.process_startup_s >= 0)
        out += fmt::format("\nExternal tools are timed as processes: starting one costs {} here.\n",
                           format_seconds(report.process_startup_s));
    const auto warnings = report.warning_lines();
    if (!warnings.empty()) {
        out += "\n**Warnings**\n\n";
        for (const auto& w : warnings) out += fmt::format("- {}\n", escape(w));
    }
    return out;
}

}  // namespace iolab
