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

#include "iolab/sys/attempt.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/fault.hpp"
#include "iolab/sys/stop.hpp"
#include "iolab/sys/throttle.hpp"

namespace iolab::sys {

using detail::attempt;
using detail::attempt_void;
using detail::count;
using detail::fail;

namespace {

std::size_t iov_bytes(const iovec* iov, int n) {
    std::size_t total = 0;
    for (int i = 0; i < n; ++i) total += iov[i].iov_len;
    return total;
}
}  // namespace

// ---- descriptors --------------------------------------------------------------------------

Fd& Fd::operator=(Fd&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(o.fd_, -1);
        path_ = std::move(o.path_);
        synced_ = o.synced_;
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
    // (EINTR and EAGAIN are not failures of close.)
    int injected = f == Fault::eintr || f == Fault::eagain ? 0 : detail::fault_error(f);
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
    // O_SYNC is O_DSYNC and more: both bits mean every write is durable on return.
    return Fd(fd, path, (flags & O_DSYNC) == O_DSYNC);
}

Fd openat(const Fd& dir, const char* name, int flags, mode_t mode) {
    int fd = -1;
    const auto path = [&] { return dir.path() + "/" + name; };
    for (;;) {
        const int err = detail::fault_error(detail::take_fault(Call::open));
        fd = err ? -1 : ::openat(dir.get(), name, flags | O_CLOEXEC, mode);
        if (err) errno = err;
        count(Call::open);
        if (fd >= 0) break;
        if (errno != EINTR && errno != EAGAIN) fail(errno, "open", path());
    }
    return Fd(fd, path(), (flags & O_DSYNC) == O_DSYNC);
}

// ---- reads --------------------------------------------------------------------------------

std::size_t read_some(const Fd& fd, void* buf, std::size_t n) {
    const ssize_t r = attempt(Call::read, fd.get(), POLLIN, n, [&](std::size_t m) { return ::read(fd.get(), buf, m); });
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
    const ssize_t r =
        attempt(Call::pread, fd.get(), POLLIN, n, [&](std::size_t m) { return ::pread(fd.get(), buf, m, off); });
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
    const ssize_t r = attempt(Call::readv, fd.get(), POLLIN, iov_bytes(iov, iovcnt), [&](std::size_t m) {
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
    const ssize_t r =
        attempt(Call::write, fd.get(), POLLOUT, n, [&](std::size_t m) { return ::write(fd.get(), buf, m); });
    if (r < 0) fail(errno, "write", fd.path());
    if (fd.synced()) ++thread_counters().synced_writes;
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
    const ssize_t r =
        attempt(Call::pwrite, fd.get(), POLLOUT, n, [&](std::size_t m) { return ::pwrite(fd.get(), buf, m, off); });
    if (r < 0) fail(errno, "write", fd.path());
    if (fd.synced()) ++thread_counters().synced_writes;
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
        const ssize_t r = attempt(Call::writev, fd.get(), POLLOUT, iov_bytes(iov, iovcnt), [&](std::size_t m) {
            if (m < iov_bytes(iov, iovcnt)) {
                iovec first{iov[0].iov_base, std::min(m, iov[0].iov_len)};
                return ::writev(fd.get(), &first, 1);
            }
            return ::writev(fd.get(), iov, iovcnt);
        });
        if (r < 0) fail(errno, "write", fd.path());
        if (r == 0) fail(ENOSPC, "write", fd.path());
        if (fd.synced()) ++thread_counters().synced_writes;
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
    const ssize_t r = attempt(Call::sendfile, out.get(), POLLOUT, n,
                              [&](std::size_t m) { return ::sendfile(out.get(), in.get(), in_off, m); });
    if (r < 0) fail(errno, "sendfile", in.path() + " to " + out.path());
    return static_cast<std::size_t>(r);
}

std::size_t copy_file_range_some(const Fd& in, off_t* in_off, const Fd& out, off_t* out_off, std::size_t n) {
    const ssize_t r = attempt(Call::copy_file_range, out.get(), POLLOUT, n, [&](std::size_t m) {
        return ::copy_file_range(in.get(), in_off, out.get(), out_off, m, 0);
    });
    if (r < 0) fail(errno, "copy_file_range", in.path() + " to " + out.path());
    return static_cast<std::size_t>(r);
}

std::size_t splice_some(const Fd& in, off_t* in_off, const Fd& out, off_t* out_off, std::size_t n, unsigned flags) {
    const ssize_t r = attempt(Call::splice, out.get(), POLLOUT, n,
                              [&](std::size_t m) { return ::splice(in.get(), in_off, out.get(), out_off, m, flags); });
    if (r < 0) fail(errno, "splice", in.path() + " to " + out.path());
    return static_cast<std::size_t>(r);
}

void clone_file(const Fd& dst, const Fd& src) {
    attempt_void(Call::ficlone, dst.path(), "clone (FICLONE) to",
                 [&] { return ::ioctl(dst.get(), FICLONE, src.get()); });
}

}  // namespace iolab::sys
