// The notes shared by the ranked tables (table_notes in table.hpp): each says once what a mark in
// the tables means, and a brief line of the marks for a terminal.
#include <algorithm>

#include <fmt/format.h>

#include "iolab/core/units.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

namespace {

// Which of the shared notes the tables call for.
struct NoteMarks {
    bool scaled = false, uncounted = false, unstable = false, early = false, limit = false;
    std::vector<const CaseResult*> tools;  // cases timed net of a tool's fixed cost
};

NoteMarks marks_of(const std::vector<RankedTable>& tables) {
    NoteMarks m;
    for (const RankedTable& t : tables)
        for (const CaseResult* c : t.cases) {
            if (c->status != Status::ok) continue;
            m.scaled = m.scaled || (c->spec.full_bytes && c->ranked());
            m.uncounted = m.uncounted || !c->spec.strategy->in_syscall_layer();
            m.unstable = m.unstable || (c->ranked() && !c->stable);
            m.early = m.early || c->stopped == StopReason::clearly_slower;
            if (c->net()) m.tools.push_back(c);
        }
    for (const RankedTable& t : tables)
        for (const Column& col : t.table.columns) m.limit = m.limit || col.name == "of limit";
    return m;
}

// The notes in full, and the mark each is known by in the brief line.
struct Notes {
    std::vector<std::string> out, marks;
    void add(std::string note, std::string mark) {
        out.push_back(std::move(note));
        marks.push_back(std::move(mark));
    }
};

// One figure a tool: the largest fixed cost among its cases.
std::vector<std::string> tool_fixed_costs(const std::vector<const CaseResult*>& tools) {
    std::vector<std::string> parts;
    for (const CaseResult* c : tools) {
        const std::string head = c->name() + " ";
        if (std::any_of(parts.begin(), parts.end(), [&](const std::string& p) { return p.starts_with(head); }))
            continue;
        double most = 0;
        for (const CaseResult* d : tools)
            if (d->name() == c->name()) most = std::max(most, d->fixed.median);
        parts.push_back(head + format_seconds(most));
    }
    return parts;
}

// What "net" means, with each tool's largest fixed cost; `all` (where the tools' table is drawn
// too, a row a case with its net, process and fixed times): pointing to that table instead. A JVM method (a worker
// strategy) is net of the round trip of an empty request to its worker.
std::string net_note(const std::vector<const CaseResult*>& tools, bool all) {
    const auto is_worker = [](const CaseResult* c) { return c->spec.strategy->worker(); };
    const bool workers = std::any_of(tools.begin(), tools.end(), is_worker);
    const bool programs = !std::all_of(tools.begin(), tools.end(), is_worker);
    const std::string what =
        workers && programs
            ? "a tool's or a JVM method's time less its fixed cost (a tool's: the same command on a one-page input; a "
              "JVM method's: the round trip of an empty request to its worker; each run beside it)"
        : workers ? "a JVM method's time less its fixed cost (the round trip of an empty request to its worker, run "
                    "beside it)"
                  : "a tool's time less its fixed cost (the same command on a one-page input, run beside it)";
    if (all) return fmt::format("net: {}; each case's net, process and fixed times are in the table of tools", what);
    return fmt::format("net: {}, up to {}; --all shows each case with the time the tool reports itself", what,
                       fmt::join(tool_fixed_costs(tools), "; "));
}

}  // namespace

Table tools_table(const Report& report) {
    Table t;
    t.title = "tools: what each costs to start, and its time net of that";
    t.columns = {{"case", true},  {"net, a pass"},        {"process, a run"}, {"fixed cost"},
                 {"fixed share"}, {"own report, a pass"}, {"passes"}};
    for (const CaseResult& c : report.cases) {
        if (c.status != Status::ok || !c.net() || c.samples.empty()) continue;
        std::vector<double> own;
        for (const Sample& smp : c.samples)
            if (smp.tool_s >= 0) own.push_back(smp.tool_s / smp.passes);
        Row row;
        row.cells = {fmt::format("{}{} ({})", c.spec.group.empty() ? "" : c.spec.group + ": ", c.spec.label(),
                                 format_size(c.spec.whole_bytes())),
                     format_seconds(c.stats.median),
                     format_seconds(c.gross.median),
                     format_seconds(c.fixed.median),
                     c.gross.median > 0 ? fmt::format("{:.0f}%", 100 * c.fixed.median / c.gross.median) : "-",
                     own.empty() ? "-" : format_seconds(median(own)),
                     std::to_string(c.samples.back().passes)};
        t.rows.push_back(std::move(row));
    }
    // A column each, in its order.
    t.notes = {
        "net: a pass of the work, the process less the fixed cost (a tool that does its work in several passes, fio "
        "--loops, is timed per pass), the time that is ranked",
        "fixed cost: a tool's whole process on a one-page input (its start-up and set-up), or a JVM method's round "
        "trip of an empty request to its worker, measured in the same round",
        "fixed share: of the process's time",
        "own report: the time the tool printed for a pass (fio's runtime, dd's summary)"};
    return t;
}

std::vector<std::string> table_notes(const Report& report, const std::vector<RankedTable>& tables, bool all,
                                     std::vector<std::string>* brief) {
    (void)report;
    const NoteMarks m = marks_of(tables);
    Notes n;
    if (m.scaled)
        n.add(
            "* byte-at-a-time case measured on a slice of the file; its time is scaled to the whole size "
            "(throughput is as measured)",
            "*: a slice, scaled");
    if (m.uncounted)
        n.add(
            "n/a: the I/O happens inside libstdc++ or another program, where iolab cannot count calls (or, for "
            "verified, leaves no output to check); bytes: only the byte count the tool reported was checked",
            "n/a: in another program; bytes: its count checked");
    if (m.unstable)
        n.add(fmt::format("!: varies: the median's interval is wider than ±{:.0f}%; it still ranks, by the "
                          "intervals of its comparisons, which carry its spread",
                          kStableBound * 100),
              fmt::format("!: varies over ±{:.0f}%", kStableBound * 100));
    if (m.early)
        n.add(fmt::format("? (n=N): too few samples for a {:.0f}% interval: racing stopped the case once the "
                          "table's leader was surely faster by more than the margin; --precision measures every "
                          "case to its end",
                          kMedianConfidence * 100),
              "? (n=N): stopped once surely slower");
    if (m.limit)
        n.add(
            "of limit: the throughput against the ceiling of its kind of work, measured here on the same size "
            "(see limits)",
            "of limit: of its kind's ceiling");
    if (!m.tools.empty()) {
        const bool workers =
            std::any_of(m.tools.begin(), m.tools.end(), [](const CaseResult* c) { return c->spec.strategy->worker(); });
        n.add(net_note(m.tools, all), workers ? "net: less its fixed cost" : "net: a tool less its start-up");
    }
    if (brief && !n.marks.empty()) *brief = {fmt::format("{}; --all explains each", fmt::join(n.marks, "; "))};
    return n.out;
}

}  // namespace iolab
