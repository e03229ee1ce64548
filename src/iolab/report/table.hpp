#pragma once
// The ranked tables, as rows of text cells: the terminal and Markdown exporters both draw them.
#include <string>
#include <vector>

#include "iolab/report/report.hpp"

namespace iolab {

struct TableRow {
    std::vector<std::string> cells;
    Status status = Status::ok;
};

struct Table {
    Family family = Family::read;
    std::vector<std::string> columns;
    std::vector<TableRow> rows;
    std::vector<std::string> notes;  // footnotes (scaled slices)
};

std::vector<Table> ranked_tables(const Report& report);

// The whole terminal output: header, a table per family, then the warnings.
std::string render_terminal(const Report& report, bool colour);

}  // namespace iolab
