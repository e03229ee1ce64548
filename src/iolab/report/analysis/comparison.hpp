#pragma once
// Two runs case by case: for every case both measured, the ratio of the times per byte (after over
// before: Hodges-Lehmann's, ratio.hpp) with its 99 % interval widened by the spread between runs
// (a run's figures move from one run to the next by more than its samples show), the
// Mann-Whitney U p-value and a verdict ("~" where the interval holds 1); the cases only one run
// has; the geometric mean of the ratios; and, given a threshold, the cases that trip a regression
// gate.
#include <string>
#include <vector>

#include "iolab/core/names.hpp"

namespace iolab {

enum class Change { same, faster, slower, too_few };  // too_few: no time to compare
// As result files name them.
inline constexpr Named<Change> kChanges[] = {
    {Change::same, "same"}, {Change::faster, "faster"}, {Change::slower, "slower"}, {Change::too_few, "too_few"}};

struct CaseChange {
    std::string label;  // "group strategy params size=64M"
    double before_mib_s = 0, after_mib_s = 0;
    double ratio = 0, low = 0,
           high = 0;  // time per byte, after over before; the interval widened by the between-run margin
    double p = 1;     // U test, two-sided (shown; nothing is decided by it)
    Change change = Change::same;
    bool tripped = false;   // slower beyond the gate's threshold: the whole widened interval beyond it
    bool envelope = false;  // too few samples for Moses's interval: the calibrated envelope (ratio.hpp)
};

// How the gate reads a comparison: the threshold (-1: no gate), the spread between runs that
// every interval is widened by, and whether the run may leave out cases the baseline measured.
struct GateSettings {
    double threshold = -1;
    double between = 0.10;
    std::string between_source = "the default";  // "measured by iolab calibrate ...", "--between-runs"
    bool allow_missing = false;
};
// The spread between runs when nothing measured it here: iolab's own runs on a 2-core cloud VM
// moved a case's median by up to 7 % with a core busy and nothing changed (docs/ci.md).
inline constexpr double kDefaultBetweenRuns = 0.10;

struct Comparison {
    std::string before, after;  // what the runs are called ("baseline main", a file name)
    std::vector<CaseChange> shared;
    std::vector<std::string> added;    // in the second run only
    std::vector<std::string> removed;  // in the first run only
    // In both, measured in the first and failed in the second ("label: reason"): the gate fails.
    std::vector<std::string> broken;
    // In both, not measured in one (failed or skipped) and not broken: "label: skipped in b.json (why)".
    std::vector<std::string> not_compared;
    // Measured in the first run and not tested in the second (absent, skipped, or without a time):
    // "label: why". With a gate they fail it, unless the run says it may leave them out.
    std::vector<std::string> missing;
    double geomean = 0;     // of the shared cases' ratios (0: none)
    double threshold = -1;  // the gate: slower by more than this fraction (-1: no gate)
    std::string ranks;      // why the times are not comparable (MPI rank counts), or ""
    std::string partial;    // which run a signal stopped, or ""
    std::string options;    // how the runs' options (cache, sync, verification) differ, or ""
    double between = 0;     // the between-run margin every interval is widened by
    std::string between_source;
    bool allow_missing = false;  // cases in `missing` do not fail the gate
    // How the machines the runs were measured on differ ("cpus 64 against 2; scratch filesystem
    // tmpfs against ext4"), or "": said beside the verdict, which it does not change.
    std::string machine;

    std::size_t significant() const;
    std::size_t tripped() const;
    // The shared cases the gate could test: a time on both sides.
    std::size_t gated() const;
    // With a gate: a case tripped it, a case broke, a case the baseline measured was not tested
    // (unless allowed), or it could not test at all (no case; runs of different MPI rank counts or
    // options; an interrupted run): it fails closed rather than pass what it did not test.
    bool gate_failed() const;
};

std::string_view to_string(Change c);  // "faster", "slower", "~", "~ (no time to compare)"

}  // namespace iolab
