#pragma once
// Two runs case by case (benchstat's rule): for every case both measured, the ratio of the median
// times per byte with its 99 % bootstrap interval, the Mann-Whitney U p-value and a verdict ("~"
// where the change is not significant); the cases only one run has; the geometric mean of the
// ratios; and, given a threshold, the cases that trip a regression gate.
#include <string>
#include <vector>

#include "iolab/core/names.hpp"

namespace iolab {

enum class Change { same, faster, slower, too_few };
// As result files name them.
inline constexpr Named<Change> kChanges[] = {
    {Change::same, "same"}, {Change::faster, "faster"}, {Change::slower, "slower"}, {Change::too_few, "too_few"}};

struct CaseChange {
    std::string label;  // "group strategy params size=64M"
    double before_mib_s = 0, after_mib_s = 0;
    double ratio = 0, low = 0, high = 0;  // time per byte, after over before
    double p = 1;                         // U test, two-sided
    Change change = Change::same;
    bool tripped = false;  // slower beyond the gate's threshold, significantly
};

struct Comparison {
    std::string before, after;  // what the runs are called ("baseline main", a file name)
    std::vector<CaseChange> shared;
    std::vector<std::string> added;    // in the second run only
    std::vector<std::string> removed;  // in the first run only
    // In both, measured in the first and failed in the second ("label: reason"): the gate fails.
    std::vector<std::string> broken;
    // In both, not measured in one (failed or skipped) and not broken: "label: skipped in b.json (why)".
    std::vector<std::string> not_compared;
    double geomean = 0;     // of the shared cases' ratios (0: none)
    double threshold = -1;  // the gate: slower by more than this fraction (-1: no gate)
    std::string ranks;      // why the times are not comparable (MPI rank counts), or ""
    std::string partial;    // which run a signal stopped, or ""
    std::string options;    // how the runs' options (cache, sync, verification) differ, or ""

    std::size_t significant() const;
    std::size_t tripped() const;
    // The shared cases the gate could test: at least 5 samples a side and a ratio.
    std::size_t gated() const;
    // With a gate: a case tripped it, a case broke, or it could not test (no case; runs of
    // different MPI rank counts or options; an interrupted run): it fails closed rather than pass
    // what it did not test.
    bool gate_failed() const;
};

std::string_view to_string(Change c);  // "faster", "slower", "~", "~ (fewer than 5 samples, or no throughput)"

}  // namespace iolab
