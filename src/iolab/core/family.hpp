#pragma once
// The three things a strategy can do to a file: read it, write it, copy it.
#include <optional>
#include <string_view>

#include "iolab/core/names.hpp"

namespace iolab {

enum class Family { read, write, copy };
inline constexpr Named<Family> kFamilies[] = {{Family::read, "read"}, {Family::write, "write"}, {Family::copy, "copy"}};
inline std::string_view to_string(Family f) { return name_of(kFamilies, f); }
inline std::optional<Family> parse_family(std::string_view s) { return value_of(kFamilies, s); }

}  // namespace iolab
