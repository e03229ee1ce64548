// The terminal exporter: the header, a table per group and family, the findings, the warnings.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "iolab/report/exporter.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

namespace {

std::size_t utf8_length(const std::string& s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
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

std::string text_table(const Table& t, bool colour) {
    std::vector<std::size_t> width(t.columns.size(), 0);
    for (std::size_t i = 0; i < t.columns.size(); ++i) width[i] = utf8_length(t.columns[i].name);
    // Failed and skipped rows fill only the leading columns; their reason runs on.
    for (const auto& r : t.rows)
        for (std::size_t i = 0; i < r.cells.size() && i < width.size(); ++i)
            width[i] = std::max(width[i], utf8_length(r.cells[i]));
    const auto cell = [&](const std::string& text, std::size_t i) {
        const std::string pad(width[i] - std::min(width[i], utf8_length(text)), ' ');
        return t.columns[i].left ? text + pad : pad + text;
    };
    const auto finish = [](std::string l) {
        while (!l.empty() && l.back() == ' ') l.pop_back();
        return l + "\n";
    };
    std::vector<std::string> names;
    for (const auto& c : t.columns) names.push_back(c.name);
    std::string out;
    const auto line = [&](const std::vector<std::string>& cells, Tone tone) {
        std::string l;
        for (std::size_t i = 0; i < cells.size(); ++i) {
            std::string c = cell(cells[i], i);
            if (i == 0 && tone != Tone::plain) c = paint(c, colour_of(tone), colour);
            l += (i ? "  " : "") + c;
        }
        return finish(l);
    };
    out += line(names, Tone::plain);
    for (const auto& r : t.rows) {
        if (r.kind == RowKind::ranked) {
            out += line(r.cells, r.tone);
            continue;
        }
        std::string l;
        for (std::size_t i = 0; i < r.cells.size(); ++i) l += cell(r.cells[i], i) + "  ";
        const Tone tone = r.kind == RowKind::failed ? Tone::bad : Tone::doubtful;
        out += finish(l + paint(r.status + ": " + r.reason, colour_of(tone), colour));
    }
    return out;
}

std::string render_terminal(const Report& report, bool colour) {
    std::string out = paint(report.header(), "1", colour) + "\n";
    for (const Table& t : ranked_tables(report)) {
        out += fmt::format("\n{}\n", paint(t.title, "1", colour));
        out += text_table(t, colour);
        for (const auto& n : t.notes) out += n + "\n";
    }
    if (const Table rt = rank_table(report); !rt.rows.empty()) {
        out += fmt::format("\n{}\n", paint(rt.title, "1", colour));
        out += text_table(rt, colour);
    }
    if (const Table lt = latency_table(report); !lt.rows.empty()) {
        out += fmt::format("\n{}\n", paint(lt.title, "1", colour));
        out += text_table(lt, colour);
        for (const auto& n : lt.notes) out += n + "\n";
    }
    if (!report.findings.empty()) {
        out += fmt::format("\n{}\n", paint("findings", "1", colour));
        const Table ft = findings_table(report);
        out += text_table(ft, colour);
        for (const auto& n : ft.notes) out += n + "\n";
    }
    for (const auto& k : knee_lines(report)) out += k + "\n";
    if (report.process_startup_s >= 0)
        out += fmt::format(
            "external tools are timed as processes: starting one costs {} here (median of 20 runs "
            "of 'true'), included in their times\n",
            format_seconds(report.process_startup_s));
    const auto warnings = report.warning_lines();
    if (!warnings.empty()) {
        out += fmt::format("\n{}\n", paint("warnings", "1;33", colour));
        for (const auto& w : warnings) out += fmt::format("  - {}\n", w);
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
