// Metadata, durability, pipes and mappings through the syscall layer.
#include "iolab/sys/io.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <stdio.h>
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

// ---- metadata and durability --------------------------------------------------------------

void fsync(const Fd& fd) {
    attempt_void(Call::fsync, fd.path(), "fsync", [&] { return ::fsync(fd.get()); });
}

void fdatasync(const Fd& fd) {
    attempt_void(Call::fdatasync, fd.path(), "fdatasync", [&] { return ::fdatasync(fd.get()); });
}

// mkdirat and unlinkat are retried on EINTR and EAGAIN; a retry that fails with `done` (the folder
// there, the name gone) takes it as done: the interrupted call did it.
template <class Op>
void retried_until_done(Call c, const std::string& path, std::string_view what, int done, Op&& op) {
    bool again = false;
    attempt_void(c, path, what, [&] {
        const int r = op();
        if (r != 0 && again && errno == done) return 0;
        again = true;
        return r;
    });
}

void mkdirat(const Fd& dir, const char* name, mode_t mode) {
    retried_until_done(Call::mkdir, dir.path() + "/" + name, "make the folder", EEXIST,
                       [&] { return ::mkdirat(dir.get(), name, mode); });
}

void unlinkat(const Fd& dir, const char* name, int flags) {
    retried_until_done(Call::unlink, dir.path() + "/" + name, "remove", ENOENT,
                       [&] { return ::unlinkat(dir.get(), name, flags); });
}

void renameat(const Fd& dir, const char* from, const char* to, unsigned flags) {
    // An exchange leaves both names: its retry cannot tell, so it is done once the call returns.
    retried_until_done(Call::rename, dir.path() + "/" + to, flags & RENAME_EXCHANGE ? "exchange with" : "rename over",
                       flags & RENAME_EXCHANGE ? 0 : ENOENT,
                       [&] { return ::renameat2(dir.get(), from, dir.get(), to, flags); });
}

void linkat(const char* from, const Fd& dir, const char* to) {
    retried_until_done(Call::link, dir.path() + "/" + to, "link a name", EEXIST,
                       [&] { return ::linkat(AT_FDCWD, from, dir.get(), to, AT_SYMLINK_FOLLOW); });
}

std::size_t getdents(const Fd& dir, void* buf, std::size_t n) {
    const ssize_t r =
        attempt(Call::getdents, dir.get(), POLLIN, n, [&](std::size_t m) { return ::getdents64(dir.get(), buf, m); });
    if (r < 0) fail(errno, "list the folder", dir.path());
    return static_cast<std::size_t>(r);
}

std::int64_t statx_size(const Fd& dir, const char* name) {
    struct statx st {};
    attempt_void(Call::statx, dir.path(), "stat",
                 [&] { return ::statx(dir.get(), name, AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_SIZE, &st); });
    return S_ISREG(st.stx_mode) ? static_cast<std::int64_t>(st.stx_size) : -1;
}

void sync_file_range(const Fd& fd, off_t off, off_t len, unsigned flags) {
    attempt_void(Call::sync_file_range, fd.path(), "sync_file_range",
                 [&] { return ::sync_file_range(fd.get(), off, len, flags); });
}

void ftruncate(const Fd& fd, off_t len) {
    attempt_void(Call::ftruncate, fd.path(), "truncate", [&] { return ::ftruncate(fd.get(), len); });
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
        attempt_void(Call::fstat, fd.path(), "get the size of",
                     [&] { return ::ioctl(fd.get(), BLKGETSIZE64, &bytes); });
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
    attempt_void(Call::fstat, fd.path(), "stat",
                 [&] { return ::statx(fd.get(), "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx); });
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
    : addr_(std::exchange(o.addr_, nullptr)), len_(std::exchange(o.len_, 0)), path_(std::move(o.path_)) {}

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
    attempt_void(Call::madvise, path_, "madvise a mapping of", [&] { return ::madvise(addr_, len_, advice); });
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
