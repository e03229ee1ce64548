#pragma once
// iolab's two error values: IoError, what every I/O failure becomes (errno, call, path: "cannot
// write /tmp/x/dst: No space left on device"; public, in include/iolab/io/error.hpp), and
// InputError, what every bad input becomes.
#include <stdexcept>
#include <string>

#include "iolab/io/error.hpp"

namespace iolab {

// Bad input from the user (an option, a suite file, a result file): one line that names the
// value and what was expected. The command reports it with exit status 2.
struct InputError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

}  // namespace iolab
