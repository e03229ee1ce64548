#pragma once
// The result files a run can write, one registration each (exporter.cpp): the command line
// offers --OPTION FILE for every one, and writes each atomically.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "iolab/report/analysis/history.hpp"
#include "iolab/report/report.hpp"

namespace iolab {

struct Exporter {
    std::string_view option;  // "json": written by --json FILE
    std::string_view help;
    std::string (*render)(const Report&);
    bool needs_timeline = false;  // the run must record timelines (--trace)
};

std::span<const Exporter> exporters();

// One file each.
std::string to_json(const Report& report);      // json.cpp: schema iolab.result/1
std::string to_csv(const Report& report);       // csv.cpp: one row per case
std::string to_markdown(const Report& report);  // markdown.cpp
std::string to_trace(const Report& report);     // trace.cpp: Chrome trace of the recorded timelines
// html.cpp: one self-contained page with charts; several runs (named) side by side.
std::string to_html(const Report& report);
std::string to_html(const std::vector<const Report*>& runs, const std::vector<std::string>& names);
// html.cpp: the history of many runs (analysis/history.hpp): each case's median over the runs;
// `gated`: with the gate's verdict on the latest run.
std::string history_to_html(const History& h, bool gated);
// terminal.cpp: what `iolab run` prints (not a file: coloured when stdout is a terminal).
struct TerminalOptions {
    bool colour = false;
    std::size_t columns = 0;  // the terminal's width; 0: not a terminal (every column, full width)
    bool all = false;         // every row of every table, every warning
};
std::string render_terminal(const Report& report, const TerminalOptions& options);
// The progress of a run on a terminal, as hyperfine shows it: a bar, the share of the measured
// work done, the case in progress, the time spent and an estimate of the time left (at the pace
// of the `measuring_s` seconds since the first measured iteration); at most `columns` wide.
std::string progress_line(double done, std::size_t index, std::size_t total, const std::string& label, double elapsed_s,
                          double measuring_s, std::size_t columns);

}  // namespace iolab
