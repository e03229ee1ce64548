// The syscall layer's shared machinery: call names and counters, errors, the write side.
#include "iolab/sys/attempt.hpp"

#include <poll.h>
#include <sys/stat.h>

#include <array>

#include "iolab/sys/error.hpp"

namespace iolab::sys {

namespace {
thread_local Counters t_counters;
}  // namespace

namespace detail {

void count(Call c, std::size_t bytes) {
    const auto i = static_cast<std::size_t>(c);
    ++t_counters.calls[i];
    t_counters.bytes[i] += bytes;
}

[[noreturn]] void fail(int err, std::string_view op, const std::string& path) {
    throw IoError(err, std::string(op), path);
}

// Calls whose bytes land in the destination: the ones a throttle slows down. A splice into a
// pipe is the read half of a splice copy.
bool is_write_side(Call c, int fd) {
    if (!throttle_active()) return false;
    switch (c) {
        case Call::write:
        case Call::pwrite:
        case Call::writev:
        case Call::sendfile:
        case Call::copy_file_range: return true;
        case Call::splice: {
            struct stat st {};
            return ::fstat(fd, &st) == 0 && !S_ISFIFO(st.st_mode);
        }
        default: return false;
    }
}

// Waits until fd is ready after EAGAIN. A regular file is always ready, so this only ever
// blocks on pipes and sockets (and is a no-op for injected EAGAIN on files).
void wait_ready(int fd, short events) {
    pollfd p{fd, events, 0};
    while (::poll(&p, 1, 1000) < 0 && errno == EINTR) {
    }
}

}  // namespace detail

std::string_view call_name(Call c) {
    static constexpr std::array<std::string_view, kCallKinds> names = {"open",
                                                                       "close",
                                                                       "read",
                                                                       "write",
                                                                       "pread",
                                                                       "pwrite",
                                                                       "readv",
                                                                       "writev",
                                                                       "fsync",
                                                                       "fdatasync",
                                                                       "ftruncate",
                                                                       "fstat",
                                                                       "lseek",
                                                                       "mmap",
                                                                       "munmap",
                                                                       "madvise",
                                                                       "sendfile",
                                                                       "copy_file_range",
                                                                       "splice",
                                                                       "pipe",
                                                                       "ficlone",
                                                                       "fadvise",
                                                                       "fallocate",
                                                                       "io_uring_enter",
                                                                       "io_uring read",
                                                                       "io_uring write",
                                                                       "sync_file_range",
                                                                       "io_uring fsync",
                                                                       "mkdir",
                                                                       "unlink",
                                                                       "getdents",
                                                                       "statx",
                                                                       "io_uring open",
                                                                       "io_uring close",
                                                                       "io_uring unlink",
                                                                       "rename",
                                                                       "link"};
    return names[static_cast<std::size_t>(c)];
}

std::uint64_t Counters::total_calls() const {
    std::uint64_t t = 0;
    for (auto v : calls) t += v;
    return t;
}

std::uint64_t Counters::data_calls() const {
    std::uint64_t t = 0;
    for (Call c : {Call::read, Call::write, Call::pread, Call::pwrite, Call::readv, Call::writev, Call::sendfile,
                   Call::copy_file_range, Call::splice, Call::uring_enter})
        t += calls[static_cast<std::size_t>(c)];
    return t;
}

std::uint64_t Counters::syncs() const {
    return calls[static_cast<std::size_t>(Call::fsync)] + calls[static_cast<std::size_t>(Call::fdatasync)] +
           calls[static_cast<std::size_t>(Call::uring_fsync)] + synced_writes;
}

Counters& Counters::operator+=(const Counters& o) {
    for (std::size_t i = 0; i < kCallKinds; ++i) {
        calls[i] += o.calls[i];
        bytes[i] += o.bytes[i];
    }
    synced_writes += o.synced_writes;
    return *this;
}

Counters Counters::operator-(const Counters& o) const {
    Counters d;
    for (std::size_t i = 0; i < kCallKinds; ++i) {
        d.calls[i] = calls[i] - o.calls[i];
        d.bytes[i] = bytes[i] - o.bytes[i];
    }
    d.synced_writes = synced_writes - o.synced_writes;
    return d;
}

Counters& thread_counters() { return t_counters; }

}  // namespace iolab::sys
