#pragma once
// Helpers shared by the strategy families.
#include <fcntl.h>

#include <cerrno>
#include <ios>
#include <string>

#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace iolab::detail {

inline sys::Fd open_src(const std::string& path) { return sys::open(path, O_RDONLY); }

// Destinations are always new files: never write over something that exists.
inline sys::Fd open_dst(const std::string& path, int access = O_WRONLY, int extra = 0) {
    return sys::open(path, access | O_CREAT | O_EXCL | extra, 0600);
}

// iostreams keep no errno of their own; use the one left by the failing call, if any.
[[noreturn]] inline void stream_failed(const char* op, const std::string& path) {
    throw IoError(errno != 0 ? errno : EIO, op, path);
}

// Opens an fstream. An output file is first created through the syscall layer with O_EXCL,
// so an existing file fails here as it does for every other strategy (libstdc++ 12 has no
// std::ios::noreplace).
template <class Stream>
void open_stream(Stream& s, const std::string& path, std::ios::openmode mode) {
    if (mode & std::ios::out) open_dst(path).close();
    errno = 0;
    s.open(path, mode | std::ios::binary);
    if (!s.is_open()) stream_failed("open", path);
}

// Buffers are page-aligned, as dd's are: the kernel copies into them faster (docs/design.md).
inline constexpr std::size_t kPage = 4096;

// Maps are made in windows of this size, so a file larger than memory can still be mapped.
inline constexpr std::size_t kMapWindow = std::size_t{1} << 30;

}  // namespace iolab::detail
