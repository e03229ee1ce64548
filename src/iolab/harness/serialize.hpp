#pragma once
// JSON forms of the harness's values, shared by the result exporter and the fork protocol.
#include <nlohmann/json.hpp>

#include "iolab/harness/runner.hpp"

namespace iolab {

void to_json(nlohmann::json& j, const Sample& s);
void from_json(const nlohmann::json& j, Sample& s);
void to_json(nlohmann::json& j, const Summary& s);
void to_json(nlohmann::json& j, const Warning& w);

}  // namespace iolab
