#pragma once
// The three things a strategy can do to a file: read it, write it, copy it.
#include <optional>
#include <string_view>

namespace iolab {

enum class Family { read, write, copy };
std::string_view to_string(Family f);
std::optional<Family> parse_family(std::string_view s);

}  // namespace iolab
