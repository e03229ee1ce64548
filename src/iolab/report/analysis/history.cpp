#include "iolab/report/analysis/history.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

#include <fmt/format.h>

#include "iolab/core/units.hpp"
#include "iolab/harness/ratio.hpp"
#include "iolab/report/analysis/compare.hpp"

namespace iolab {

namespace {

// "2 cpus Intel(R) Xeon(R) ..., 24 GiB, ext4 on QEMU HARDDISK": what tells machines apart
// (machine_differences), as one line.
std::string describe(const Environment& e) {
    std::vector<std::string> parts;
    if (e.cpus > 0 || !e.cpu_model.empty())
        parts.push_back(one_line(fmt::format("{}{}", e.cpus > 0 ? fmt::format("{} cpus ", e.cpus) : "", e.cpu_model)));
    if (e.memory_bytes > 0) parts.push_back(format_size(e.memory_bytes));
    if (!e.fs_type.empty())
        parts.push_back(one_line(e.fs_type + (e.device_model.empty() ? "" : " on " + e.device_model)));
    return parts.empty() ? "a machine the run does not describe" : fmt::format("{}", fmt::join(parts, ", "));
}

// "2026-12-06 01:02": a run's ISO 8601 date to the minute ("-": none).
std::string minute(const std::string& date) {
    return date.size() >= 16 ? date.substr(0, 10) + " " + date.substr(11, 5) : date.empty() ? "-" : one_line(date);
}

std::string percent(double fraction) { return fmt::format("{:g}%", 100 * fraction); }

std::string interval_text(const CaseChange& c) {
    return c.ratio > 0 ? fmt::format("[{:.3f}, {:.3f}]", c.low, c.high) : "-";
}

// "slower by more than 5%", "faster by more than 5%", or the comparison's own verdict.
std::string change_text(const HistoryLine& l, double threshold) {
    if (!l.last) return "-";
    if (l.beyond)
        return fmt::format("{} beyond {}", l.last->change == Change::slower ? "slower" : "faster", percent(threshold));
    return std::string(to_string(l.last->change));
}

}  // namespace

History build_history(const std::vector<std::pair<const Report*, std::string>>& given, const GateSettings& gate) {
    History h;
    h.gate = gate;
    // Date order; files without a date first, each set in the order given.
    std::vector<std::size_t> order(given.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return given[a].first->environment.date < given[b].first->environment.date;
    });
    std::vector<const Environment*> machines;  // the first run of each
    std::vector<const Report*> reports;
    for (const std::size_t i : order) {
        const Report& r = *given[i].first;
        HistoryRun run{one_line(given[i].second), r.environment.date, r.environment.commit, 0, 0, r.partial};
        const auto same = std::find_if(machines.begin(), machines.end(), [&](const Environment* e) {
            return machine_differences(*e, r.environment).empty();
        });
        run.machine = static_cast<std::size_t>(same - machines.begin());
        if (same == machines.end()) {
            machines.push_back(&r.environment);
            h.machines.push_back(describe(r.environment));
        }
        run.cases = static_cast<std::size_t>(
            std::count_if(r.cases.begin(), r.cases.end(), [](const CaseResult& c) { return c.ranked(); }));
        h.runs.push_back(std::move(run));
        reports.push_back(&r);
    }
    // One line per machine, options and case; a case twice in one run is drawn once, its first.
    using Key = std::tuple<std::size_t, std::string, std::string>;
    std::map<Key, std::size_t> index;
    std::vector<std::vector<const CaseResult*>> found;
    std::vector<std::string> options_of;
    for (std::size_t run = 0; run < reports.size(); ++run)
        for (const CaseResult& c : reports[run]->cases) {
            if (!c.ranked()) continue;
            const Key key{h.runs[run].machine, options_text(reports[run]->options_of(c)), matched_label(c)};
            auto [it, added] = index.try_emplace(key, h.lines.size());
            if (added) {
                HistoryLine line;
                line.label = std::get<2>(key);
                line.machine = h.runs[run].machine;
                line.points.resize(reports.size());
                h.lines.push_back(std::move(line));
                found.emplace_back(reports.size(), nullptr);
                options_of.push_back(std::get<1>(key));
            }
            if (found[it->second][run]) continue;
            found[it->second][run] = &c;
            const auto [low, high] = rate_interval(c);
            h.lines[it->second].points[run] = HistoryPoint{c.throughput_mib_s, low, high};
        }
    // A case measured under other options is another line, its options named.
    for (std::size_t i = 0; i < h.lines.size(); ++i) {
        const bool several = std::any_of(index.begin(), index.end(), [&](const auto& e) {
            return std::get<2>(e.first) == h.lines[i].label && std::get<1>(e.first) != options_of[i];
        });
        if (several) h.lines[i].label += " (" + options_of[i] + ")";
    }
    for (std::size_t i = 0; i < h.lines.size(); ++i) {
        HistoryLine& l = h.lines[i];
        std::vector<std::size_t> with;
        for (std::size_t run = 0; run < found[i].size(); ++run)
            if (found[i][run]) with.push_back(run);
        if (with.size() < 2) continue;
        l.from = with[with.size() - 2];
        l.to = with.back();
        l.last = compare_case(*found[i][l.from], *found[i][l.to], gate);
        l.last->label = l.label;
        const double t = gate.threshold;
        l.beyond = l.last->ratio > 0 && (l.last->low > 1 + t || l.last->high < 1 / (1 + t));
    }
    return h;
}

