// The terminal exporter: draws the report's document (document.hpp) to the terminal's width, each
// table with its winner group, the next few and the slowest (every row with --all).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "iolab/report/document.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

namespace {

std::size_t utf8_length(const std::string& s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// s without its colour codes (ESC [ ... m).
std::string plain(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
            while (i < s.size() && s[i] != 'm') ++i;
            continue;
        }
        out += s[i];
    }
    return out;
}

std::string paint(const std::string& s, const char* code, bool colour) {
    return colour ? fmt::format("\x1b[{}m{}\x1b[0m", code, s) : s;
}

const char* colour_of(Tone tone) {
    switch (tone) {
        case Tone::good: return "32";
        case Tone::bad: return "31";
        case Tone::doubtful: return "33";
        case Tone::plain: break;
    }
    return "0";
}

}  // namespace

// s cut to n glyphs, never inside one, with "…" where it was cut.
std::string cut_to(std::string s, std::size_t n) {
    if (utf8_length(s) <= n) return s;
    const std::size_t keep = n > 0 ? n - 1 : 0;
    while (utf8_length(s) > keep) {
        while (!s.empty() && (s.back() & 0xC0) == 0x80) s.pop_back();  // continuation bytes
        if (!s.empty()) s.pop_back();                                  // and their lead byte
    }
    return n > 0 ? s + "\u2026" : s;
}

// Whether every row is drawn: asked for, or no row would be otherwise (a table of skipped cases).
static bool every_row(const Table& t, bool all) {
    return all || std::none_of(t.rows.begin(), t.rows.end(), [](const Row& r) { return r.shown; });
}

std::string text_table(const Table& t, bool colour, std::size_t columns, bool all) {
    all = every_row(t, all);
    // The columns this width keeps: each gives way below the width it needs.
    std::vector<std::size_t> keep;
    for (std::size_t i = 0; i < t.columns.size(); ++i)
        if (columns == 0 || t.columns[i].needs == 0 || columns >= t.columns[i].needs) keep.push_back(i);
    std::vector<const Row*> rows;
    for (const auto& r : t.rows)
        if (all || r.shown) rows.push_back(&r);
    std::vector<std::size_t> width(keep.size(), 0);
    for (std::size_t k = 0; k < keep.size(); ++k) width[k] = utf8_length(t.columns[keep[k]].name);
    // Failed and skipped rows fill only the leading columns; their reason runs on.
    for (const Row* r : rows)
        for (std::size_t k = 0; k < keep.size(); ++k)
            if (keep[k] < r->cells.size()) width[k] = std::max(width[k], utf8_length(r->cells[keep[k]]));
    // Too wide still: the text columns give way, the last first (params before names), down to 8
    // glyphs.
    const auto total = [&] {
        std::size_t w = 0;
        for (std::size_t x : width) w += x;
        return w + 2 * (width.empty() ? 0 : width.size() - 1);
    };
    while (columns > 0 && total() > columns) {
        std::size_t last = SIZE_MAX;
        for (std::size_t k = 0; k < keep.size(); ++k)
            if (t.columns[keep[k]].left && width[k] > 8) last = k;
        if (last == SIZE_MAX) break;
        width[last] -= std::min(width[last] - 8, total() - columns);
    }
    const auto cell = [&](const std::string& text, std::size_t k) {
        const std::string shown = cut_to(text, width[k]);
        const std::string pad(width[k] - std::min(width[k], utf8_length(shown)), ' ');
        return t.columns[keep[k]].left ? shown + pad : pad + shown;
    };
    const auto finish = [&](std::string l, const std::string& tail, Tone tone) {
        if (!tail.empty()) {
            const std::size_t room = columns == 0 ? SIZE_MAX : columns > utf8_length(l) ? columns - utf8_length(l) : 0;
            l += paint(cut_to(tail, room), colour_of(tone), colour);
        }
        while (!l.empty() && l.back() == ' ') l.pop_back();
        // Columns that cannot give way further: the line is cut (uncoloured) at the width.
        if (columns > 0 && utf8_length(plain(l)) > columns) l = cut_to(plain(l), columns);
        return l + "\n";
    };
    std::string out;
    const auto line = [&](const std::vector<std::string>& cells, Tone tone) {
        std::string l;
        for (std::size_t k = 0; k < keep.size(); ++k) {
            std::string c = cell(keep[k] < cells.size() ? cells[keep[k]] : std::string(), k);
            if (k == 0 && tone != Tone::plain) c = paint(c, colour_of(tone), colour);
            l += (k ? "  " : "") + c;
        }
        return finish(l, "", Tone::plain);
    };
    std::vector<std::string> names;
    for (const auto& c : t.columns) names.push_back(c.name);
    out += line(names, Tone::plain);
    for (const Row* r : rows) {
        if (r->kind == RowKind::ranked) {
            out += line(r->cells, r->tone);
            continue;
        }
        std::string l;
        for (std::size_t k = 0; k < keep.size() && keep[k] < r->cells.size(); ++k)
            l += cell(r->cells[keep[k]], k) + "  ";
        out += finish(l, r->status + ": " + r->reason, r->kind == RowKind::failed ? Tone::bad : Tone::doubtful);
    }
    return out;
}

