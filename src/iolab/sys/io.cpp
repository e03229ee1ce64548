#include "iolab/sys/io.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <utility>

#include "iolab/sys/error.hpp"
#include "iolab/sys/fault.hpp"
#include "iolab/sys/stop.hpp"
#include "iolab/sys/throttle.hpp"

namespace iolab::sys {

namespace {

std::atomic<bool> g_stop{false};

thread_local Counters t_counters;

void count(Call c, std::size_t bytes = 0) {
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

// Runs one system call, retrying EINTR and EAGAIN, applying any injected fault, counting it.
// op(n) performs the call asking for n bytes; a short-count fault asks for half (at least 1).
// Returns the call's result, or -1 with errno set for any other error.
template <class Op>
ssize_t attempt(Call c, int fd, short events, std::size_t n, Op&& op) {
    for (;;) {
        if (stop_requested()) {
            errno = ECANCELED;
            return -1;
        }
        ssize_t r;
        switch (detail::take_fault(c)) {
            case Fault::none: r = op(n); break;
            case Fault::short_count: r = op(n > 1 ? n / 2 : n); break;
            case Fault::eintr: errno = EINTR; r = -1; break;
            case Fault::eagain: errno = EAGAIN; r = -1; break;
            case Fault::enospc: errno = ENOSPC; r = -1; break;
            case Fault::eio: errno = EIO; r = -1; break;
            case Fault::errno_value: errno = detail::fault_errno(); r = -1; break;
            default: r = op(n); break;
        }
        count(c, r > 0 ? static_cast<std::size_t>(r) : 0);
        if (r > 0 && is_write_side(c, fd)) throttle_wait(static_cast<std::size_t>(r));
        if (r >= 0) return r;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            wait_ready(fd, events);
            continue;
        }
        return -1;
    }
}

// Same, for calls that move no data: 0 on success.
template <class Op>
void attempt_void(Call c, const std::string& path, std::string_view what, Op&& op) {
    for (;;) {
        int r;
        switch (detail::take_fault(c)) {
            case Fault::eintr: errno = EINTR; r = -1; break;
            case Fault::eagain: errno = EAGAIN; r = -1; break;
            case Fault::enospc: errno = ENOSPC; r = -1; break;
            case Fault::eio: errno = EIO; r = -1; break;
            case Fault::errno_value: errno = detail::fault_errno(); r = -1; break;
            default: r = op(); break;
        }
        count(c);
        if (r == 0) return;
        if (errno == EINTR || errno == EAGAIN) continue;
        fail(errno, what, path);
    }
}

std::size_t iov_bytes(const iovec* iov, int n) {
    std::size_t total = 0;
    for (int i = 0; i < n; ++i) total += iov[i].iov_len;
    return total;
}

}  // namespace

void request_stop() { g_stop.store(true, std::memory_order_relaxed); }
void clear_stop() { g_stop.store(false, std::memory_order_relaxed); }
bool stop_requested() { return g_stop.load(std::memory_order_relaxed); }

std::string_view call_name(Call c) {
    static constexpr std::array<std::string_view, kCallKinds> names = {
        "open",     "close",    "read",     "write",   "pread",    "pwrite",
        "readv",    "writev",   "fsync",    "fdatasync", "ftruncate", "fstat",
        "lseek",    "mmap",     "munmap",   "madvise", "sendfile", "copy_file_range",
        "splice",   "pipe",     "ficlone",  "fadvise", "fallocate", "io_uring_enter",
        "io_uring read", "io_uring write"};
    return names[static_cast<std::size_t>(c)];
}

std::uint64_t Counters::total_calls() const {
    std::uint64_t t = 0;
    for (auto v : calls) t += v;
    return t;
}

std::uint64_t Counters::data_calls() const {
    std::uint64_t t = 0;
    for (Call c : {Call::read, Call::write, Call::pread, Call::pwrite, Call::readv, Call::writev,
                   Call::sendfile, Call::copy_file_range, Call::splice, Call::uring_enter})
        t += calls[static_cast<std::size_t>(c)];
    return t;
}

Counters& Counters::operator+=(const Counters& o) {
    for (std::size_t i = 0; i < kCallKinds; ++i) {
        calls[i] += o.calls[i];
        bytes[i] += o.bytes[i];
    }
    return *this;
}

Counters Counters::operator-(const Counters& o) const {
    Counters d;
    for (std::size_t i = 0; i < kCallKinds; ++i) {
        d.calls[i] = calls[i] - o.calls[i];
        d.bytes[i] = bytes[i] - o.bytes[i];
    }
    return d;
}

Counters& thread_counters() { return t_counters; }

// ---- descriptors --------------------------------------------------------------------------

Fd& Fd::operator=(Fd&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(o.fd_, -1);
        path_ = std::move(o.path_);
    }
    return *this;
}

