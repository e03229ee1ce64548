#pragma once
// What the parts of the iolab command share: two checks, and whether to colour.
#include <string>
#include <vector>

#include "iolab/report/exporter.hpp"
#include "iolab/sys/error.hpp"

namespace iolab::cli {

// "a, b" "c" -> a, b, c (items trimmed, empty ones dropped).
std::vector<std::string> split_commas(const std::vector<std::string>& items);
// --dir: an existing, writable folder that is not a symbolic link (empty: the default).
std::string checked_dir(const std::string& dir);
// Whether stdout is a terminal, NO_COLOR is unset or empty, and no MPI launcher started iolab.
bool colour_on_stdout();
// How to draw a report on stdout: coloured as above, as wide as the terminal (or COLUMNS, where
// set; unlimited when stdout is not a terminal), every row with `all`.
// The width to draw for on fd: COLUMNS, else the terminal's, at least 40; 0: not a terminal.
std::size_t terminal_columns(int fd);
TerminalOptions terminal_options(bool all);

}  // namespace iolab::cli
