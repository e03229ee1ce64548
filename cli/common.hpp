#pragma once
// What the parts of the iolab command share: two checks.
#include <string>
#include <vector>

#include "iolab/sys/error.hpp"

namespace iolab::cli {

// "a, b" "c" -> a, b, c (items trimmed, empty ones dropped).
std::vector<std::string> split_commas(const std::vector<std::string>& items);
// --dir: an existing, writable folder that is not a symbolic link (empty: the default).
std::string checked_dir(const std::string& dir);

}  // namespace iolab::cli
