// The Markdown exporter: the report's document (document.hpp), every row, ready to paste into an issue or a post.
#include <fmt/format.h>

#include <cctype>

#include "iolab/report/document.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

std::string markdown_escape(const std::string& s) {
    std::string e;
    for (char c : s) {
        // A cell's "<b>" is text, not a tag a viewer would draw.
        if (c == '<')
            e += "&lt;";
        else if (c == '|')
            e += "\\|";
        else
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
    const Document d = build_document(report);
    std::string out = fmt::format("## {}\n", markdown_escape(d.title));
    for (const auto& h : d.header) out += fmt::format("\n{}\n", markdown_escape(h));
    if (d.partial) out += "\n**PARTIAL**: a signal stopped the run; the cases measured before it are here.\n";
    for (const Section& s : d.sections) {
        // Headings as the terminal's titles, the first letter raised (not a name's).
        std::string title = s.title;
        if (!title.empty() && !s.title_as_is)
            title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
        switch (s.form) {
            case SectionForm::list:
                out += fmt::format("\n### {}\n\n", markdown_escape(title));
                for (const auto& l : s.lines) out += fmt::format("- {}\n", markdown_escape(l));
                break;
            case SectionForm::table:
                out += fmt::format("\n### {}\n\n", markdown_escape(title));
                for (const auto& l : s.lines) out += fmt::format("{}\n\n", markdown_escape(l));
                if (!s.table->rows.empty()) out += markdown_table(*s.table);
                for (const auto& n : s.table->notes) out += fmt::format("\n{}\n", markdown_escape(n));
                break;
            case SectionForm::lines:
            case SectionForm::alerts:
                out += fmt::format("\n**{}**\n\n", markdown_escape(title));
                for (const auto& l : s.lines) out += fmt::format("- {}\n", markdown_escape(l));
                break;
        }
    }
    return out;
}

}  // namespace iolab
