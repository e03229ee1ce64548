#pragma once
// The tables of a report as typed rows (ranked, failed, skipped, reference), built once from a
// report and drawn by every exporter: terminal, Markdown, and the comparison of two runs.
#include <string>
#include <vector>

#include "iolab/harness/standing.hpp"
#include "iolab/report/report.hpp"

namespace iolab {

enum class RowKind {
    ranked,     // every cell filled
    failed,     // the leading cells, then "status: reason" across the rest
    skipped,    // as failed
    reference,  // a limit shown for comparison, not ranked: drawn as skipped
};

// How a renderer may colour a ranked row's first cell (a finding's verdict).
enum class Tone { plain, good, bad, doubtful };

struct Row {
    RowKind kind = RowKind::ranked;
    std::vector<std::string> cells;  // ranked: one per column; otherwise the leading ones
    std::string status, reason;      // failed, skipped, reference
    Tone tone = Tone::plain;
    // Drawn on a terminal without --all: the winner group, the next few, the slowest and every
    // failure. Markdown, HTML and JSON hold every row.
    bool shown = true;
};

struct Column {
    std::string name;
    bool left = false;  // text (names, claims) is left-aligned; figures right-aligned
    // A terminal narrower than this many columns goes without it (0: always drawn). The order is
    // stated once, in ranked_tables: below 140 columns stopped goes, below 120 also CPU and
    // calls (per MiB or per item), below 100 also verified, of limit and cached, below 80 also median and vs best.
    std::size_t needs = 0;
};

struct Table {
    Family family = Family::read;
    std::string group;  // the id of the group whose cases it ranks
    std::string title;  // "copy (cache warm, sync none)" or "small: copy (...)"
    std::vector<Column> columns;
    std::vector<Row> rows;
    std::vector<std::string> notes;  // footnotes of this table alone (timelines, jobs)
};

// A group's cases of one family, ranked: the table people read, and how its cases stand.
struct RankedTable {
    Table table;
    ReportGroup group;                     // its group (outside suites: the report's options, id and title empty)
    std::vector<const CaseResult*> cases;  // in the table's order
    Standing standing;
    std::vector<const Ceiling*> ceilings;  // each case's, or nullptr
    // One of several tables of its family in its group, one a size of item: "commits of 4 KiB".
    std::string items;
};

// Under MPI: one rank's part of a case, from its own times (Sample::rank_s; each rank moved an
// equal share of the bytes).
struct RankFigures {
    std::size_t rank = 0;
    std::string host;
    Summary stats;  // of the rank's own times, scaled as the case's
    double throughput_mib_s = 0;
};
// Empty unless every sample of the case has one time per rank.
std::vector<RankFigures> rank_figures(const CaseResult& c, const std::vector<std::string>& hosts);
// Every measured case's ranks, one row each (no rows outside MPI).
Table rank_table(const Report& report);
// pg_test_fsync's figures beside the durable cases doing the same work (no rows when it did not run;
// its notes say why).
Table peers_table(const Report& report);
// Patterned cases: operations per second, latency percentiles and the rate over the run.
Table latency_table(const Report& report);
// Each JVM method beside its C++ counterpart measured on the same work (Strategy::counterpart):
// the ratio of their times and its interval (no rows: no such pair ran).
Table runtimes_table(const Report& report);
// Tools and JVM methods, timed net of their fixed cost: each case's net, whole-process and fixed
// (start-up) medians, and the time the tool reported itself (no rows: none ran).
Table tools_table(const Report& report);
// The operations completed over a run as a line of block characters, one per stretch of time,
// as high as the rate then, relative to the highest: "████▇▂▁▁".
std::string rate_sparkline(const std::vector<std::uint64_t>& slices, std::size_t width = 16);
// "850 ns", "12.3 us", "4.56 ms", "1.20 s".
std::string format_ns(std::uint64_t ns);

// A ranked table per group, family and size of item (table_of), the cases in the order of their standing.
std::vector<RankedTable> ranked_tables(const Report& report);
// Notes that hold for every table they apply to (scaled slices, uncounted calls, tools' fixed
// costs, unstable and early-stopped cases), once each. `all`: every tool's figures. `brief`, when
// given, gets them as one line of their marks.
std::vector<std::string> table_notes(const Report& report, const std::vector<RankedTable>& tables, bool all,
                                     std::vector<std::string>* brief = nullptr);
// "read, 64 MiB, cache warm": a table in the words of its answer.
std::string table_name(const RankedTable& t);
// "17.9 GiB/s" or "812 MiB/s".
std::string format_rate(double mib_s);
// A figure with three digits or so: "812", "17.9", "1.23".
std::string format_figure(double x);
// The findings: verdict, measured ratio and interval, threshold, claim.
Table findings_table(const Report& report);
// Their verdicts counted in one line: "5 finding(s): 3 HOLDS, 1 DOES NOT HOLD, 1 INCONCLUSIVE".
std::string findings_counts(const Report& report);
std::vector<std::string> knee_lines(const Report& report);
// "cache warm, sync none, verify sampled[, writes to a SIMULATED device of ...]"
std::string options_text(const RunOptions& o);

// A table as aligned text columns (UTF-8 aware), optionally coloured, without its title: within
// `columns` glyphs (0: no limit; columns give way in their stated order, then long text is cut
// with "…"), every row or (all false) the rows a terminal shows.
std::string text_table(const Table& t, bool colour, std::size_t columns = 0, bool all = true);
// Text in lines of at most `columns` glyphs (0: one line), broken at spaces, the lines after the
// first indented.
std::vector<std::string> wrap(const std::string& text, std::size_t columns, std::size_t indent = 2);
// A table as a Markdown pipe table, without its title.
std::string markdown_table(const Table& t);
std::string markdown_escape(const std::string& s);

}  // namespace iolab
