#pragma once
// The ranked tables, as rows of text cells: the terminal and Markdown exporters both draw them.
#include <string>
#include <vector>

#include "iolab/report/report.hpp"

namespace iolab {

struct TableRow {
    std::vector<std::string> cells;
    Status status = Status::ok;
    bool reference = false;  // a limit shown for comparison: not ranked, drawn like a skipped row
};

struct Table {
    Family family = Family::read;
    std::string title;  // "copy (cache warm, sync none)" or "small: copy (...)"
    std::vector<std::string> columns;
    std::vector<TableRow> rows;
    std::vector<std::string> notes;  // footnotes (scaled slices)
};

std::vector<Table> ranked_tables(const Report& report);

// The findings as a table: verdict, measured ratio and interval, threshold, claim.
Table findings_table(const Report& report);
std::vector<std::string> knee_lines(const Report& report);

// The whole terminal output: header, a table per family, then the warnings.
std::string render_terminal(const Report& report, bool colour);

}  // namespace iolab
