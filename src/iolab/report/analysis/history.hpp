#pragma once
// Many runs of the same cases over time, as asv and codspeed show them: every run in date order
// with the commit and machine it was measured on, each case's median throughput and its interval
// in every run, one line per case and machine (runs of other machines are never joined on one
// line), and each line's last change (its latest run against the one before it on that machine)
// tested against a threshold as the gate tests it (compare.hpp).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "iolab/report/analysis/comparison.hpp"
#include "iolab/report/report.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

struct HistoryRun {
    std::string name;         // "baseline main", "new.json"
    std::string date;         // when it was measured, in UTC: "2026-12-06 01:02" ("" in a file without one)
    std::string commit;       // iolab's, as the run says it
    std::size_t machine = 0;  // index in History::machines
    std::size_t cases = 0;    // ranked cases
    bool partial = false;
};

// A case's median throughput in one run, with the median's interval (0: none).
struct HistoryPoint {
    double mib_s = 0, low = 0, high = 0;
};

// Where a line's last change lies against the threshold t: its whole widened interval beyond 1+t
// or below 1/(1+t), wholly within them, or neither (not told apart from the band).
enum class Against { none, beyond, within, untold };

struct HistoryLine {
    std::string label;  // as comparisons match cases (matched_label)
    std::size_t machine = 0;
    std::vector<std::optional<HistoryPoint>> points;  // one per run, in History::runs' order
    // The latest run with the case against the run before it on the same machine with the case
    // (both indices in runs); none where the line has one point.
    std::optional<CaseChange> last;
    std::size_t from = 0, to = 0;
    Against against = Against::none;  // none: no last change, or one without a time to compare
    bool beyond() const { return against == Against::beyond; }
    bool slower_beyond() const { return beyond() && last->change == Change::slower; }
};

struct History {
    std::vector<HistoryRun> runs;       // in date order (undated first, in the order given)
    std::vector<std::string> machines;  // each described: "2 cpus Intel Xeon ..., 24 GiB, ext4 on ..."
    std::vector<HistoryLine> lines;     // in the order first met
    GateSettings gate;                  // its threshold bounds the band; its margin widens the intervals
    // As a gate (--fail-if-slower), of the latest run's machine: the lines whose last change ends in
    // its latest run and is slower beyond the threshold; the cases its run before measured and its
    // latest did not; and whether any change ended in the latest run at all.
    std::vector<std::string> tripped, missing;
    bool gated = false;
    // The gate fails: a case tripped it or went missing, nothing ended in the latest run to test, or
    // the latest run was cut short.
    bool gate_failed() const;
};

// The runs (each with its name), put in date order and read case by case. `gate.threshold` >= 0.
// InputError for a run whose date is neither ISO 8601 nor absent.
History build_history(const std::vector<std::pair<const Report*, std::string>>& runs, const GateSettings& gate);

// A fraction as the history says it: 0.05 is "5%", 0.0004 "0.04%".
std::string percent(double fraction);
// "slower beyond 5%", "faster beyond 5%", "within 5%", "not told apart from 5%", "no time to
// compare", or "-" without a last change.
std::string change_text(const HistoryLine& l, double threshold);
// The runs as a table: #, date, commit, machine, cases, name.
Table history_runs_table(const History& h);
// The lines whose last change went beyond the threshold (either way): change, case, machine, runs,
// MiB/s before and after, time ratio, interval.
Table history_changes_table(const History& h);
// Every line: its median in each of the latest `most` runs, and its last change.
Table history_lines_table(const History& h, std::size_t most = SIZE_MAX);
// What the tables need said: how many runs and machines, how many cases changed beyond the threshold,
// the gate's verdict where asked (`gated`), and last how a change is told (the band, the margin).
std::vector<std::string> history_lines(const History& h, bool gated = false);
// All of it as text for a terminal `columns` wide (0: no limit).
std::string render_history(const History& h, bool colour, std::size_t columns, bool gated = false);

}  // namespace iolab
