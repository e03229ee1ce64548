#pragma once
// One row per case, RFC 4180 quoting.
#include <string>

#include "iolab/report/report.hpp"

namespace iolab {

std::string to_csv(const Report& report);

}  // namespace iolab
