#include "iolab/sys/error.hpp"

#include <cstring>

namespace iolab {

namespace {
std::string describe(int err, const std::string& op, const std::string& path) {
    std::string msg = "cannot " + op;
    if (!path.empty()) msg += " " + path;
    msg += ": ";
    msg += std::strerror(err);
    return msg;
}
}  // namespace

IoError::IoError(int err, std::string op, std::string path)
    : std::runtime_error(describe(err, op, path)), err_(err), op_(std::move(op)), path_(std::move(path)) {}

}  // namespace iolab
