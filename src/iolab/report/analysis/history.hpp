#pragma once
// Many runs of the same cases over time, as asv and codspeed show them: every run in date order
// with the commit and machine it was measured on, each case's median throughput and its interval
// in every run, one line per case and machine (runs of other machines are never joined on one
// line), and each line's last change (its latest run against the one before it on that machine)
// tested against a threshold as the gate tests it (compare.hpp).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "iolab/report/analysis/comparison.hpp"
#include "iolab/report/report.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

struct HistoryRun {
    std::string name;         // "baseline main", "new.json"
    std::string date;         // ISO 8601, as the run says it ("" in a file without one)
    std::string commit;       // iolab's, as the run says it
    std::size_t machine = 0;  // index in History::machines
    std::size_t cases = 0;    // ranked cases
    bool partial = false;
};

// A case's median throughput in one run, with the median's interval (0: none).
struct HistoryPoint {
    double mib_s = 0, low = 0, high = 0;
};

struct HistoryLine {
    std::string label;  // as comparisons match cases (matched_label)
    std::size_t machine = 0;
    std::vector<std::optional<HistoryPoint>> points;  // one per run, in History::runs' order
    // The latest run with the case against the run before it on the same machine with the case
    // (both indices in runs); none where the line has one point.
    std::optional<CaseChange> last;
    std::size_t from = 0, to = 0;
    // Its whole widened interval lies beyond the threshold, slower or faster.
    bool beyond = false;
};

struct History {
    std::vector<HistoryRun> runs;       // in date order (undated first, in the order given)
    std::vector<std::string> machines;  // each described: "2 cpus Intel Xeon ..., 24 GiB, ext4 on ..."
    std::vector<HistoryLine> lines;     // in the order first met
    GateSettings gate;                  // its threshold bounds the band; its margin widens the intervals
};

// The runs (each with its name), put in date order and read case by case. `gate.threshold` >= 0.
History build_history(const std::vector<std::pair<const Report*, std::string>>& runs, const GateSettings& gate);

// The runs as a table: #, date, commit, machine, cases, name.
Table history_runs_table(const History& h);
// The lines whose last change went beyond the threshold (either way): case, machine, runs, MiB/s
// before and after, time ratio, interval, change.
Table history_changes_table(const History& h);
// Every line: its median in each run, and its last change.
Table history_lines_table(const History& h);
// What the tables need said: how many runs and machines, how many cases changed beyond the threshold,
// and last how a change is told (the band, the margin and its source).
std::vector<std::string> history_lines(const History& h);
// All of it as text for a terminal.
std::string render_history(const History& h, bool colour, std::size_t columns);

}  // namespace iolab
