#pragma once
// iolab::io, the syscall layer: every call that moves data, retried on EINTR and EAGAIN, looped
// over short counts, counted per thread (thread_counters), faultable in tests (iolab's own
// sys/fault.hpp), and failing as IoError(errno, call, path) (iolab/io/error.hpp).
//
//     iolab::sys::Fd in = iolab::sys::open("data.bin", O_RDONLY);
//     std::vector<char> buf(1 << 20);
//     while (std::size_t n = iolab::sys::read_some(in, buf.data(), buf.size())) use(buf.data(), n);
//
// read_full/pread_full return fewer bytes than asked only at end of file; write_all/pwrite_all
// write everything or throw (a write that makes no progress is ENOSPC). A call interrupted by a
// signal (EINTR) or told to try again (EAGAIN, with a poll for non-blocking descriptors) is
// retried.
#include <sys/types.h>
#include <sys/uio.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "iolab/io/error.hpp"
#include "iolab/io/export.hpp"

namespace iolab::sys {

enum class Call : std::uint8_t {
    open,
    close,
    read,
    write,
    pread,
    pwrite,
    readv,
    writev,
    fsync,
    fdatasync,
    ftruncate,
    fstat,
    lseek,
    mmap,
    munmap,
    madvise,
    sendfile,
    copy_file_range,
    splice,
    pipe,
    ficlone,
    fadvise,
    fallocate,
    uring_enter,
    uring_read,
    uring_write,
    sync_file_range,
    uring_fsync,  // an io_uring fsync or fdatasync completed
    mkdir,
    unlink,
    getdents,
    statx,
    uring_open,   // an io_uring openat completed
    uring_close,  // an io_uring close completed
    uring_unlink, // an io_uring unlinkat completed
    rename,       // renameat2
    link,         // linkat
    count_
};
inline constexpr std::size_t kCallKinds = static_cast<std::size_t>(Call::count_);
IOLAB_IO_API std::string_view call_name(Call c);

// Calls and bytes of each kind made by one thread. Plain increments: reading them is only
// meaningful from the owning thread, or after a worker has merged them into its parent.
struct IOLAB_IO_API Counters {
    std::array<std::uint64_t, kCallKinds> calls{};
    std::array<std::uint64_t, kCallKinds> bytes{};
    // Writes (write, pwrite, writev) through a descriptor opened with O_DSYNC or O_SYNC: each is
    // durable when it returns, as a write followed by fdatasync is. Counted besides the write.
    std::uint64_t synced_writes = 0;

    std::uint64_t total_calls() const;
    // Calls that made data durable: fsync, fdatasync (direct or through io_uring), synced writes.
    std::uint64_t syncs() const;
    std::uint64_t data_calls() const;  // calls that move data (read/write families, offloads)
    Counters& operator+=(const Counters& o);
    Counters operator-(const Counters& o) const;
};
IOLAB_IO_API Counters& thread_counters();

// An open file descriptor that knows the path it names, for error messages. Closing on
// destruction ignores errors; call close() to see them.
class IOLAB_IO_API Fd {
public:
    Fd() = default;
    Fd(int fd, std::string path, bool synced = false) : fd_(fd), path_(std::move(path)), synced_(synced) {}
    Fd(Fd&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)), synced_(o.synced_) { o.fd_ = -1; }
    Fd& operator=(Fd&& o) noexcept;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd();

    int get() const noexcept { return fd_; }
    const std::string& path() const noexcept { return path_; }
    // Opened with O_DSYNC or O_SYNC: every write through it is durable when it returns.
    bool synced() const noexcept { return synced_; }
    explicit operator bool() const noexcept { return fd_ >= 0; }
    void close();
    // Gives the descriptor up (to a stream that closes it): this Fd no longer holds it.
    int release() noexcept {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }

private:
    int fd_ = -1;
    std::string path_;
    bool synced_ = false;
};

IOLAB_IO_API Fd open(const std::string& path, int flags, mode_t mode = 0600);
// Below a folder held by a descriptor (trees of many files): open, make a folder, remove a file or
// (AT_REMOVEDIR) a folder. `path` names the result in errors. mkdirat and unlinkat are retried on
// EINTR and EAGAIN; a retry that finds the folder there (EEXIST) or the name gone (ENOENT) takes
// it that the interrupted call did the work.
IOLAB_IO_API Fd openat(const Fd& dir, const char* name, int flags, mode_t mode = 0600);
IOLAB_IO_API void mkdirat(const Fd& dir, const char* name, mode_t mode = 0700);
IOLAB_IO_API void unlinkat(const Fd& dir, const char* name, int flags = 0);
// renameat2(2) of `from` to `to`, both below `dir` (flags: RENAME_EXCHANGE, RENAME_NOREPLACE), and
// linkat(2) of `from` (a path, AT_SYMLINK_FOLLOW: a /proc/self/fd link gives an unnamed file its
// name) to `to` below `dir`. Retried on EINTR and EAGAIN; a rename whose retry finds `from` gone,
// or a link whose retry finds `to` there, takes it that the interrupted call did it.
IOLAB_IO_API void renameat(const Fd& dir, const char* from, const char* to, unsigned flags = 0);
IOLAB_IO_API void linkat(const char* from, const Fd& dir, const char* to);
// getdents64(2) into buf: bytes of entries, 0 at the end of the folder.
IOLAB_IO_API std::size_t getdents(const Fd& dir, void* buf, std::size_t n);
// statx(2) of name below dir (AT_SYMLINK_NOFOLLOW): the size of a regular file, or -1 for anything else.
IOLAB_IO_API std::int64_t statx_size(const Fd& dir, const char* name);

