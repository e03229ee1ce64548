#include "iolab/report/table.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "iolab/core/units.hpp"
#include "iolab/harness/stats.hpp"

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

std::vector<RankFigures> rank_figures(const CaseResult& c, const std::vector<std::string>& hosts) {
    std::vector<RankFigures> out;
    const std::size_t ranks = hosts.size();
    if (ranks == 0 || c.status != Status::ok || c.samples.empty()) return out;
    for (const Sample& s : c.samples)
        if (s.rank_s.size() != ranks) return out;
    for (std::size_t r = 0; r < ranks; ++r) {
        std::vector<double> times;
        double bytes = 0;
        for (const Sample& s : c.samples) {
            times.push_back(s.rank_s[r] * c.spec.scale());
            bytes += static_cast<double>(s.bytes) / static_cast<double>(ranks);
        }
        RankFigures f{r, hosts[r], summarize(times), 0};
        const double per_sample = bytes / static_cast<double>(c.samples.size());
        if (f.stats.median > 0) f.throughput_mib_s = per_sample * c.spec.scale() / f.stats.median / (1024.0 * 1024.0);
        out.push_back(std::move(f));
    }
    return out;
}

Table rank_table(const Report& report) {
    Table t;
    t.title = fmt::format(
        "per rank ({} ranks; each moves 1/{} of a case's bytes, timed from its first job's start "
        "to its last job's end)",
        report.environment.hosts.size(), report.environment.hosts.size());
    t.columns = {{"case", true}, {"rank"}, {"host", true}, {"median"}, {"MiB/s"}, {"±95%"}, {"vs fastest"}};
    for (const CaseResult& c : report.cases) {
        if (!c.ranked()) continue;  // as the ranked tables: not failed, skipped nor unproven cold
        const auto ranks = rank_figures(c, report.environment.hosts);
        double fastest = 0;
        for (const auto& f : ranks) fastest = std::max(fastest, f.throughput_mib_s);
        for (const auto& f : ranks) {
            Row row;
            // The case as the group and the size tell it apart from the others of the run.
            row.cells = {fmt::format("{}{} ({})", c.spec.group.empty() ? "" : c.spec.group + ": ", c.spec.label(),
                                     format_size(c.spec.whole_bytes())),
                         std::to_string(f.rank),
                         f.host,
                         format_seconds(f.stats.median),
                         fmt::format("{:.1f}", f.throughput_mib_s),
                         f.stats.n > 1 && f.stats.median_confidence >= kMedianConfidence
                             ? fmt::format("±{:.1f}%", 100 * f.stats.median_precision())
                             : fmt::format("? (n={})", f.stats.n),
                         f.throughput_mib_s > 0 ? fmt::format("{:.2f}x", fastest / f.throughput_mib_s) : "-"};
            t.rows.push_back(std::move(row));
        }
    }
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

std::string table_name(const RankedTable& t) {
    const ReportGroup& g = t.group;
    std::string where = g.title;
    if (where.empty() && !t.cases.empty()) where = format_size(t.cases.front()->spec.whole_bytes());
    return fmt::format("{}{}, {}", to_string(t.table.family), where.empty() ? "" : ", " + where,
                       to_string(g.options.cache));
}

std::vector<RankedTable> ranked_tables(const Report& report) {
    std::vector<RankedTable> tables;
    std::vector<const ReportGroup*> groups;
    for (const ReportGroup& g : report.groups) groups.push_back(&g);
    const ReportGroup plain{"", "", report.options, report.partial};
    if (groups.empty()) groups.push_back(&plain);
    for (const ReportGroup* gp : groups)
        for (Family f : {Family::read, Family::write, Family::copy}) {
            const ReportGroup& g = *gp;
            std::vector<const CaseResult*> cases;
            for (const auto& c : report.cases)
                if (c.spec.workload.family == f && c.spec.group == g.id) cases.push_back(&c);
            if (cases.empty()) continue;
            RankedTable rt;
            rt.group = g;
            rt.standing = stand(cases);
            const bool cold = g.options.cache == CacheMode::cold;
            Table& t = rt.table;
            t.family = f;
            t.group = g.id;
            t.title = fmt::format("{}{} ({}){}", g.title.empty() ? "" : g.title + ": ", to_string(f),
                                  options_text(g.options), g.partial ? " PARTIAL: interrupted" : "");
            // A row's ceiling, and how far it reaches: shown only where the median has its interval
            // (a smoke run's one sample says nothing of a ceiling).
            const auto ceiling = [&](const CaseResult& c) { return ceiling_for(report.limits, c.spec, g.options); };
            const bool limits = std::any_of(rt.standing.places.begin(), rt.standing.places.end(), [&](const auto& p) {
                return p.c->ranked() && has_interval(*p.c) && ceiling(*p.c);
            });
            // The order of the columns, and below how many terminal columns each gives way.
            t.columns = {{"#"},
                         {"strategy", true},
                         {"params", true},
                         {"median", false, 80},
                         {"MiB/s"},
                         {fmt::format("±{:.0f}%", kMedianConfidence * 100)}};
            if (limits) t.columns.push_back({"of limit", false, 100});
            t.columns.push_back({"vs best", false, 80});
            t.columns.push_back({"calls/MiB", false, 120});
            t.columns.push_back({"CPU", false, 120});
            if (cold && f != Family::write) t.columns.push_back({"cached", false, 100});
            t.columns.push_back({"verified", false, 100});
            // Why each case was measured no more (racing: "clearly slower" with the precision it
            // had then); a terminal of 140 columns or more, and the files.
            t.columns.push_back({"stopped", true, 140});
            const CaseResult* best = rt.standing.pick ? rt.standing.pick : rt.standing.leader;
            std::size_t winners = 0, next = 0;
            const CaseResult* slowest = nullptr;
            for (const auto& p : rt.standing.places)
                if (p.rank > 0) slowest = p.c;
            for (const Standing::Place& p : rt.standing.places) {
                const CaseResult* c = p.c;
                rt.cases.push_back(c);
                rt.ceilings.push_back(c->ranked() ? ceiling(*c) : nullptr);
                Row row;
                if (!c->ranked()) {
                    row.kind = c->status == Status::failed ? RowKind::failed : RowKind::skipped;
                    row.cells = {"-", c->name(), c->spec.label_params()};
                    std::tie(row.status, row.reason) = unranked(*c, report);
                    row.shown = c->status == Status::failed;
                    t.rows.push_back(std::move(row));
                    continue;
                }
                std::string median = format_seconds(c->stats.median * c->spec.scale());
                if (c->spec.full_bytes) median = "~" + median + "*";
                if (c->net()) median += " net";
                // The interval of the median beside it: "?" where the samples are too few for its
                // confidence, "!" where the case is unstable.
                std::string interval = has_interval(*c) ? fmt::format("±{:.1f}%", c->stats.median_precision() * 100)
                                                        : fmt::format("? (n={})", c->stats.n);
                if (!c->stable) interval += "!";
                const double cpm = calls_per_mib(*c);
                row.cells = {p.rank_text(),
                             c->name(),
                             c->spec.label_params(),
                             median,
                             fmt::format("{:.1f}", c->throughput_mib_s),
                             interval};
                if (limits) {
                    const Ceiling* l = rt.ceilings.back();
                    row.cells.push_back(
                        l && has_interval(*c) ? fmt::format("{:.0f}%", 100 * c->throughput_mib_s / l->mib_s) : "-");
                }
                row.cells.push_back(
                    best && c->throughput_mib_s > 0 ? format_ratio(best->throughput_mib_s / c->throughput_mib_s) : "-");
                row.cells.push_back(cpm < 0 ? "n/a" : fmt::format("{:.1f}", cpm));
                row.cells.push_back(fmt::format("{:.0f}%", cpu_fraction(*c) * 100));
                if (cold && f != Family::write) {
                    const double r = median_resident(*c);
                    row.cells.push_back(r < 0 ? "-" : fmt::format("{:.0f}%", r * 100));
                }
                row.cells.push_back(verified_cell(*c));
                row.cells.push_back(std::string(to_string(c->stopped)));
                // What a terminal shows: the first of the winner group, the next few, the slowest, and
                // the unstable case that kept the table from a stable winner.
                row.shown = (p.winner && winners++ < kShownWinners) ||
                            (p.rank > 0 && !p.winner && next++ < kShownNext) || c == slowest ||
                            c == rt.standing.unsettled;
                row.tone = p.winner && rt.standing.pick ? Tone::good : c->stable ? Tone::plain : Tone::doubtful;
                t.rows.push_back(std::move(row));
            }
            for (const CaseResult* c : rt.cases)
                if (c->timeline)
                    t.notes.push_back(fmt::format("timeline of {}{}: {}", c->spec.label(),
                                                  c->spec.workload.jobs > 1
                                                      ? fmt::format(" (job 1 of {})", c->spec.workload.jobs)
                                                      : std::string(),
                                                  c->timeline->summary()));
            for (const CaseResult* c : rt.cases) {
                // Scaled as the median is (a byte-at-a-time slice stands for the whole file).
                std::vector<double> each;
                for (const Sample& s : c->samples)
                    for (double t : s.job_s) each.push_back(t * c->spec.scale());
                if (each.empty() || !c->ranked()) continue;
                std::sort(each.begin(), each.end());
                t.notes.push_back(fmt::format(
                    "jobs of {}: one job took {} to {}, median {}, over every iteration; MiB/s is all jobs' "
                    "bytes over the first start to the last end",
                    c->spec.label(), format_seconds(each.front()), format_seconds(each.back()),
                    format_seconds(median(each))));
            }
            tables.push_back(std::move(rt));
        }
    return tables;
}

std::vector<std::string> table_notes(const Report& report, const std::vector<RankedTable>& tables, bool all,
                                     std::vector<std::string>* brief) {
    std::vector<std::string> out, marks;
    bool scaled = false, uncounted = false, unstable = false, early = false, limit = false;
    std::vector<const CaseResult*> tools;
    for (const RankedTable& t : tables)
        for (const CaseResult* c : t.cases) {
            if (c->status != Status::ok) continue;
            scaled = scaled || (c->spec.full_bytes && c->ranked());
            uncounted = uncounted || !c->spec.strategy->in_syscall_layer();
            unstable = unstable || (c->ranked() && !c->stable);
            early = early || c->stopped == StopReason::clearly_slower;
            if (c->net()) tools.push_back(c);
        }
    for (const RankedTable& t : tables)
        for (const Column& col : t.table.columns) limit = limit || col.name == "of limit";
    (void)report;
    if (scaled) {
        out.push_back(
            "* byte-at-a-time case measured on a slice of the file; its time is scaled to the whole size "
            "(throughput is as measured)");
        marks.push_back("*: a slice, scaled");
    }
    if (uncounted) {
        out.push_back(
            "n/a: the I/O happens inside libstdc++ or another program, where iolab cannot count calls (or, for "
            "verified, leaves no output to check); bytes: only the byte count the tool reported was checked");
        marks.push_back("n/a: in another program; bytes: its count checked");
    }
    if (unstable) {
        out.push_back(fmt::format(
            "!: unstable: the median's interval was still wider than ±{:.0f}% when its budget was spent; not ranked, "
            "and it decides nothing",
            kStableBound * 100));
        marks.push_back(fmt::format("!: over ±{:.0f}%, not ranked", kStableBound * 100));
    }
    if (early) {
        out.push_back(fmt::format(
            "? (n=N): too few samples for a {:.0f}% interval: racing stopped the case once it was shown slower than "
            "its table's fastest; --precision measures every case to its end",
            kMedianConfidence * 100));
        marks.push_back("? (n=N): stopped once slower");
    }
    if (limit) {
        out.push_back(
            "of limit: the throughput against the ceiling of its kind of work, measured here on the same size "
            "(see limits)");
        marks.push_back("of limit: of its kind's ceiling");
    }
    if (!tools.empty()) {
        std::vector<std::string> parts;
        if (all) {
            for (const CaseResult* c : tools) {
                std::vector<double> own;
                for (const Sample& smp : c->samples)
                    if (smp.tool_s >= 0) own.push_back(smp.tool_s / smp.passes);
                const unsigned passes = c->samples.back().passes;
                parts.push_back(fmt::format(
                    "{}: net {}, process {}, fixed {}{}{}", c->spec.label(), format_seconds(c->stats.median),
                    format_seconds(c->gross.median), format_seconds(c->fixed.median),
                    own.empty() ? "" : fmt::format(", its own report {}", format_seconds(median(own))),
                    passes > 1 ? fmt::format(" ({} passes in each run; times are a pass's)", passes) : ""));
            }
        } else {
            // One figure a tool: the largest fixed cost among its cases.
            for (const CaseResult* c : tools) {
                const std::string head = c->name() + " ";
                if (std::any_of(parts.begin(), parts.end(), [&](const std::string& p) { return p.starts_with(head); }))
                    continue;
                double most = 0;
                for (const CaseResult* d : tools)
                    if (d->name() == c->name()) most = std::max(most, d->fixed.median);
                parts.push_back(head + format_seconds(most));
            }
        }
        out.push_back(fmt::format(
            "net: a tool's time less its fixed cost (the same command on a one-page input, run beside it){}: {}{}",
            all ? "" : ", up to", fmt::join(parts, "; "),
            all ? "" : "; --all shows each case with the time the tool reports itself"));
        marks.push_back("net: a tool less its start-up");
    }
    if (brief && !marks.empty()) *brief = {fmt::format("{}; --all explains each", fmt::join(marks, "; "))};
    return out;
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
            std::string(to_string(f.verdict)),
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
            t.notes.push_back(fmt::format("why, {}{}: {}", f.suite.empty() ? "" : f.suite + ": ", f.finding.claim,
                                          f.finding.explanation));
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
