#pragma once
// iolab's two error values: IoError, what every I/O failure becomes (errno, call, path: "cannot
// write /tmp/x/dst: No space left on device"), and InputError, what every bad input becomes.
#include <stdexcept>
#include <string>

namespace iolab {

// Bad input from the user (an option, a suite file, a result file): one line that names the
// value and what was expected. The command reports it with exit status 2.
struct InputError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

class IoError : public std::runtime_error {
public:
    IoError(int err, std::string op, std::string path);
    int code() const noexcept { return err_; }
    const std::string& op() const noexcept { return op_; }
    const std::string& path() const noexcept { return path_; }

private:
    int err_;
    std::string op_;
    std::string path_;
};

}  // namespace iolab
