#include "iolab/report/table.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "iolab/core/units.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/strategies/kind.hpp"

namespace iolab {

std::string options_text(const RunOptions& o) {
    std::string t =
        fmt::format("cache {}, sync {}, verify {}", to_string(o.cache), to_string(o.sync), to_string(o.verify));
    if (o.shared_file) t += ", jobs share one file";
    if (o.stonewall) t += ", stonewall";
    if (o.throttle.active()) t += fmt::format(", writes to a SIMULATED device of {}", o.throttle.describe());
    if (o.cache_budget) t += fmt::format(", page cache limited to {}", format_size(o.cache_budget));
    return t;
}

std::string format_ns(std::uint64_t ns) {
    const auto d = static_cast<double>(ns);
    if (ns < 1000) return fmt::format("{} ns", ns);
    if (ns < 1'000'000) return fmt::format("{:.3g} us", d / 1e3);
    if (ns < 1'000'000'000) return fmt::format("{:.3g} ms", d / 1e6);
    return fmt::format("{:.3g} s", d / 1e9);
}

std::string rate_sparkline(const std::vector<std::uint64_t>& slices, std::size_t width) {
    if (slices.empty() || width == 0) return "";
    // The last slice is partly empty (the run ended inside it): left out when there are others.
    const std::size_t n = slices.size() > 1 ? slices.size() - 1 : 1;
    const std::size_t cells = std::min(width, n);
    std::vector<double> rate(cells, 0);
    for (std::size_t c = 0; c < cells; ++c) {
        const std::size_t from = c * n / cells, to = (c + 1) * n / cells;
        std::uint64_t sum = 0;
        for (std::size_t i = from; i < to; ++i) sum += slices[i];
        rate[c] = static_cast<double>(sum) / static_cast<double>(to - from);
    }
    const double top = *std::max_element(rate.begin(), rate.end());
    static constexpr const char* kLevels[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    std::string out;
    for (double r : rate)
        out += kLevels[top > 0 ? std::min<std::size_t>(7, static_cast<std::size_t>(r / top * 7.999)) : 0];
    return out;
}

Table latency_table(const Report& report) {
    Table t;
    t.title = "latency per operation";
    t.columns = {{"case", true},
                 {"ops/s"},
                 {"p50"},
                 {"p90", false, 100},
                 {"p99"},
                 {"p99.9", false, 100},
                 {"max", false, 80},
                 {"rate over the run", true, 100}};
    std::uint64_t ops = 0;
    for (const CaseResult& c : report.cases) {
        if (!c.ranked() || !c.latency) continue;
        const Latency& l = *c.latency;
        ops += l.count();
        Row row;
        row.cells = {fmt::format("{}{}", c.spec.group.empty() ? "" : c.spec.group + ": ", c.spec.label()),
                     fmt::format("{:.0f}", c.ops_per_s),
                     format_ns(l.percentile(0.50)),
                     format_ns(l.percentile(0.90)),
                     format_ns(l.percentile(0.99)),
                     format_ns(l.percentile(0.999)),
                     format_ns(l.max()),
                     rate_sparkline(l.slices())};
        t.rows.push_back(std::move(row));
    }
    if (t.rows.empty()) return t;
    t.title = fmt::format("latency per operation ({} operations in the measured iterations)", ops);
    t.notes.push_back(
        "rate over the run: the operations completed in each 0.1 s of a run (the measured iterations added), "
        "as high as the highest");
    if (report.clock_read_ns >= 0)
        t.notes.push_back(fmt::format(
            "each operation is timed by two reads of the clock, which cost {:.0f} ns each here (the latencies "
            "include one of them)",
            report.clock_read_ns));
    return t;
}

namespace {

std::string verified_cell(const CaseResult& c) {
    return c.verified                          ? "yes"
           : c.checked == Checked::byte_count  ? "bytes"
           : c.spec.strategy->output_checked() ? "NO"
                                               : "n/a";
}

// Why a case has no rank, in its row.
std::pair<std::string, std::string> unranked(const CaseResult& c, const Report& report) {
    if (c.status == Status::failed) return {"FAILED", c.reason};
    if (c.status == Status::skipped) return {"skipped", c.reason};
    if (!c.no_figure.empty()) return {"no figure", c.no_figure};
    if (c.budget_unheld)
        return {"not ranked", fmt::format("the page cache held more of the input than the budget of {}",
                                          format_size(report.group(c.spec.group).options.cache_budget))};
    return {"not ranked",
            fmt::format("not proven cold ({:.0f}% of the input cached, median)", median_resident(c) * 100)};
}

// How many rows of each kind a terminal shows without --all.
constexpr std::size_t kShownWinners = 3, kShownNext = 1;

}  // namespace

std::string format_figure(double x) {
    return x >= 100 ? fmt::format("{:.0f}", x) : x >= 10 ? fmt::format("{:.1f}", x) : fmt::format("{:.2f}", x);
}

std::string format_rate(double mib_s) {
    if (mib_s >= 1024) return format_figure(mib_s / 1024) + " GiB/s";
    return format_figure(mib_s) + " MiB/s";
}

namespace {

// The count of a table's items: its cases' one, or their range ("364 to 1000": a count sized by time
// for the cases that sync, Session::size_by_time).
std::string items_of(const RankedTable& t, const KindModule& k) {
    if (k.items_key.empty()) return "";
    std::uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto* c : t.cases) {
        const std::uint64_t n = *c->spec.workload.item_count();
        lo = std::min(lo, n);
        hi = std::max(hi, n);
    }
    return lo == hi ? std::to_string(lo) : fmt::format("{} to {}", lo, hi);
}

}  // namespace

std::string table_name(const RankedTable& t) {
    const ReportGroup& g = t.group;
    std::string where = g.title;
    if (where.empty() && !t.cases.empty()) {
        const Workload& w = t.cases.front()->spec.workload;
        const KindModule& k = kind_module(w.family);
        where = k.what ? k.what(w, items_of(t, k)) : "";
        if (where.empty()) where = format_size(t.cases.front()->spec.file_size());
    } else if (!t.items.empty()) {
        where += " (" + t.items + ")";
    }
    return fmt::format("{}{}, {}", to_string(t.table.family), where.empty() ? "" : ", " + where,
                       to_string(g.options.cache));
}

namespace {

// The columns of a ranked table, in order, and below how many terminal columns each gives way.
// A durable table's rate is in commits (records) per second, a tree's in files per second (items),
// with MiB/s beside it.
std::vector<Column> ranked_columns(bool limits, bool cached, std::string_view items) {
    std::vector<Column> cols = {{"#"}, {"strategy", true}, {"params", true}, {"median", false, 80}};
    if (!items.empty()) cols.push_back({fmt::format("{}/s", items)});
    cols.push_back({"MiB/s", false, items.empty() ? 0u : 100u});
    cols.push_back({fmt::format("±{:.0f}%", kMedianConfidence * 100)});
    if (limits) cols.push_back({"of limit", false, 100});
    cols.push_back({"vs best", false, 80});
    // Items: every call per item (a file's open, stat and close count as much as its read).
    if (items.empty())
        cols.push_back({"calls/MiB", false, 120});
    else
        cols.push_back({fmt::format("calls/{}", items.substr(0, items.size() - 1)), false, 120});
    cols.push_back({"CPU", false, 120});
    if (cached) cols.push_back({"cached", false, 100});
    cols.push_back({"verified", false, 100});
    // Why each case was measured no more (racing: "clearly slower" with the precision it had
    // then); a terminal of 140 columns or more, and the files.
    cols.push_back({"stopped", true, 140});
    return cols;
}

// What a ranked row's cells depend on beyond its case: the case to compare with and the columns.
struct RowFrame {
    const CaseResult* best = nullptr;
    bool limits = false, cached = false;
    std::string_view items;  // the rate's items ("commits", "files"), or bytes
};

// A case without a rank: failed, skipped or not ranked, and why.
Row unranked_row(const CaseResult& c, const Report& report) {
    Row row;
    row.kind = c.status == Status::failed ? RowKind::failed : RowKind::skipped;
    row.cells = {"-", c.name(), c.spec.label_params()};
    std::tie(row.status, row.reason) = unranked(c, report);
    row.shown = c.status == Status::failed;
    return row;
}

// The median, scaled to the whole file: "~...*" for a slice, "... net" for a tool less its fixed cost.
std::string median_cell(const CaseResult& c) {
    std::string median = format_seconds(c.stats.median * c.spec.scale());
    if (c.spec.full_bytes) median = "~" + median + "*";
    if (c.net()) median += " net";
    return median;
}

// The interval of the median beside it: "?" where the samples are too few for its confidence, "!"
// where the case varies past ±10 % (it still ranks).
std::string interval_cell(const CaseResult& c) {
    std::string interval = has_interval(c) ? fmt::format("±{:.1f}%", c.stats.median_precision() * 100)
                                           : fmt::format("? (n={})", c.stats.n);
    if (!c.stable) interval += "!";
    return interval;
}

// A ranked case's cells, one per column.
std::vector<std::string> ranked_cells(const Standing::Place& p, const Ceiling* ceiling, const RowFrame& frame) {
    const CaseResult& c = *p.c;
    std::vector<std::string> cells = {p.rank_text(), c.name(), c.spec.label_params(), median_cell(c)};
    if (!frame.items.empty()) cells.push_back(fmt::format("{:.0f}", c.ops_per_s));
    cells.push_back(fmt::format("{:.1f}", c.throughput_mib_s));
    cells.push_back(interval_cell(c));
    if (frame.limits)
        cells.push_back(ceiling && has_interval(c) ? fmt::format("{:.0f}%", 100 * c.throughput_mib_s / ceiling->mib_s)
                                                   : "-");
    cells.push_back(
        frame.best && c.throughput_mib_s > 0 ? format_ratio(frame.best->throughput_mib_s / c.throughput_mib_s) : "-");
    const double calls = frame.items.empty() ? calls_per_mib(c) : calls_per_item(c);
    cells.push_back(calls < 0 ? "n/a" : fmt::format("{:.1f}", calls));
    // A JVM worker's time is on its own threads, which iolab's resource usage does not see.
    cells.push_back(c.spec.strategy->worker() ? "n/a" : fmt::format("{:.0f}%", cpu_fraction(c) * 100));
    if (frame.cached) {
        const double r = median_resident(c);
        cells.push_back(r < 0 ? "-" : fmt::format("{:.0f}%", r * 100));
    }
    cells.push_back(verified_cell(c));
    cells.push_back(std::string(to_string(c.stopped)));
    return cells;
}

// Every case of the standing, in its order: its row, and its ceiling when ranked.
void add_rows(RankedTable& rt, const Report& report, const RowFrame& frame) {
    const Standing& st = rt.standing;
    std::size_t winners = 0, next = 0;
    const CaseResult* slowest = nullptr;
    for (const auto& p : st.places)
        if (p.rank > 0) slowest = p.c;
    for (const Standing::Place& p : st.places) {
        const CaseResult* c = p.c;
        rt.cases.push_back(c);
        rt.ceilings.push_back(c->ranked() ? ceiling_for(report.limits, c->spec, rt.group.options) : nullptr);
        if (!c->ranked()) {
            rt.table.rows.push_back(unranked_row(*c, report));
            continue;
        }
        Row row;
        row.cells = ranked_cells(p, rt.ceilings.back(), frame);
        // What a terminal shows: the first of the winner group, the next few, and the slowest.
        row.shown =
            (p.winner && winners++ < kShownWinners) || (p.rank > 0 && !p.winner && next++ < kShownNext) || c == slowest;
        row.tone = p.winner ? Tone::good : c->stable ? Tone::plain : Tone::doubtful;
        rt.table.rows.push_back(std::move(row));
    }
}

// The table's own footnotes: each case's timeline, then how long its jobs took.
void add_case_notes(RankedTable& rt) {
    std::vector<std::string>& notes = rt.table.notes;
    for (const CaseResult* c : rt.cases)
        if (c->timeline)
            notes.push_back(fmt::format(
                "timeline of {}{}: {}", c->spec.label(),
                c->spec.workload.jobs > 1 ? fmt::format(" (job 1 of {})", c->spec.workload.jobs) : std::string(),
                c->timeline->summary()));
    for (const CaseResult* c : rt.cases) {
        // Scaled as the median is (a byte-at-a-time slice stands for the whole file).
        std::vector<double> each;
        for (const Sample& s : c->samples)
            for (double t : s.job_s) each.push_back(t * c->spec.scale());
        if (each.empty() || !c->ranked()) continue;
        std::sort(each.begin(), each.end());
        notes.push_back(fmt::format(
            "jobs of {}: one job took {} to {}, median {}, over every iteration; MiB/s is all jobs' "
            "bytes over the first start to the last end",
            c->spec.label(), format_seconds(each.front()), format_seconds(each.back()), format_seconds(median(each))));
    }
}

// The table of one group's cases of one family and size of item or file; `split`: one of several of
// its family in the group, or of a run whose header names no size, named by its items or its file.
RankedTable ranked_table(const Report& report, const ReportGroup& g, TableKey k, bool split,
                         const std::vector<const CaseResult*>& cases) {
    const Family f = k.family;
    RankedTable rt;
    rt.group = g;
    rt.items = !split             ? ""
               : k.item_bytes > 0 ? fmt::format("{} of {}", row_of(f).items, format_size(k.item_bytes))
               : k.file_bytes > 0 ? format_size(k.file_bytes)
                                  : "";
    rt.standing = stand(cases, g.options.margin);
    Table& t = rt.table;
    t.family = f;
    t.group = g.id;
    t.title = fmt::format("{}{}{} ({}){}", g.title.empty() ? "" : g.title + ": ", to_string(f),
                          rt.items.empty() ? "" : ", " + rt.items, options_text(g.options),
                          g.partial ? " PARTIAL: interrupted" : "");
    // A row's ceiling, and how far it reaches: shown only where the median has its interval (a
    // smoke run's one sample says nothing of a ceiling).
    const bool limits = std::any_of(rt.standing.places.begin(), rt.standing.places.end(), [&](const auto& p) {
        return p.c->ranked() && has_interval(*p.c) && ceiling_for(report.limits, p.c->spec, g.options);
    });
    const bool cached = g.options.cache == CacheMode::cold && has_trait(f, kTraitCold);
    const Workload& w0 = cases.front()->spec.workload;
    const std::string_view items = w0.item_bytes() > 0 ? w0.item_name() : std::string_view();
    t.columns = ranked_columns(limits, cached, items);
    add_rows(rt, report, {rt.standing.pick ? rt.standing.pick : rt.standing.leader, limits, cached, items});
    add_case_notes(rt);
    return rt;
}

}  // namespace

std::vector<RankedTable> ranked_tables(const Report& report) {
    std::vector<RankedTable> tables;
    std::vector<const ReportGroup*> groups;
    for (const ReportGroup& g : report.groups) groups.push_back(&g);
    const ReportGroup plain{"", "", report.options, report.partial};
    if (groups.empty()) groups.push_back(&plain);
    const bool header_names_no_size = report.sizes().size() > kSizesNamed;
    for (const ReportGroup* g : groups) {
        std::map<TableKey, std::vector<const CaseResult*>> of;
        for (const auto& c : report.cases)
            if (c.spec.group == g->id) of[table_of(c.spec)].push_back(&c);
        for (const auto& table : of) {
            const Family f = table.first.family;
            const bool split = header_names_no_size || std::count_if(of.begin(), of.end(), [f](const auto& e) {
                                                           return e.first.family == f;
                                                       }) > 1;
            tables.push_back(ranked_table(report, *g, table.first, split, table.second));
        }
    }
    return tables;
}

std::string findings_counts(const Report& report) {
    std::size_t n[3] = {0, 0, 0};
    for (const auto& f : report.findings) ++n[static_cast<int>(f.verdict)];
    return fmt::format("{} finding(s): {} {}, {} {}, {} {}", report.findings.size(), n[0], to_string(Verdict3::holds),
                       n[1], to_string(Verdict3::does_not_hold), n[2], to_string(Verdict3::inconclusive));
}

Table findings_table(const Report& report) {
    Table t;
    t.title = "findings";
    bool looked = false;
    for (const std::string name :
         {"verdict", "measured here", "interval", "claim needs", "published", "samples", "claim"})
        t.columns.push_back(
            {name == "interval" ? fmt::format("{:.0f}% interval", kRatioConfidence * 100) : name, true});
    for (const auto& f : report.findings) {
        Row row;
        row.tone = f.verdict == Verdict3::holds           ? Tone::good
                   : f.verdict == Verdict3::does_not_hold ? Tone::bad
                                                          : Tone::doubtful;
        const bool measured = f.ratio > 0;
        row.cells = {
            std::string(to_string(f.verdict)) + f.finding.runtime_words(),
            measured ? format_ratio(f.ratio) : "-",
            measured ? fmt::format("[{}, {}]", f.low > 0 ? format_ratio(f.low) : std::string("0x"),
                                   std::isfinite(f.high) ? format_ratio(f.high) : std::string("inf"))
                     : "-",
            f.threshold(),
            f.finding.published > 0 ? fmt::format("~{}", format_ratio(f.finding.published)) : "-",
            f.samples == 0 ? "-"
            : f.look > 0   ? fmt::format("{} (look {})", f.samples, f.look)
                           : std::to_string(f.samples),
            (f.suite.empty() ? "" : f.suite + ": ") + f.finding.claim + (f.note.empty() ? "" : " (" + f.note + ")")};
        if (f.look > 0) looked = true;
        t.rows.push_back(std::move(row));
        // A suite's reason is shown where the verdict contradicts the write-up.
        if (!f.finding.explanation.empty() && f.verdict == Verdict3::does_not_hold)
            t.notes.push_back(fmt::format("why, {}{}{}: {}", f.suite.empty() ? "" : f.suite + ": ", f.finding.claim,
                                          f.finding.runtime_words(), f.finding.explanation));
    }
    if (looked)
        t.notes.push_back(
            fmt::format("samples: the fewer of the two cases'; (look N): decided while measured, by that look's wider "
                        "distribution-free interval; every interval is at {:.0f}% or more, and over all its looks a "
                        "finding errs at most {:.0f}% of the time",
                        kRatioConfidence * 100, (1 - kRatioConfidence) * 100));
    return t;
}

std::vector<std::string> knee_lines(const Report& report) {
    std::vector<std::string> out;
    for (const auto& k : report.knees) out.push_back("knee: " + k.describe());
    return out;
}

}  // namespace iolab
