#pragma once
// The result file: schema "iolab.result/1", documented in docs/results-format.md.
#include <string>

#include <nlohmann/json.hpp>

#include "iolab/report/report.hpp"

namespace iolab {

inline constexpr const char* kResultSchema = "iolab.result/1";

nlohmann::json report_to_json(const Report& report);

// A group's options: every run setting of the parameter table as its row says it is kept, and
// read back by the setting's own parser (throws InputError for a value out of its range).
nlohmann::json options_json(const RunOptions& o);
RunOptions options_from_json(const nlohmann::json& o);

}  // namespace iolab