Fd::~Fd() {
    if (fd_ >= 0) {
        count(Call::close);
        ::close(fd_);
    }
}

void Fd::close() {
    if (fd_ < 0) return;
    const int fd = std::exchange(fd_, -1);
    count(Call::close);
    // An explicit close can report a lost write (NFS does): it can be faulted. The descriptor
    // is released either way.
    const Fault f = detail::take_fault(Call::close);
    int injected = f == Fault::eio ? EIO : f == Fault::enospc ? ENOSPC : f == Fault::errno_value ? detail::fault_errno() : 0;
    // close(2): the descriptor is released even when close fails, so never retry it;
    // EINTR here does not mean the data was lost.
    if (::close(fd) != 0 && errno != EINTR) injected = errno;
    if (injected != 0) fail(injected, "close", path_);
}

Fd open(const std::string& path, int flags, mode_t mode) {
    int fd = -1;
    attempt_void(Call::open, path, "open", [&] {
        fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
        return fd < 0 ? -1 : 0;
    });
    return Fd(fd, path);
}

// ---- reads --------------------------------------------------------------------------------

std::size_t read_some(const Fd& fd, void* buf, std::size_t n) {
    const ssize_t r = attempt(Call::read, fd.get(), POLLIN, n,
                              [&](std::size_t m) { return ::read(fd.get(), buf, m); });
    if (r < 0) fail(errno, "read", fd.path());
    return static_cast<std::size_t>(r);
}

std::size_t read_full(const Fd& fd, void* buf, std::size_t n) {
    auto* p = static_cast<char*>(buf);
    std::size_t done = 0;
    while (done < n) {
        const std::size_t r = read_some(fd, p + done, n - done);
        if (r == 0) break;
        done += r;
    }
    return done;
}

std::size_t pread_some(const Fd& fd, void* buf, std::size_t n, off_t off) {
    const ssize_t r = attempt(Call::pread, fd.get(), POLLIN, n,
                              [&](std::size_t m) { return ::pread(fd.get(), buf, m, off); });
    if (r < 0) fail(errno, "read", fd.path());
    return static_cast<std::size_t>(r);
}

std::size_t pread_full(const Fd& fd, void* buf, std::size_t n, off_t off) {
    auto* p = static_cast<char*>(buf);
    std::size_t done = 0;
    while (done < n) {
        const std::size_t r = pread_some(fd, p + done, n - done, off + static_cast<off_t>(done));
        if (r == 0) break;
        done += r;
    }
    return done;
}

std::size_t readv_some(const Fd& fd, const iovec* iov, int iovcnt) {
    const ssize_t r = attempt(Call::readv, fd.get(), POLLIN, iov_bytes(iov, iovcnt),
                              [&](std::size_t m) {
                                  // A short-count fault reads into a prefix of the vector.
                                  if (iovcnt > 0 && m < iov_bytes(iov, iovcnt)) {
                                      iovec first{iov[0].iov_base, std::min(m, iov[0].iov_len)};
                                      return ::readv(fd.get(), &first, 1);
                                  }
                                  return ::readv(fd.get(), iov, iovcnt);
                              });
    if (r < 0) fail(errno, "read", fd.path());
    return static_cast<std::size_t>(r);
}

// ---- writes -------------------------------------------------------------------------------

std::size_t write_some(const Fd& fd, const void* buf, std::size_t n) {
    const ssize_t r = attempt(Call::write, fd.get(), POLLOUT, n,
                              [&](std::size_t m) { return ::write(fd.get(), buf, m); });
    if (r < 0) fail(errno, "write", fd.path());
    return static_cast<std::size_t>(r);
}

