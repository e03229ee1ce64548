#pragma once
// Helpers shared by the strategy families.
#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <ios>
#include <string>

#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace iolab::detail {

inline sys::Fd open_src(const std::string& path) { return sys::open(path, O_RDONLY); }

// Destinations are always new files: never write over something that exists.
inline sys::Fd open_dst(const std::string& path, int access = O_WRONLY, int extra = 0) {
    return sys::open(path, access | O_CREAT | O_EXCL | extra, 0600);
}

// A job's part of a shared file (Job::part): the input opened at the part's
// start, the output (which the harness made) at the same place, and the bytes to move. A job
// on a whole file gets its input at 0, a new output, and no limit.
inline sys::Fd open_src_part(const Job& j) {
    sys::Fd in = open_src(j.src);
    if (j.part.length > 0) sys::lseek(in, static_cast<off_t>(j.part.offset), SEEK_SET);
    return in;
}
inline sys::Fd open_dst_part(const Job& j) {
    if (j.part.length == 0) return open_dst(j.dst);
    sys::Fd out = sys::open(j.dst, O_WRONLY);
    sys::lseek(out, static_cast<off_t>(j.part.offset), SEEK_SET);
    return out;
}
inline std::uint64_t part_length(const Job& j) { return j.part.length > 0 ? j.part.length : UINT64_MAX; }
inline std::size_t at_most(std::size_t n, std::uint64_t left) {
    return static_cast<std::size_t>(std::min<std::uint64_t>(n, left));
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

// The times of one job's operations (Job::latency, when it is set), from its start.
class OpClock {
public:
    explicit OpClock(const Job& j) : OpClock(j.latency) {}
    explicit OpClock(Latency* latency) : latency_(latency), start_(monotonic_ns()) {}
    std::uint64_t now() const { return latency_ ? monotonic_ns() : 0; }
    void done(std::uint64_t began) const {
        if (!latency_) return;
        const std::uint64_t t = monotonic_ns();
        latency_->add(t - began, t - start_);
    }

private:
    Latency* latency_;
    std::uint64_t start_;
};

// Buffers are page-aligned, as dd's are: the kernel copies into them faster (docs/design.md).
inline constexpr std::size_t kPage = 4096;

// Maps are made in windows of this size, each unmapped before the next: a file larger than memory
// can be mapped, and a process never holds more than one window of a file's pages resident (with
// 1 GiB windows `iolab replicate` peaked at 1.19 GB resident, 0.9 GB of it the mapped input). On a
// warm 1 GiB file, 64 MiB windows scanned 0.5-3 % slower than one 1 GiB window (docs/design.md).
inline constexpr std::size_t kMapWindow = std::size_t{64} << 20;

}  // namespace iolab::detail
