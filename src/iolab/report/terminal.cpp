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

namespace {

// A table laid out for a terminal: the columns its width keeps and each one's width in glyphs.
struct TextLayout {
    const Table& t;
    bool colour;
    std::size_t columns;            // the terminal's width (0: no limit)
    std::vector<std::size_t> keep;  // the table's columns drawn, in order
    std::vector<std::size_t> width;

    std::size_t total() const {
        std::size_t w = 0;
        for (std::size_t x : width) w += x;
        return w + 2 * (width.empty() ? 0 : width.size() - 1);
    }
    // Too wide still: the text columns give way, the last first (params before names), down to 8
    // glyphs.
    void narrow() {
        while (columns > 0 && total() > columns) {
            std::size_t last = SIZE_MAX;
            for (std::size_t k = 0; k < keep.size(); ++k)
                if (t.columns[keep[k]].left && width[k] > 8) last = k;
            if (last == SIZE_MAX) break;
            width[last] -= std::min(width[last] - 8, total() - columns);
        }
    }
    std::string cell(const std::string& text, std::size_t k) const {
        const std::string shown = cut_to(text, width[k]);
        const std::string pad(width[k] - std::min(width[k], utf8_length(shown)), ' ');
        return t.columns[keep[k]].left ? shown + pad : pad + shown;
    }
    // The line with its tail (a failed or skipped row's "status: reason") in the room left.
    std::string finish(std::string l, const std::string& tail, Tone tone) const {
        if (!tail.empty()) {
            const std::size_t room = columns == 0 ? SIZE_MAX : columns > utf8_length(l) ? columns - utf8_length(l) : 0;
            l += paint(cut_to(tail, room), colour_of(tone), colour);
        }
        while (!l.empty() && l.back() == ' ') l.pop_back();
        // Columns that cannot give way further: the line is cut (uncoloured) at the width.
        if (columns > 0 && utf8_length(plain(l)) > columns) l = cut_to(plain(l), columns);
        return l + "\n";
    }
    // A line of every kept column, the first coloured by the row's tone.
    std::string line(const std::vector<std::string>& cells, Tone tone) const {
        std::string l;
        for (std::size_t k = 0; k < keep.size(); ++k) {
            std::string c = cell(keep[k] < cells.size() ? cells[keep[k]] : std::string(), k);
            if (k == 0 && tone != Tone::plain) c = paint(c, colour_of(tone), colour);
            l += (k ? "  " : "") + c;
        }
        return finish(l, "", Tone::plain);
    }
    // A failed or skipped row: its leading cells, then its status and reason.
    std::string unranked_line(const Row& r) const {
        std::string l;
        for (std::size_t k = 0; k < keep.size() && keep[k] < r.cells.size(); ++k) l += cell(r.cells[keep[k]], k) + "  ";
        return finish(l, r.status + ": " + r.reason, r.kind == RowKind::failed ? Tone::bad : Tone::doubtful);
    }
};

// The columns this width keeps: each gives way below the width it needs.
std::vector<std::size_t> kept_columns(const Table& t, std::size_t columns) {
    std::vector<std::size_t> keep;
    for (std::size_t i = 0; i < t.columns.size(); ++i)
        if (columns == 0 || t.columns[i].needs == 0 || columns >= t.columns[i].needs) keep.push_back(i);
    return keep;
}

// Each kept column as wide as its name and its widest cell. Failed and skipped rows fill only the
// leading columns; their reason runs on.
std::vector<std::size_t> column_widths(const Table& t, const std::vector<std::size_t>& keep,
                                       const std::vector<const Row*>& rows) {
    std::vector<std::size_t> width(keep.size(), 0);
    for (std::size_t k = 0; k < keep.size(); ++k) width[k] = utf8_length(t.columns[keep[k]].name);
    for (const Row* r : rows)
        for (std::size_t k = 0; k < keep.size(); ++k)
            if (keep[k] < r->cells.size()) width[k] = std::max(width[k], utf8_length(r->cells[keep[k]]));
    return width;
}

}  // namespace

