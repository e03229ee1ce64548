#pragma once
// iolab::io: what every I/O failure becomes. IoError carries the errno, the call that failed and
// the path it was made on, and says all three: "cannot write /data/out.bin: No space left on
// device". Every function of the library throws it (and std::bad_alloc when memory runs out).
#include <stdexcept>
#include <string>
#include "iolab/io/export.hpp"

namespace iolab {

class IOLAB_IO_API IoError : public std::runtime_error {
public:
    IoError(int err, std::string op, std::string path);
    // The errno value, for callers that act on it (ENOSPC, EXDEV...).
    int code() const noexcept { return err_; }
    // What was being done: "read", "open", "copy_file_range to"...
    const std::string& op() const noexcept { return op_; }
    const std::string& path() const noexcept { return path_; }

private:
    int err_;
    std::string op_;
    std::string path_;
};

}  // namespace iolab
