#pragma once
// The tables of a report as typed rows (ranked, failed, skipped, reference), built once from a
// report and drawn by every exporter: terminal, Markdown, and the comparison of two runs.
#include <string>
#include <vector>

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
};

struct Column {
    std::string name;
    bool left = false;  // text (names, claims) is left-aligned; figures right-aligned
};

struct Table {
    Family family = Family::read;
    std::string group;  // the id of the group whose cases it ranks
    std::string title;  // "copy (cache warm, sync none)" or "small: copy (...)"
    std::vector<Column> columns;
    std::vector<Row> rows;
    std::vector<std::string> notes;  // footnotes (scaled slices)
    // The memcpy limit of its reference row (reads and copies, when measured), else 0.
    double limit_mib_s = 0;
    std::string limit_label;
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
// Patterned cases: operations per second, latency percentiles and the rate over the run.
Table latency_table(const Report& report);
// The operations completed over a run as a line of block characters, one per stretch of time,
// as high as the rate then, relative to the highest: "████▇▂▁▁".
std::string rate_sparkline(const std::vector<std::uint64_t>& slices, std::size_t width = 16);
// "850 ns", "12.3 us", "4.56 ms", "1.20 s".
std::string format_ns(std::uint64_t ns);

// A ranked table per group and family.
std::vector<Table> ranked_tables(const Report& report);
// The findings: verdict, measured ratio and interval, threshold, claim.
Table findings_table(const Report& report);
std::vector<std::string> knee_lines(const Report& report);
// "cache warm, sync none, verify sampled[, writes to a SIMULATED device of ...]"
std::string options_text(const RunOptions& o);

// A table as aligned text columns (UTF-8 aware), optionally coloured, without its title.
std::string text_table(const Table& t, bool colour);
// A table as a Markdown pipe table, without its title.
std::string markdown_table(const Table& t);
std::string markdown_escape(const std::string& s);

}  // namespace iolab
