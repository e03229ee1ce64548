#pragma once
// What the parts of the iolab command share: the bad-input error and two checks.
#include <stdexcept>
#include <string>
#include <vector>

namespace iolab::cli {

// Bad input: reported as one line, exit status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// "a,b" "c" -> a, b, c (empty items dropped).
std::vector<std::string> split_commas(const std::vector<std::string>& items);
// --dir: an existing, writable folder that is not a symbolic link (empty: the default).
std::string checked_dir(const std::string& dir);

}  // namespace iolab::cli