Table history_runs_table(const History& h) {
    Table t;
    t.title = "the runs, in date order";
    t.columns = {{"#"}, {"measured (UTC)", true}, {"commit", true}, {"machine"}, {"cases"}, {"run", true}};
    for (std::size_t i = 0; i < h.runs.size(); ++i) {
        const HistoryRun& r = h.runs[i];
        Row row;
        row.cells = {fmt::format("{}", i + 1),
                     minute(r.date),
                     r.commit.empty() ? "-" : one_line(r.commit),
                     fmt::format("{}", r.machine + 1),
                     fmt::format("{}", r.cases),
                     r.name + (r.partial ? " (partial: a signal stopped it)" : "")};
        t.rows.push_back(std::move(row));
    }
    return t;
}

Table history_changes_table(const History& h) {
    Table t;
    t.title = fmt::format("the cases whose last change went beyond {}", percent(h.gate.threshold));
    // The verdict first, as the findings' tables have it.
    t.columns = {{"change", true}, {"case", true}, {"runs"},        {"MiB/s before"},
                 {"MiB/s after"},  {"time ratio"}, {"99% interval"}};
    if (h.machines.size() > 1) t.columns.insert(t.columns.begin() + 2, Column{"machine"});
    for (const HistoryLine& l : h.lines) {
        if (!l.beyond) continue;
        Row row;
        row.cells = {change_text(l, h.gate.threshold),
                     l.label,
                     fmt::format("#{} to #{}", l.from + 1, l.to + 1),
                     format_figure(l.last->before_mib_s),
                     format_figure(l.last->after_mib_s),
                     fmt::format("{:.3f}", l.last->ratio),
                     interval_text(*l.last)};
        row.tone = l.last->change == Change::slower ? Tone::bad : Tone::good;
        if (h.machines.size() > 1) row.cells.insert(row.cells.begin() + 2, fmt::format("{}", l.machine + 1));
        t.rows.push_back(std::move(row));
    }
    return t;
}

Table history_lines_table(const History& h) {
    Table t;
    t.title = "each case's median MiB/s in each run (-: not measured there)";
    t.columns = {{"case", true}};
    if (h.machines.size() > 1) t.columns.push_back({"machine"});
    for (std::size_t i = 0; i < h.runs.size(); ++i) t.columns.push_back({fmt::format("#{}", i + 1)});
    t.columns.push_back({"last change", true});
    for (const HistoryLine& l : h.lines) {
        Row row;
        row.cells = {l.label};
        if (h.machines.size() > 1) row.cells.push_back(fmt::format("{}", l.machine + 1));
        for (const auto& p : l.points) row.cells.push_back(p ? format_figure(p->mib_s) : "-");
        row.cells.push_back(!l.last ? "-"
                                    : fmt::format("{} {:.3f}x {}", change_text(l, h.gate.threshold), l.last->ratio,
                                                  interval_text(*l.last)));
        t.rows.push_back(std::move(row));
    }
    return t;
}

std::vector<std::string> history_lines(const History& h) {
    std::vector<std::string> out;
    if (h.runs.empty()) return out;
    out.push_back(fmt::format(
        "{} run(s) from {} to {} UTC, {}", h.runs.size(), minute(h.runs.front().date), minute(h.runs.back().date),
        h.machines.size() == 1 ? "on one machine: " + h.machines.front()
                               : fmt::format("on {} machines, each case drawn once for each", h.machines.size())));
    if (h.machines.size() > 1)
        for (std::size_t m = 0; m < h.machines.size(); ++m)
            out.push_back(fmt::format("machine {}: {}", m + 1, h.machines[m]));
    const auto lasts = std::count_if(h.lines.begin(), h.lines.end(), [](const HistoryLine& l) { return l.last; });
    const auto beyond = std::count_if(h.lines.begin(), h.lines.end(), [](const HistoryLine& l) { return l.beyond; });
    out.push_back(lasts == 0    ? "no case was measured in two runs on one machine: nothing changed to compare"
                  : beyond == 0 ? fmt::format("no case's last change went beyond {} ({} compared)",
                                              percent(h.gate.threshold), lasts)
                                : fmt::format("{} of {} case(s) changed beyond {} at their last change", beyond, lasts,
                                              percent(h.gate.threshold)));
    const auto partial = std::count_if(h.runs.begin(), h.runs.end(), [](const HistoryRun& r) { return r.partial; });
    if (partial > 0)
        out.push_back(fmt::format("{} run(s) were stopped by a signal: cases they did not reach are missing", partial));
    out.push_back(fmt::format(
        "a change is the case's latest run against its run before on the same machine, time per byte after over "
        "before with its 99% interval widened by {} for the spread between runs ({}); it goes beyond {} when the "
        "whole interval does (the band drawn around the latest median)",
        percent(h.gate.between), h.gate.between_source, percent(h.gate.threshold)));
    return out;
}

std::string render_history(const History& h, bool colour, std::size_t columns) {
    std::string out;
    for (const auto& l : history_lines(h))
        for (const auto& w : wrap(l, columns)) out += w + "\n";
    for (const Table& t : {history_runs_table(h), history_changes_table(h), history_lines_table(h)}) {
        if (t.rows.empty()) continue;
        out += "\n" + t.title + "\n" + text_table(t, colour, columns);
    }
    return out;
}

}  // namespace iolab
