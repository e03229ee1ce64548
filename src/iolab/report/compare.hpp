#pragma once
// Two runs side by side, as benchstat does: for every case both measured, the ratio of the
// median times with its bootstrap interval, the Mann-Whitney U p-value, "~" where the change is
// not significant, and the geometric mean of the ratios.
#include <string>

#include "iolab/report/report.hpp"

namespace iolab {

std::string render_comparison(const Report& before, const Report& after, bool markdown);

}  // namespace iolab
