#pragma once
// The result file: schema "iolab.result/1", documented in docs/results-format.md.
#include <string>

#include <nlohmann/json.hpp>

#include "iolab/report/report.hpp"

namespace iolab {

inline constexpr const char* kResultSchema = "iolab.result/1";

nlohmann::json report_to_json(const Report& report);

}  // namespace iolab
