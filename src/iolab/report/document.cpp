#include "iolab/report/document.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "iolab/core/units.hpp"
#include "iolab/report/analysis/compare.hpp"

namespace iolab {

namespace {

std::vector<std::string> environment_lines(const Report& r) {
    const Environment& e = r.environment;
    std::vector<std::string> out;
    const auto add = [&](const char* k, const std::string& v) {
        if (!v.empty()) out.push_back(fmt::format("{}: {}", k, v));
    };
    add("iolab", e.iolab_version.empty() ? ""
                                         : fmt::format("{} (commit {}, {} build, {})", e.iolab_version, e.commit,
                                                       e.build_type, e.compiler));
    if (e.iolab_version.empty()) add("commit", e.commit);
    add("date", e.date);
    add("kernel", e.kernel.empty() ? "" : "Linux " + e.kernel);
    add("cpu", e.cpus ? fmt::format("{} x {}", e.cpus, e.cpu_model) : e.cpu_model);
    add("memory", e.memory_bytes ? format_size(e.memory_bytes) : "");
    add("filesystem", e.fs_type.empty() ? "" : fmt::format("{} ({})", e.fs_type, e.mount_options));
    add("scratch", e.scratch_dir);
    add("device", e.device.empty() ? "" : e.device + (e.device_model.empty() ? "" : " (" + e.device_model + ")"));
    std::vector<ReportGroup> groups = r.groups;
    if (groups.empty()) groups.push_back(ReportGroup{"", "", r.options});
    for (const auto& g : groups)
        out.push_back(fmt::format("{}: {}; warm-up {}, iterations {}",
                                  g.title.empty() ? "options" : "options of " + g.title, options_text(g.options),
                                  g.options.warmup.describe(), g.options.iterations.describe()));
    if (r.time_budget_s > 0) {
        // What the budget does not count: laying out the inputs, the warm-ups and each run's own
        // setup, and the peers' runs.
        std::vector<std::string> outside;
        if (r.setup_s >= 0.5)
            outside.push_back(fmt::format("{:.0f} s setting up (the inputs, the warm-ups, each run's own)", r.setup_s));
        if (r.peers.seconds >= 0.5) outside.push_back(fmt::format("{:.0f} s running pg_test_fsync", r.peers.seconds));
        std::string besides;
        for (std::size_t i = 0; i < outside.size(); ++i) besides += (i == 0 ? ", of it " : ", and ") + outside[i];
        out.push_back(fmt::format("time: {:.0f} s of a budget of {:.0f} s{}{}", r.elapsed_s, r.time_budget_s, besides,
                                  outside.empty() ? "" : ", outside the budget"));
    }
    return out;
}

std::vector<std::string> limit_lines(const Report& r) {
    std::vector<std::string> out;
    for (const Ceiling& c : r.limits.ceilings)
        out.push_back(c.mib_s > 0 ? fmt::format("{}: {}", c.key.describe(), format_rate(c.mib_s))
                                  : fmt::format("{}: not measured here: {}", c.key.describe(), c.note));
    return out;
}

// The ceilings in one line, by size: "in GiB/s, on 64 MiB: memcpy into 4K 27.6, scan 20.1; ...".
std::string brief_limits(const Report& r) {
    std::vector<std::uint64_t> sizes;
    for (const Ceiling& c : r.limits.ceilings)
        if (std::find(sizes.begin(), sizes.end(), c.key.size) == sizes.end()) sizes.push_back(c.key.size);
    std::vector<std::string> parts;
    for (std::uint64_t size : sizes) {
        std::vector<std::string> of;
        for (const Ceiling& c : r.limits.ceilings) {
            if (c.key.size != size) continue;
            const std::string what = c.key.kind == LimitKind::memcpy_into_buffer
                                         ? "into " + format_compact(c.key.buffer)
                                         : std::string(to_string(c.key.kind));
            of.push_back(what + " " + (c.mib_s > 0 ? format_figure(c.mib_s / 1024) : std::string("not measured")));
        }
        parts.push_back(fmt::format("on {}: {}", format_size(size), fmt::join(of, ", ")));
    }
    return fmt::format("in GiB/s (into N: memcpy into N bytes), {}", fmt::join(parts, "; "));
}

}  // namespace

std::vector<std::string> brief_warnings(const Report& report, std::size_t most) {
    // One line a kind, the kinds that cast most doubt first.
    static constexpr WarningKind kOrder[] = {
        WarningKind::above_limit,     WarningKind::not_cold, WarningKind::over_budget, WarningKind::unstable,
        WarningKind::first_iteration, WarningKind::outliers, WarningKind::resolution};
    std::map<WarningKind, std::vector<std::string>> cases;
    for (const Warning& w : report.warnings()) cases[w.kind].push_back(w.subject);
    std::vector<std::string> lines;
    for (WarningKind k : kOrder) {
        const auto it = cases.find(k);
        if (it == cases.end()) continue;
        const std::size_t n = it->second.size();
        const std::string some =
            fmt::format("{}{}", it->second.front(), n > 1 ? fmt::format(" and {} more", n - 1) : "");
        switch (k) {
            case WarningKind::above_limit:
                lines.push_back(
                    fmt::format("{} case(s) above the ceiling of their kind of work by more than their "
                                "interval: the ceiling or the measurement is wrong ({})",
                                n, some));
                break;
            case WarningKind::not_cold:
                lines.push_back(fmt::format("{} cold case(s) not proven cold, so not ranked as cold ({})", n, some));
                break;
            case WarningKind::over_budget:
                lines.push_back(fmt::format("{} case(s) cached over the page-cache budget, not ranked ({})", n, some));
                break;
            case WarningKind::unstable:
                lines.push_back(
                    fmt::format("{} case(s) vary by more than ±{:.0f}%: their figures are uncertain, and the "
                                "comparisons they are in carry it ({})",
                                n, kStableBound * 100, some));
                break;
            case WarningKind::first_iteration:
                lines.push_back(
                    fmt::format("{} case(s) whose first measured iteration took over twice the rest: a "
                                "longer --warmup ({})",
                                n, some));
                break;
            case WarningKind::outliers:
                lines.push_back(
                    fmt::format("statistical outliers in {} case(s): the machine may be busy ({})", n, some));
                break;
            case WarningKind::resolution:
                lines.push_back(
                    fmt::format("{} case(s) under 1,000 ticks of the clock: a larger --size ({})", n, some));
                break;
        }
    }
    if (most > 0 && lines.size() > most) {
        const std::size_t more = lines.size() - (most - 1);
        lines.resize(most - 1);
        lines.push_back(fmt::format("and {} more kind(s) of warning: --all, or the JSON's warnings", more));
    }
    return lines;
}

namespace {

// Whatever a string came from (a result file, a suite, a tool's words, a path), what is drawn
// shows its control characters instead of passing them to a terminal or a Markdown viewer.
void make_printable(Table& t) {
    t.title = one_line(t.title);
    for (auto& c : t.columns) c.name = one_line(c.name);
    for (auto& r : t.rows) {
        for (auto& c : r.cells) c = one_line(c);
        r.status = one_line(r.status);
        r.reason = one_line(r.reason);
    }
    for (auto& n : t.notes) n = printable(n);
}

void make_printable(Document& d) {
    d.title = one_line(d.title);
    for (auto& h : d.header) h = printable(h);
    for (auto& t : d.tables) make_printable(t.table);
    for (auto& s : d.sections) {
        s.title = one_line(s.title);
        for (auto* lines : {&s.lines, &s.brief})
            for (auto& l : *lines) l = printable(l);
        if (s.table) make_printable(*s.table);
    }
}

// How a section of each kind is drawn: the one place that says it.
void set_look(Section& s) {
    switch (s.kind) {
        case SectionKind::answer: s.form = SectionForm::list; break;
        case SectionKind::tools:
        case SectionKind::runtimes: s.needs_all = true; [[fallthrough]];
        case SectionKind::table:
        case SectionKind::baseline:
        case SectionKind::ranks:
        case SectionKind::peers:
            s.form = SectionForm::table;
            s.title_as_is = true;
            break;
        case SectionKind::latency:
            s.form = SectionForm::table;
            s.title_as_is = s.notes_need_all = true;
            break;
        case SectionKind::findings:  // a page read for its findings opens with them (a terminal ends with them)
            s.form = SectionForm::table;
            s.page_first = true;
            break;
        case SectionKind::limits: s.brief_join = " "; break;  // "limits in GiB/s ..."
        case SectionKind::environment: s.in_header = true; break;
        case SectionKind::knees:
        case SectionKind::notes: break;
        case SectionKind::warnings: s.form = SectionForm::alerts; break;
    }
}

}  // namespace

Document build_document(const Report& report, bool all) {
    Document d;
    const std::string header = report.header();
    const auto nl = header.find('\n');
    d.title = header.substr(0, nl);
    for (std::size_t at = nl; at != std::string::npos;) {
        const std::size_t next = header.find('\n', at + 1);
        d.header.push_back(header.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
        at = next;
    }
    d.partial = report.partial;
    d.tables = ranked_tables(report);
    d.answers = answers(d.tables);

    // The order of the sections, for every exporter.
    if (!d.answers.empty()) {
        Section s{SectionKind::answer, "the answer", {}, {}, {}, SIZE_MAX};
        for (const Answer& a : d.answers) s.lines.push_back(a.text());
        // Several questions: a page draws them as one compact table (a terminal keeps a line each).
        if (d.answers.size() > 1) s.table = answer_table(d.answers);
        d.sections.push_back(std::move(s));
    }
    // Against the baseline (--baseline): what changed since, with the gate's verdict.
    if (report.baseline) {
        Table t = comparison_table(*report.baseline);
        t.notes = comparison_lines(*report.baseline);
        d.sections.push_back({SectionKind::baseline, t.title, {}, {}, std::move(t), SIZE_MAX});
    }
    for (std::size_t i = 0; i < d.tables.size(); ++i)
        d.sections.push_back({SectionKind::table, d.tables[i].table.title, {}, {}, d.tables[i].table, i});
    if (Table t = rank_table(report); !t.rows.empty())
        d.sections.push_back({SectionKind::ranks, t.title, {}, {}, std::move(t), SIZE_MAX});
    if (Table t = latency_table(report); !t.rows.empty())
        d.sections.push_back({SectionKind::latency, t.title, {}, {}, std::move(t), SIZE_MAX});
    if (Table t = peers_table(report); !t.title.empty())
        d.sections.push_back({SectionKind::peers, t.title, {}, {}, std::move(t), SIZE_MAX});
    if (Table t = runtimes_table(report); !t.rows.empty())
        d.sections.push_back({SectionKind::runtimes, t.title, {}, {}, std::move(t), SIZE_MAX});
    if (Table t = tools_table(report); !t.rows.empty())
        d.sections.push_back({SectionKind::tools, t.title, {}, {}, std::move(t), SIZE_MAX});
    if (!report.findings.empty())
        d.sections.push_back(
            {SectionKind::findings, "findings", {findings_counts(report)}, {}, findings_table(report), SIZE_MAX});
    if (auto k = knee_lines(report); !k.empty())
        d.sections.push_back({SectionKind::knees, "knees", std::move(k), {}, {}, SIZE_MAX});
    if (auto l = limit_lines(report); !l.empty())
        d.sections.push_back({SectionKind::limits,
                              "limits: the ceiling of each kind of work here",
                              std::move(l),
                              {brief_limits(report)},
                              {},
                              SIZE_MAX});
    std::vector<std::string> brief_notes;
    if (auto n = table_notes(report, d.tables, all, &brief_notes); !n.empty())
        d.sections.push_back({SectionKind::notes, "notes", std::move(n), std::move(brief_notes), {}, SIZE_MAX});
    if (auto w = report.warning_lines(); !w.empty())
        d.sections.push_back({SectionKind::warnings, "warnings", std::move(w), brief_warnings(report), {}, SIZE_MAX});
    d.sections.push_back({SectionKind::environment, "environment", environment_lines(report), {}, {}, SIZE_MAX});
    for (Section& s : d.sections) set_look(s);
    make_printable(d);
    return d;
}

}  // namespace iolab
