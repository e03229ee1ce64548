#pragma once
// Shared by the strategies that can use O_DIRECT.
#include <optional>
#include <string>

#include "iolab/sys/io.hpp"

namespace iolab {

// Why O_DIRECT cannot be used in dir, or nullopt.
std::optional<std::string> direct_unavailable(const std::string& dir);
// Writes len bytes (a multiple of align) at off (aligned), surviving short writes.
void direct_pwrite_all(const sys::Fd& fd, const std::byte* buf, std::size_t len, off_t off, std::size_t align);

}  // namespace iolab