void write_all(const Fd& fd, const void* buf, std::size_t n) {
    const auto* p = static_cast<const char*>(buf);
    while (n > 0) {
        const std::size_t w = write_some(fd, p, n);
        // write(2) returning 0 for a non-zero count means no progress is possible: the
        // device is full (gnulib full-write makes the same call).
        if (w == 0) fail(ENOSPC, "write", fd.path());
        p += w;
        n -= w;
    }
}

std::size_t pwrite_some(const Fd& fd, const void* buf, std::size_t n, off_t off) {
    const ssize_t r = attempt(Call::pwrite, fd.get(), POLLOUT, n,
                              [&](std::size_t m) { return ::pwrite(fd.get(), buf, m, off); });
    if (r < 0) fail(errno, "write", fd.path());
    return static_cast<std::size_t>(r);
}

void pwrite_all(const Fd& fd, const void* buf, std::size_t n, off_t off) {
    const auto* p = static_cast<const char*>(buf);
    while (n > 0) {
        const std::size_t w = pwrite_some(fd, p, n, off);
        if (w == 0) fail(ENOSPC, "write", fd.path());
        p += w;
        off += static_cast<off_t>(w);
        n -= w;
    }
}

void writev_all(const Fd& fd, iovec* iov, int iovcnt) {
    while (iovcnt > 0 && iov[0].iov_len == 0) {
        ++iov;
        --iovcnt;
    }
    while (iovcnt > 0) {
        const ssize_t r = attempt(Call::writev, fd.get(), POLLOUT, iov_bytes(iov, iovcnt),
                                  [&](std::size_t m) {
                                      if (m < iov_bytes(iov, iovcnt)) {
                                          iovec first{iov[0].iov_base, std::min(m, iov[0].iov_len)};
                                          return ::writev(fd.get(), &first, 1);
                                      }
                                      return ::writev(fd.get(), iov, iovcnt);
                                  });
        if (r < 0) fail(errno, "write", fd.path());
        if (r == 0) fail(ENOSPC, "write", fd.path());
        auto left = static_cast<std::size_t>(r);
        while (iovcnt > 0 && left >= iov[0].iov_len) {
            left -= iov[0].iov_len;
            ++iov;
            --iovcnt;
        }
        if (iovcnt > 0) {
            iov[0].iov_base = static_cast<char*>(iov[0].iov_base) + left;
            iov[0].iov_len -= left;
        }
    }
}

// ---- kernel copies ------------------------------------------------------------------------

std::size_t sendfile_some(const Fd& out, const Fd& in, off_t* in_off, std::size_t n) {
    const ssize_t r = attempt(Call::sendfile, out.get(), POLLOUT, n, [&](std::size_t m) {
        return ::sendfile(out.get(), in.get(), in_off, m);
    });
    if (r < 0) fail(errno, "sendfile", in.path() + " to " + out.path());
    return static_cast<std::size_t>(r);
}

std::size_t copy_file_range_some(const Fd& in, off_t* in_off, const Fd& out, off_t* out_off,
                                 std::size_t n) {
    const ssize_t r = attempt(Call::copy_file_range, out.get(), POLLOUT, n, [&](std::size_t m) {
        return ::copy_file_range(in.get(), in_off, out.get(), out_off, m, 0);
    });
    if (r < 0) fail(errno, "copy_file_range", in.path() + " to " + out.path());
    return static_cast<std::size_t>(r);
}

std::size_t splice_some(const Fd& in, off_t* in_off, const Fd& out, off_t* out_off,
                        std::size_t n, unsigned flags) {
    const ssize_t r = attempt(Call::splice, out.get(), POLLOUT, n, [&](std::size_t m) {
        return ::splice(in.get(), in_off, out.get(), out_off, m, flags);
    });
    if (r < 0) fail(errno, "splice", in.path() + " to " + out.path());
    return static_cast<std::size_t>(r);
}

void clone_file(const Fd& dst, const Fd& src) {
    attempt_void(Call::ficlone, dst.path(), "clone (FICLONE) to",
                 [&] { return ::ioctl(dst.get(), FICLONE, src.get()); });
}

// ---- metadata and durability --------------------------------------------------------------

void fsync(const Fd& fd) {
    attempt_void(Call::fsync, fd.path(), "fsync", [&] { return ::fsync(fd.get()); });
}

