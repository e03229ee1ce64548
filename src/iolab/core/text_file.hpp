#pragma once
// Reading a whole small text file (a suite, a result) safely: only a regular file, never one
// that could block or never end, and never more than a limit.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "iolab/core/units.hpp"

namespace iolab {

// A whole (small) text file: a suite, a result. nullopt when it cannot be read, is not a
// regular file (a FIFO or a device is never opened for reading: it could block or never end),
// or holds more than `limit` bytes; `why` then says which.
inline constexpr std::uint64_t kMaxTextFile = 64ull << 20;
std::optional<std::string> read_text_file(const std::string& path, std::string* why = nullptr,
                                          std::uint64_t limit = kMaxTextFile);
// The same, or an Error "PATH: cannot read WHAT: WHY" (one line).
template <class Error>
std::string read_text_file_or_throw(const std::string& path, std::string_view what,
                                    std::uint64_t limit = kMaxTextFile) {
    std::string why;
    auto text = read_text_file(path, &why, limit);
    if (!text) throw Error(one_line(fmt::format("{}: cannot read {}: {}", path, what, why)));
    return std::move(*text);
}

}  // namespace iolab
