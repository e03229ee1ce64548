#include "iolab/report/analysis/history.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>
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

// A run says what its machine is: its processor (or count of them) and its memory. One that does
// not is a machine of its own: it is never joined with another on a line.
bool described(const Environment& e) { return (e.cpus > 0 || !e.cpu_model.empty()) && e.memory_bytes > 0; }

// An ISO 8601 date and time ("2026-12-06T01:02:03Z", "...03.5+02:00") as seconds since the epoch,
// in UTC; nothing for anything else.
std::optional<std::int64_t> epoch_of(const std::string& d) {
    const auto digits = [&](std::size_t at, std::size_t n) -> std::optional<int> {
        if (at + n > d.size()) return std::nullopt;
        int v = 0;
        for (std::size_t i = at; i < at + n; ++i) {
            if (!std::isdigit(static_cast<unsigned char>(d[i]))) return std::nullopt;
            v = v * 10 + (d[i] - '0');
        }
        return v;
    };
    const auto y = digits(0, 4), mo = digits(5, 2), da = digits(8, 2), h = digits(11, 2), mi = digits(14, 2),
               s = digits(17, 2);
    if (!y || !mo || !da || !h || !mi || !s || d.size() < 20 || d[4] != '-' || d[7] != '-' ||
        (d[10] != 'T' && d[10] != ' ') || d[13] != ':' || d[16] != ':' || *mo < 1 || *mo > 12 || *da < 1 || *da > 31 ||
        *h > 23 || *mi > 59 || *s > 59)
        return std::nullopt;
    std::size_t at = 19;
    if (d[at] == '.') {
        ++at;
        while (at < d.size() && std::isdigit(static_cast<unsigned char>(d[at]))) ++at;
    }
    int offset = 0;
    if (at + 1 == d.size() && d[at] == 'Z') {
    } else if (at + 6 == d.size() && (d[at] == '+' || d[at] == '-') && d[at + 3] == ':') {
        const auto oh = digits(at + 1, 2), om = digits(at + 4, 2);
        if (!oh || !om || *oh > 23 || *om > 59) return std::nullopt;
        offset = (d[at] == '+' ? 1 : -1) * (*oh * 3600 + *om * 60);
    } else {
        return std::nullopt;
    }
    std::tm tm{};
    tm.tm_year = *y - 1900;
    tm.tm_mon = *mo - 1;
    tm.tm_mday = *da;
    tm.tm_hour = *h;
    tm.tm_min = *mi;
    tm.tm_sec = *s;
    const std::time_t t = ::timegm(&tm);
    // A day the month does not have (2026-02-31) comes back as another.
    std::tm back{};
    ::gmtime_r(&t, &back);
    if (back.tm_mday != *da || back.tm_mon != *mo - 1) return std::nullopt;
    return static_cast<std::int64_t>(t) - offset;
}

// "2026-12-06 01:02", in UTC.
std::string utc_minute(std::int64_t epoch) {
    const std::time_t t = static_cast<std::time_t>(epoch);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                       tm.tm_min);
}

std::string interval_text(const CaseChange& c) {
    return c.ratio > 0 ? fmt::format("[{:.3f}, {:.3f}]", c.low, c.high) : "-";
}