std::vector<std::string> wrap(const std::string& text, std::size_t columns, std::size_t indent) {
    if (columns == 0 || utf8_length(text) <= columns) return {text};
    std::vector<std::string> out;
    // Leading spaces stay on the first line; the words after them are wrapped.
    std::size_t start = text.find_first_not_of(' ');
    if (start == std::string::npos) return {text};
    std::string line = text.substr(0, start);
    bool first = true;
    const std::string pad(indent, ' ');
    while (start < text.size()) {
        std::size_t end = text.find(' ', start);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(start, end - start);
        const std::string next = first ? line + word : line + " " + word;
        if (!first && utf8_length(next) > columns) {
            out.push_back(line);
            line = cut_to(pad + word, columns);
        } else {
            line = cut_to(next, columns);
        }
        first = false;
        start = end + 1;
    }
    out.push_back(line);
    return out;
}

std::string render_terminal(const Report& report, const TerminalOptions& o) {
    const Document d = build_document(report, o.all);
    const std::size_t w = o.columns;
    std::string out;
    const auto text = [&](const std::string& t, const char* code = nullptr, std::size_t indent = 2) {
        for (const auto& l : wrap(t, w, indent)) out += (code ? paint(l, code, o.colour) : l) + "\n";
    };
    text(d.title, "1");
    for (const auto& h : d.header) text(h);
    for (const Section& s : d.sections) {
        switch (s.kind) {
            case SectionKind::answer:
                out += "\n";
                text(s.title, "1");
                for (const auto& l : s.lines) text(l, nullptr, 4);
                break;
            case SectionKind::table:
            case SectionKind::ranks:
            case SectionKind::latency:
            case SectionKind::findings: {
                out += "\n";
                text(s.title, "1");
                const Table& t = *s.table;
                out += text_table(t, o.colour, w, o.all);
                const auto hidden = static_cast<std::size_t>(
                    std::count_if(t.rows.begin(), t.rows.end(), [](const Row& r) { return !r.shown; }));
                if (!every_row(t, o.all) && hidden > 0)
                    text(fmt::format("{} more row{}: --all, --markdown or --html", hidden, hidden == 1 ? "" : "s"));
                // A latency table's notes explain it once: with --all (and in the files).
                if (o.all || s.kind != SectionKind::latency)
                    for (const auto& n : t.notes) text(n);
                break;
            }
            case SectionKind::limits:
            case SectionKind::notes:
                // Brief, one line: on the line of its title's first word ("notes: *: a slice, ...",
                // "limits in GiB/s ...").
                if (!o.all && s.brief.size() == 1) {
                    out += "\n";
                    const std::string head = s.title.substr(0, s.title.find(':'));
                    bool first = true;
                    for (const auto& l : wrap(head + (s.kind == SectionKind::limits ? " " : ": ") + s.brief[0], w, 4)) {
                        out += first ? paint(l.substr(0, head.size()), "1", o.colour) + l.substr(head.size()) : l;
                        out += "\n";
                        first = false;
                    }
                    break;
                }
                [[fallthrough]];
            case SectionKind::knees:
                out += "\n";
                text(s.title, "1");
                for (const auto& l : o.all || s.brief.empty() ? s.lines : s.brief) text("  " + l, nullptr, 4);
                break;
            case SectionKind::warnings:
                out += "\n";
                text(s.title, "1;33");
                // One line each without --all, cut at the terminal's width.
                for (const auto& l : o.all ? s.lines : s.brief) {
                    if (o.all)
                        text("  - " + l, nullptr, 4);
                    else
                        out += (w ? cut_to("  - " + l, w) : "  - " + l) + "\n";
                }
                break;
            case SectionKind::environment: break;  // the header's machine line says it
        }
    }
    return out;
}

namespace {

// "8 s", "3 min 05 s", "1 h 02 min".
std::string format_duration(double s) {
    const auto t = static_cast<long long>(std::llround(std::max(0.0, s)));
    if (t < 60) return fmt::format("{} s", t);
    if (t < 3600) return fmt::format("{} min {:02} s", t / 60, t % 60);
    return fmt::format("{} h {:02} min", t / 3600, t % 3600 / 60);
}

}  // namespace

std::string progress_line(double done, std::size_t index, std::size_t total, const std::string& label, double elapsed_s,
                          double measuring_s, std::size_t columns) {
    constexpr std::size_t kCells = 20;
    done = std::clamp(done, 0.0, 1.0);
    const auto full = static_cast<std::size_t>(done * static_cast<double>(kCells) + 0.5);
    std::string bar;
    for (std::size_t i = 0; i < kCells; ++i) bar += i < full ? "\u2588" : "\u2591";
    // The time left at the pace of the measuring so far; none until there is something to go by.
    const std::string left = done >= 0.01 && measuring_s >= 0.5
                                 ? fmt::format("~{} left", format_duration(measuring_s * (1 - done) / done))
                                 : std::string("estimating the time left");
    const std::string tail = fmt::format("  {} elapsed, {}", format_duration(elapsed_s), left);
    const std::string head = fmt::format("{} {:3}% [{}/{}] ", bar, static_cast<int>(done * 100), index + 1, total);
    // Cuts s to n glyphs, never inside one.
    const auto cut = [](std::string& s, std::size_t n) {
        while (utf8_length(s) > n) {
            while (!s.empty() && (s.back() & 0xC0) == 0x80) s.pop_back();  // continuation bytes
            if (!s.empty()) s.pop_back();                                  // and their lead byte
        }
    };
    // The case's label gives way when the terminal is narrow.
    const std::size_t fixed = utf8_length(head) + utf8_length(tail);
    std::string name = label;
    if (fixed + utf8_length(name) > columns) {
        const std::size_t keep = columns > fixed + 1 ? columns - fixed - 1 : 0;
        cut(name, keep);
        if (!label.empty() && keep > 0) name += "\u2026";
    }
    std::string line = head + name + tail;
    cut(line, columns);  // narrower than the fixed parts
    return line;
}

}  // namespace iolab