std::string text_table(const Table& t, bool colour, std::size_t columns, bool all) {
    all = every_row(t, all);
    std::vector<const Row*> rows;
    for (const auto& r : t.rows)
        if (all || r.shown) rows.push_back(&r);
    TextLayout layout{t, colour, columns, kept_columns(t, columns), {}};
    layout.width = column_widths(t, layout.keep, rows);
    layout.narrow();
    std::vector<std::string> names;
    for (const auto& c : t.columns) names.push_back(c.name);
    std::string out = layout.line(names, Tone::plain);
    for (const Row* r : rows)
        out += r->kind == RowKind::ranked ? layout.line(r->cells, r->tone) : layout.unranked_line(*r);
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

namespace {

// The report's sections drawn one after another at the terminal's width.
class TerminalText {
public:
    explicit TerminalText(const TerminalOptions& o) : o_(o) {}

    // Text wrapped at the width, the lines after the first indented; in bold or a colour when given.
    void text(const std::string& t, const char* code = nullptr, std::size_t indent = 2) {
        for (const auto& l : wrap(t, o_.columns, indent)) out_ += (code ? paint(l, code, o_.colour) : l) + "\n";
    }
    // A section's title after a blank line.
    void heading(const std::string& title, const char* code = "1") {
        out_ += "\n";
        text(title, code);
    }
    // A table, its rows that a terminal shows (every row with --all), and its notes.
    void table(const Section& s) {
        heading(s.title);
        for (const auto& l : s.lines) text(l);
        const Table& t = *s.table;
        if (!t.rows.empty()) out_ += text_table(t, o_.colour, o_.columns, o_.all);
        const auto hidden = static_cast<std::size_t>(
            std::count_if(t.rows.begin(), t.rows.end(), [](const Row& r) { return !r.shown; }));
        if (!every_row(t, o_.all) && hidden > 0)
            text(fmt::format("{} more row{}: --all, --markdown or --html", hidden, hidden == 1 ? "" : "s"));
        // A latency table's notes explain it once: with --all (and in the files).
        if (o_.all || !s.notes_need_all)
            for (const auto& n : t.notes) text(n);
    }
    // A brief section of one line, on the line of its title's first word ("notes: *: a slice,
    // ...", "limits in GiB/s ...").
    void brief_line(const Section& s) {
        out_ += "\n";
        const std::string head = s.title.substr(0, s.title.find(':'));
        bool first = true;
        for (const auto& l : wrap(head + std::string(s.brief_join) + s.brief[0], o_.columns, 4)) {
            out_ += first ? paint(l.substr(0, head.size()), "1", o_.colour) + l.substr(head.size()) : l;
            out_ += "\n";
            first = false;
        }
    }
    // A section of lines under its title: every line with --all, else its brief ones when it has.
    void lines(const Section& s) {
        heading(s.title);
        for (const auto& l : o_.all || s.brief.empty() ? s.lines : s.brief) text("  " + l, nullptr, 4);
    }
    // One line each without --all, cut at the terminal's width.
    void warnings(const Section& s) {
        heading(s.title, "1;33");
        for (const auto& l : o_.all ? s.lines : s.brief) {
            if (o_.all)
                text("  - " + l, nullptr, 4);
            else
                out_ += (o_.columns ? cut_to("  - " + l, o_.columns) : "  - " + l) + "\n";
        }
    }
    std::string take() { return std::move(out_); }

private:
    const TerminalOptions& o_;
    std::string out_;
};

}  // namespace

std::string render_terminal(const Report& report, const TerminalOptions& o) {
    const Document d = build_document(report, o.all);
    TerminalText out(o);
    out.text(d.title, "1");
    for (const auto& h : d.header) out.text(h);
    for (const Section& s : d.sections) {
        if (s.in_header || (s.needs_all && !o.all)) continue;
        switch (s.form) {
            case SectionForm::list:
                out.heading(s.title);
                for (const auto& l : s.lines) out.text(l, nullptr, 4);
                break;
            case SectionForm::table: out.table(s); break;
            case SectionForm::lines:
                if (!o.all && s.brief.size() == 1)
                    out.brief_line(s);
                else
                    out.lines(s);
                break;
            case SectionForm::alerts: out.warnings(s); break;
        }
    }
    return out.take();
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
