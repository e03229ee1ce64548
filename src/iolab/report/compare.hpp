#pragma once
// Two runs side by side: for every case both measured, how much faster or slower the second is,
// and whether the 99.9 % intervals say the change is real.
#include <string>

#include "iolab/report/report.hpp"

namespace iolab {

std::string render_comparison(const Report& before, const Report& after, bool markdown);

}  // namespace iolab