void fdatasync(const Fd& fd) {
    attempt_void(Call::fdatasync, fd.path(), "fdatasync", [&] { return ::fdatasync(fd.get()); });
}

void ftruncate(const Fd& fd, off_t len) {
    attempt_void(Call::ftruncate, fd.path(), "truncate",
                 [&] { return ::ftruncate(fd.get(), len); });
}

void allocate(const Fd& fd, off_t off, off_t len) {
    if (len == 0) return;
    attempt_void(Call::fallocate, fd.path(), "allocate space for", [&] {
        const int e = ::posix_fallocate(fd.get(), off, len);
        if (e != 0) errno = e;
        return e == 0 ? 0 : -1;
    });
}

void fadvise(const Fd& fd, off_t off, off_t len, int advice) {
    attempt_void(Call::fadvise, fd.path(), "posix_fadvise", [&] {
        // posix_fadvise returns the error number instead of setting errno.
        const int e = ::posix_fadvise(fd.get(), off, len, advice);
        if (e != 0) errno = e;
        return e == 0 ? 0 : -1;
    });
}

std::uint64_t file_size(const Fd& fd) {
    struct stat st {};
    attempt_void(Call::fstat, fd.path(), "stat", [&] { return ::fstat(fd.get(), &st); });
    if (S_ISBLK(st.st_mode)) {  // a block device's st_size is 0: ask the device
        std::uint64_t bytes = 0;
        attempt_void(Call::fstat, fd.path(), "get the size of", [&] { return ::ioctl(fd.get(), BLKGETSIZE64, &bytes); });
        return bytes;
    }
    return static_cast<std::uint64_t>(st.st_size);
}

off_t lseek(const Fd& fd, off_t off, int whence) {
    off_t r = -1;
    attempt_void(Call::lseek, fd.path(), "seek in", [&] {
        r = ::lseek(fd.get(), off, whence);
        return r < 0 ? -1 : 0;
    });
    return r;
}

DirectAlignment direct_alignment(const Fd& fd) {
    DirectAlignment a;
    struct statx stx {};
    attempt_void(Call::fstat, fd.path(), "stat", [&] {
        return ::statx(fd.get(), "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx);
    });
    if (stx.stx_mask & STATX_DIOALIGN) {
        a.reported = true;
        // Both zero: the filesystem says it cannot do direct I/O on this file.
        a.direct_io = stx.stx_dio_mem_align != 0 && stx.stx_dio_offset_align != 0;
        if (a.direct_io) {
            a.memory = stx.stx_dio_mem_align;
            a.offset = stx.stx_dio_offset_align;
        }
    }
    return a;
}

Pipe make_pipe() {
    int fds[2] = {-1, -1};
    attempt_void(Call::pipe, "", "create a pipe", [&] { return ::pipe2(fds, O_CLOEXEC); });
    return Pipe{Fd(fds[0], "pipe"), Fd(fds[1], "pipe")};
}

// ---- mappings -----------------------------------------------------------------------------

Mapping::Mapping(Mapping&& o) noexcept
    : addr_(std::exchange(o.addr_, nullptr)), len_(std::exchange(o.len_, 0)),
      path_(std::move(o.path_)) {}

Mapping& Mapping::operator=(Mapping&& o) noexcept {
    if (this != &o) {
        if (addr_) ::munmap(addr_, len_);
        addr_ = std::exchange(o.addr_, nullptr);
        len_ = std::exchange(o.len_, 0);
        path_ = std::move(o.path_);
    }
    return *this;
}

Mapping::~Mapping() {
    if (addr_) {
        count(Call::munmap);
        ::munmap(addr_, len_);
    }
}

void Mapping::advise(int advice) {
    if (!addr_) return;
    attempt_void(Call::madvise, path_, "madvise a mapping of",
                 [&] { return ::madvise(addr_, len_, advice); });
}

Mapping map(const Fd& fd, std::size_t len, int prot, int flags, off_t off) {
    Mapping m;
    m.path_ = fd.path();
    if (len == 0) return m;
    void* p = MAP_FAILED;
    attempt_void(Call::mmap, fd.path(), "map", [&] {
        p = ::mmap(nullptr, len, prot, flags, fd.get(), off);
        return p == MAP_FAILED ? -1 : 0;
    });
    m.addr_ = p;
    m.len_ = len;
    return m;
}

}  // namespace iolab::sys