// The runs in date order, each with its machine: a run joins a machine when it is described and
// differs from none of that machine's runs (machine_differences) in what makes a machine fast.
void put_in_order(History& h, const std::vector<std::pair<const Report*, std::string>>& given,
                  std::vector<const Report*>& reports) {
    std::vector<std::optional<std::int64_t>> when;
    for (const auto& [r, name] : given) {
        const std::string& date = r->environment.date;
        when.push_back(date.empty() ? std::nullopt : epoch_of(date));
        if (!date.empty() && !when.back())
            throw InputError(one_line(fmt::format(
                "invalid date '{}' in {}: expected ISO 8601 in UTC or with an offset (2026-12-06T01:02:03Z)", date,
                name)));
    }
    std::vector<std::size_t> order(given.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return when[a] < when[b]; });
    std::vector<std::vector<const Environment*>> machines;  // every run of each
    for (const std::size_t i : order) {
        const Report& r = *given[i].first;
        HistoryRun run{one_line(given[i].second),
                       when[i] ? utc_minute(*when[i]) : "",
                       one_line(r.environment.commit),
                       0,
                       0,
                       r.partial};
        const auto same = std::find_if(machines.begin(), machines.end(), [&](const auto& runs) {
            return described(r.environment) && std::all_of(runs.begin(), runs.end(), [&](const Environment* e) {
                       return described(*e) && machine_differences(*e, r.environment).empty();
                   });
        });
        run.machine = static_cast<std::size_t>(same - machines.begin());
        if (same == machines.end()) {
            machines.emplace_back();
            h.machines.push_back(describe(r.environment));
        }
        machines[run.machine].push_back(&r.environment);
        run.cases = static_cast<std::size_t>(
            std::count_if(r.cases.begin(), r.cases.end(), [](const CaseResult& c) { return c.ranked(); }));
        h.runs.push_back(std::move(run));
        reports.push_back(&r);
    }
}

// What a case was measured under, beyond its label: the run's options, and its MPI ranks.
std::string conditions(const Report& r, const CaseResult& c) {
    const std::size_t ranks = std::max<std::size_t>(1, r.environment.hosts.size());
    return options_text(r.options_of(c)) + (ranks > 1 ? fmt::format(", {} MPI ranks", ranks) : "");
}

// As a gate, of the latest run's machine (History::tripped, missing, gated).
void judge_latest(History& h) {
    if (h.runs.empty()) return;
    const std::size_t latest = h.runs.size() - 1, machine = h.runs[latest].machine;
    std::optional<std::size_t> before;  // that machine's run before its latest
    for (std::size_t i = latest; i-- > 0;)
        if (h.runs[i].machine == machine) {
            before = i;
            break;
        }
    for (const HistoryLine& l : h.lines) {
        if (l.machine != machine) continue;
        if (before && l.points[*before] && !l.points[latest])
            h.missing.push_back(
                fmt::format("{}: measured in {} and not in {}", l.label, h.runs[*before].name, h.runs[latest].name));
        if (!l.last || l.to != latest || l.last->ratio <= 0) continue;
        h.gated = true;
        if (l.slower_beyond()) h.tripped.push_back(l.label);
    }
}

}  // namespace

std::string percent(double fraction) { return fmt::format("{:g}%", 100 * fraction); }

bool History::gate_failed() const {
    return !tripped.empty() || !missing.empty() || !gated || (!runs.empty() && runs.back().partial);
}

History build_history(const std::vector<std::pair<const Report*, std::string>>& given, const GateSettings& gate) {
    History h;
    h.gate = gate;
    std::vector<const Report*> reports;
    put_in_order(h, given, reports);
    // One line per machine, conditions and case; a case twice in one run is drawn once, its first.
    using Key = std::tuple<std::size_t, std::string, std::string>;
    std::map<Key, std::size_t> index;
    std::vector<std::vector<const CaseResult*>> found;
    std::vector<std::string> conditions_of;
    for (std::size_t run = 0; run < reports.size(); ++run)
        for (const CaseResult& c : reports[run]->cases) {
            if (!c.ranked()) continue;
            const Key key{h.runs[run].machine, conditions(*reports[run], c), matched_label(c)};
            auto [it, added] = index.try_emplace(key, h.lines.size());
            if (added) {
                HistoryLine line;
                line.label = std::get<2>(key);
                line.machine = h.runs[run].machine;
                line.points.resize(reports.size());
                h.lines.push_back(std::move(line));
                found.emplace_back(reports.size(), nullptr);
                conditions_of.push_back(std::get<1>(key));
            }
            if (found[it->second][run]) continue;
            found[it->second][run] = &c;
            const auto [low, high] = rate_interval(c);
            h.lines[it->second].points[run] = HistoryPoint{c.throughput_mib_s, low, high};
        }
    // A case measured under other conditions (cache cold against warm, other ranks) is another
    // line, which names them.
    for (std::size_t i = 0; i < h.lines.size(); ++i) {
        const bool several = std::any_of(index.begin(), index.end(), [&](const auto& e) {
            return std::get<2>(e.first) == h.lines[i].label && std::get<1>(e.first) != conditions_of[i];
        });
        if (several) h.lines[i].label += " (" + conditions_of[i] + ")";
    }
    const double t = gate.threshold;
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
        if (l.last->ratio <= 0) continue;
        l.against = l.last->low > 1 + t || l.last->high < 1 / (1 + t)     ? Against::beyond
                    : l.last->low >= 1 / (1 + t) && l.last->high <= 1 + t ? Against::within
                                                                          : Against::untold;
    }
    judge_latest(h);
    return h;
}

