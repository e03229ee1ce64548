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
    std::vector<std::string> added;    // measured in the second run only
    std::vector<std::string> removed;  // measured in the first run only
    double geomean = 0;                // of the shared cases' ratios (0: none shared)
    double threshold = -1;             // the gate: slower by more than this fraction (-1: no gate)
    std::string ranks;                 // why the times are not comparable (MPI rank counts), or ""

    std::size_t significant() const;
    std::size_t tripped() const;
};

std::string_view to_string(Change c);  // "faster", "slower", "~", "~ (fewer than 5 samples)"

}  // namespace iolab