IOLAB_IO_API std::size_t read_some(const Fd& fd, void* buf, std::size_t n);  // 0 means EOF
IOLAB_IO_API std::size_t read_full(const Fd& fd, void* buf, std::size_t n);  // < n only at EOF
IOLAB_IO_API std::size_t pread_some(const Fd& fd, void* buf, std::size_t n, off_t off);
IOLAB_IO_API std::size_t pread_full(const Fd& fd, void* buf, std::size_t n, off_t off);
IOLAB_IO_API std::size_t readv_some(const Fd& fd, const iovec* iov, int iovcnt);

IOLAB_IO_API std::size_t write_some(const Fd& fd, const void* buf, std::size_t n);
IOLAB_IO_API void write_all(const Fd& fd, const void* buf, std::size_t n);
IOLAB_IO_API std::size_t pwrite_some(const Fd& fd, const void* buf, std::size_t n, off_t off);
IOLAB_IO_API void pwrite_all(const Fd& fd, const void* buf, std::size_t n, off_t off);
// Writes every byte the vector describes; iov is modified as it is consumed.
IOLAB_IO_API void writev_all(const Fd& fd, iovec* iov, int iovcnt);

// Kernel-side copies. Each returns what one call moved (0: the source is at EOF, or for
// copy_file_range the filesystem could not copy); errors throw IoError, whose code() lets
// a caller fall back on "not supported here" errnos.
IOLAB_IO_API std::size_t sendfile_some(const Fd& out, const Fd& in, off_t* in_off, std::size_t n);
IOLAB_IO_API std::size_t copy_file_range_some(const Fd& in, off_t* in_off, const Fd& out, off_t* out_off, std::size_t n);
IOLAB_IO_API std::size_t splice_some(const Fd& in, off_t* in_off, const Fd& out, off_t* out_off, std::size_t n, unsigned flags);
IOLAB_IO_API void clone_file(const Fd& dst, const Fd& src);  // ioctl(FICLONE)

IOLAB_IO_API void fsync(const Fd& fd);
IOLAB_IO_API void fdatasync(const Fd& fd);
// sync_file_range(2): starts (or waits for) writeback of a range. It flushes neither metadata nor
// the device's cache, so it makes nothing durable by itself (not counted by Counters::syncs).
IOLAB_IO_API void sync_file_range(const Fd& fd, off_t off, off_t len, unsigned flags);
IOLAB_IO_API void ftruncate(const Fd& fd, off_t len);
// Reserves the blocks of [off, off + len) (posix_fallocate: glibc writes zeros where the
// filesystem cannot), so a full disk is an ENOSPC here rather than a SIGBUS in a mapping.
IOLAB_IO_API void allocate(const Fd& fd, off_t off, off_t len);
IOLAB_IO_API void fadvise(const Fd& fd, off_t off, off_t len, int advice);
IOLAB_IO_API std::uint64_t file_size(const Fd& fd);
IOLAB_IO_API off_t lseek(const Fd& fd, off_t off, int whence);

// O_DIRECT alignment for a file: of buffers in memory, and of file offsets and lengths.
// From statx(STATX_DIOALIGN) where the kernel and filesystem report it (Linux 6.1+), else
// 4096, which satisfies any logical block size up to 4 KiB. direct_io == false when the
// filesystem reports that it does not support direct I/O.
struct IOLAB_IO_API DirectAlignment {
    std::size_t memory = 4096;
    std::size_t offset = 4096;
    bool reported = false;
    bool direct_io = true;
};
IOLAB_IO_API DirectAlignment direct_alignment(const Fd& fd);

struct IOLAB_IO_API Pipe {
    Fd read_end;
    Fd write_end;
};
IOLAB_IO_API Pipe make_pipe();

// A memory mapping, unmapped on destruction.
class IOLAB_IO_API Mapping {
public:
    Mapping() = default;
    Mapping(Mapping&& o) noexcept;
    Mapping& operator=(Mapping&& o) noexcept;
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    ~Mapping();

    std::byte* data() const noexcept { return static_cast<std::byte*>(addr_); }
    std::size_t size() const noexcept { return len_; }
    void advise(int advice);

private:
    friend Mapping map(const Fd&, std::size_t, int, int, off_t);
    void* addr_ = nullptr;
    std::size_t len_ = 0;
    std::string path_;
};
// A zero length yields an empty mapping without a call (mmap refuses length 0).
IOLAB_IO_API Mapping map(const Fd& fd, std::size_t len, int prot, int flags, off_t off = 0);

}  // namespace iolab::sys
