#pragma once
// The one error value that every I/O failure in iolab becomes: the errno, the call that failed
// and the path it was working on, e.g. "cannot write /tmp/x/dst: No space left on device".
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
