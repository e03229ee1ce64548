#pragma once
#include <cstdint>
// Reading a result file back (iolab compare, and anything else that consumes results).
#include <stdexcept>
#include <string>
#include <string_view>

#include "iolab/report/report.hpp"

namespace iolab {

struct ResultFormatError : InputError {
    using InputError::InputError;
};

// Parses an "iolab.result/1" document. Statistics are recomputed from the samples, so a
// result whose stats disagree with its samples cannot mislead. Throws ResultFormatError with
// one line naming the origin and what is wrong.
Report read_report_json(std::string_view text, const std::string& origin);
// The largest result file read back (docs/safety.md).
inline constexpr std::uint64_t kMaxResultFileBytes = 256ull << 20;
// A result file's text, at most kMaxResultFileBytes (ResultFormatError otherwise, naming it).
std::string read_result_text(const std::string& path);
Report read_report_file(const std::string& path);

}  // namespace iolab