std::string change_text(const HistoryLine& l, double threshold) {
    if (!l.last) return "-";
    switch (l.against) {
        case Against::beyond:
            return fmt::format("{} beyond {}", l.last->change == Change::slower ? "slower" : "faster",
                               percent(threshold));
        case Against::within: return "within " + percent(threshold);
        case Against::untold: return "not told apart from " + percent(threshold);
        case Against::none: break;
    }
    return "no time to compare";
}

Table history_runs_table(const History& h) {
    Table t;
    t.title = "the runs, in date order";
    t.columns = {{"#"}, {"measured (UTC)", true}, {"commit", true}, {"machine"}, {"cases"}, {"run", true}};
    for (std::size_t i = 0; i < h.runs.size(); ++i) {
        const HistoryRun& r = h.runs[i];
        Row row;
        row.cells = {fmt::format("{}", i + 1),          r.date.empty() ? "-" : r.date,
                     r.commit.empty() ? "-" : r.commit, fmt::format("{}", r.machine + 1),
                     fmt::format("{}", r.cases),        r.name + (r.partial ? " (partial: a signal stopped it)" : "")};
        t.rows.push_back(std::move(row));
    }
    return t;
}

Table history_changes_table(const History& h) {
    Table t;
    t.title = fmt::format("the cases whose last change went beyond {}", percent(h.gate.threshold));
    // The verdict first, as the findings' tables have it; on a narrow terminal the figures go first.
    t.columns = {{"change", true},
                 {"case", true},
                 {"runs", false, 80},
                 {"MiB/s before", false, 100},
                 {"MiB/s after", false, 100},
                 {"time ratio"},
                 {"99% interval"}};
    if (h.machines.size() > 1) t.columns.insert(t.columns.begin() + 2, Column{"machine", false, 80});
    for (const HistoryLine& l : h.lines) {
        if (!l.beyond()) continue;
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

Table history_lines_table(const History& h, std::size_t most) {
    const std::size_t first = h.runs.size() > most ? h.runs.size() - most : 0;
    Table t;
    t.title = first == 0 ? "each case's median MiB/s in each run (-: not measured there)"
                         : fmt::format(
                               "each case's median MiB/s in the latest {} runs, #{} to #{} (-: not measured "
                               "there; the HTML page draws every run)",
                               h.runs.size() - first, first + 1, h.runs.size());
    t.columns = {{"case", true}};
    if (h.machines.size() > 1) t.columns.push_back({"machine"});
    for (std::size_t i = first; i < h.runs.size(); ++i) t.columns.push_back({fmt::format("#{}", i + 1)});
    t.columns.push_back({"last change", true});
    t.columns.push_back({"time ratio"});
    t.columns.push_back({"99% interval"});
    for (const HistoryLine& l : h.lines) {
        Row row;
        row.cells = {l.label};
        if (h.machines.size() > 1) row.cells.push_back(fmt::format("{}", l.machine + 1));
        for (std::size_t i = first; i < l.points.size(); ++i)
            row.cells.push_back(l.points[i] ? format_figure(l.points[i]->mib_s) : "-");
        row.cells.push_back(change_text(l, h.gate.threshold));
        row.cells.push_back(l.last && l.last->ratio > 0 ? fmt::format("{:.3f}", l.last->ratio) : "-");
        row.cells.push_back(l.last ? interval_text(*l.last) : "-");
        t.rows.push_back(std::move(row));
    }
    return t;
}

std::vector<std::string> history_lines(const History& h, bool gated) {
    std::vector<std::string> out;
    if (h.runs.empty()) return out;
    const auto undated =
        std::count_if(h.runs.begin(), h.runs.end(), [](const HistoryRun& r) { return r.date.empty(); });
    const std::string span =
        undated == static_cast<std::ptrdiff_t>(h.runs.size())
            ? "none of them dated"
            : fmt::format("from {} to {} UTC{}", h.runs[static_cast<std::size_t>(undated)].date, h.runs.back().date,
                          undated ? fmt::format(" ({} undated, put first)", undated) : "");
    out.push_back(fmt::format("{} run(s) {}, {}", h.runs.size(), span,
                              h.machines.size() == 1
                                  ? "on one machine: " + h.machines.front()
                                  : fmt::format("on {} machines, each case drawn once for each", h.machines.size())));
    if (h.machines.size() > 1)
        for (std::size_t m = 0; m < h.machines.size(); ++m)
            out.push_back(fmt::format("machine {}: {}", m + 1, h.machines[m]));
    const auto compared =
        std::count_if(h.lines.begin(), h.lines.end(), [](const HistoryLine& l) { return l.against != Against::none; });
    const auto beyond = std::count_if(h.lines.begin(), h.lines.end(), [](const HistoryLine& l) { return l.beyond(); });
    out.push_back(compared == 0 ? "no case was compared in two runs on one machine: nothing changed to tell"
                  : beyond == 0 ? fmt::format("no case's last change went beyond {} ({} compared)",
                                              percent(h.gate.threshold), compared)
                                : fmt::format("{} of {} case(s) compared changed beyond {} at their last change",
                                              beyond, compared, percent(h.gate.threshold)));
    const auto partial = std::count_if(h.runs.begin(), h.runs.end(), [](const HistoryRun& r) { return r.partial; });
    if (partial > 0)
        out.push_back(fmt::format("{} run(s) were stopped by a signal: cases they did not reach are missing", partial));
    if (gated) {
        const std::string& latest = h.runs.back().name;
        if (!h.tripped.empty())
            out.push_back(fmt::format("REGRESSION: {} case(s) slower beyond {} in {}: {}", h.tripped.size(),
                                      percent(h.gate.threshold), latest, fmt::join(h.tripped, "; ")));
        if (!h.missing.empty())
            out.push_back(fmt::format("the gate fails: {} case(s) not measured in the latest run: {}", h.missing.size(),
                                      fmt::join(h.missing, "; ")));
        if (!h.gated)
            out.push_back(
                fmt::format("the gate fails: no case of {} was compared with a run before it on its machine "
                            "(none measured it there under the same options, or none with a time)",
                            latest));
        if (h.runs.back().partial) out.push_back(fmt::format("the gate fails: a signal stopped {}", latest));
        if (!h.gate_failed())
            out.push_back(fmt::format("the gate passes: no case of {} is slower beyond {} than in its run before",
                                      latest, percent(h.gate.threshold)));
    }
    out.push_back(fmt::format(
        "a change is the case's latest run against its run before on the same machine, time per byte after over "
        "before with its 99% interval widened by {} for the spread between runs ({}); it goes beyond {} when the "
        "whole interval does, is within it when the whole interval is (the band drawn around the latest median), "
        "and is not told apart from it otherwise",
        percent(h.gate.between), h.gate.between_source, percent(h.gate.threshold)));
    return out;
}

std::string render_history(const History& h, bool colour, std::size_t columns, bool gated) {
    std::string out;
    for (const auto& l : history_lines(h, gated))
        for (const auto& w : wrap(l, columns)) out += w + "\n";
    // The latest runs that fit beside the case and its last change (8 at most; each about 8 wide).
    constexpr std::size_t kMostRuns = 8;
    const std::size_t fit =
        columns == 0 ? kMostRuns : std::clamp<std::size_t>(columns > 90 ? (columns - 90) / 8 : 1, 1, kMostRuns);
    for (const Table& t : {history_runs_table(h), history_changes_table(h), history_lines_table(h, fit)}) {
        if (t.rows.empty()) continue;
        out += "\n" + t.title + "\n" + text_table(t, colour, columns);
    }
    return out;
}

}  // namespace iolab
