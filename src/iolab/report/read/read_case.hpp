#pragma once
// A case of a result file read back (read_case.cpp), and the lookups of its fields that the rest of
// read.cpp shares.
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "iolab/harness/result.hpp"
#include "iolab/report/read/result_sax.hpp"

namespace iolab::detail {

// The string at `key`, or "" when absent or not a string.
inline std::string str(const json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The finite number at `key`, or `otherwise`.
inline double num(const json& j, const char* key, double otherwise = 0) {
    const auto it = j.find(key);
    return it != j.end() && it->is_number() && std::isfinite(it->get<double>()) ? it->get<double>() : otherwise;
}

// cases[index] of the file `origin`, with the samples and timeline events the parse made of it
// (ResultSax); throws ResultFormatError naming the case.
CaseResult read_case(const json& c, std::vector<Sample> samples, const std::vector<SavedEvent>& events,
                     const std::string& origin, std::size_t index);

}  // namespace iolab::detail
