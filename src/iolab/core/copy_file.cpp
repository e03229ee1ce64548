#include "iolab/core/copy_file.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "iolab/core/temporary.hpp"
#include "iolab/io/profile.hpp"
#include "iolab/io/whole_file.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

std::string_view to_string(CopyMethod m) {
    switch (m) {
        case CopyMethod::reflink: return "reflink";
        case CopyMethod::copy_file_range: return "copy_file_range";
        case CopyMethod::sendfile: return "sendfile";
        case CopyMethod::read_write: return "read/write";
    }
    return "?";
}

namespace {

constexpr std::uint64_t kToEof = UINT64_MAX;

// errno values that mean "this call cannot do this copy here", after which a simpler method
// is tried: GNU cp's copy-file-data.c and Rust's std::fs::copy agree on these.
bool not_supported_here(int e) {
    switch (e) {
        case EXDEV:
        case EINVAL:
        case ENOSYS:
        case EOPNOTSUPP:
        case EPERM:
        case ETXTBSY:
        case EBADF:
        case ENOTTY: return true;
        default: return false;
    }
}

class Copier {
public:
    Copier(const sys::Fd& in, const sys::Fd& out, const CopyOptions& o, const Tuned* how, std::uint64_t size)
        : in_(in), out_(out), chunk_(std::max<std::size_t>(o.chunk, 1)) {
        std::size_t buffer = std::max<std::size_t>(o.buffer, 1);
        if (how) {
            if (how->method == "sendfile") method_ = CopyMethod::sendfile;
            if (how->method == "read/write") method_ = CopyMethod::read_write;
            if (how->buffer > 0) (method_ == CopyMethod::read_write ? buffer : chunk_) = how->buffer;
        }
        // Never a buffer larger than the file (plus a page, to see its end in one read).
        buf_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(buffer, size + 4096)));
    }

    // Copies [off, end) (end may be kToEof) and returns the offset reached: end, or the end
    // of file if that came first.
    std::uint64_t range(std::uint64_t off, std::uint64_t end) {
        while (off < end) {
            const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(end - off, chunk_));
            std::size_t got = 0;
            try {
                got = step(off, want);
            } catch (const IoError& e) {
                if (method_ == CopyMethod::read_write || !not_supported_here(e.code())) throw;
                downgrade();
                continue;
            }
            if (got == 0) {
                // copy_file_range returns 0 at end of file, but also on filesystems that cannot
                // serve it (procfs, some FUSE): before it has copied anything, fall back.
                if (method_ == CopyMethod::copy_file_range && !moved_any_[0]) {
                    downgrade();
                    continue;
                }
                break;
            }
            note(got);
            off += got;
        }
        return off;
    }

    CopyResult& result() { return result_; }

private:
    std::size_t step(std::uint64_t off, std::size_t want) {
        switch (method_) {
            case CopyMethod::copy_file_range: {
                off_t i = static_cast<off_t>(off), o = static_cast<off_t>(off);
                return sys::copy_file_range_some(in_, &i, out_, &o, want);
            }
            case CopyMethod::sendfile: {
                // sendfile writes at the destination's file position.
                sys::lseek(out_, static_cast<off_t>(off), SEEK_SET);
                off_t i = static_cast<off_t>(off);
                return sys::sendfile_some(out_, in_, &i, want);
            }
            default: {
                const std::size_t n =
                    sys::pread_some(in_, buf_.data(), std::min(want, buf_.size()), static_cast<off_t>(off));
                sys::pwrite_all(out_, buf_.data(), n, static_cast<off_t>(off));
                return n;
            }
        }
    }
    void downgrade() {
        method_ = method_ == CopyMethod::copy_file_range ? CopyMethod::sendfile : CopyMethod::read_write;
    }
    void note(std::size_t n) {
        result_.bytes += n;
        const auto i = static_cast<std::size_t>(method_) - 1;
        if (!moved_any_[i]) result_.methods.push_back(method_);
        moved_any_[i] = true;
    }

    const sys::Fd& in_;
    const sys::Fd& out_;
    std::size_t chunk_;
    std::vector<std::byte> buf_;
    CopyMethod method_ = CopyMethod::copy_file_range;
    bool moved_any_[3] = {false, false, false};
    CopyResult result_;
};

}  // namespace

CopyResult copy_contents(const sys::Fd& in, const sys::Fd& out, const CopyOptions& options) {
    try {
        sys::clone_file(out, in);
        CopyResult r;
        r.bytes = sys::file_size(in);
        r.methods.push_back(CopyMethod::reflink);
        return r;
    } catch (const IoError& e) {
        if (!not_supported_here(e.code())) throw;
    }
    const Profile& tuning = options.profile ? *options.profile : profile();
    struct stat st {};
    const Tuned* how = ::fstat(in.get(), &st) == 0 && S_ISREG(st.st_mode)
                           ? tuning.choice("copy", static_cast<std::uint64_t>(st.st_size), st.st_dev)
                           : nullptr;
    Copier c(in, out, options, how, static_cast<std::uint64_t>(st.st_size));
    std::uint64_t pos = 0;
    // Extent by extent, asking again after each one, so data appended meanwhile is found too.
    bool whole = !options.keep_holes;
    bool hole_at_end = false;
    while (!whole) {
        off_t data = 0;
        try {
            data = sys::lseek(in, static_cast<off_t>(pos), SEEK_DATA);
        } catch (const IoError& e) {
            if (e.code() == ENXIO) {  // no data after pos: the rest is a hole
                hole_at_end = true;
                break;
            }
            if (!not_supported_here(e.code())) throw;  // EIO: a failure, not a missing feature
            whole = true;                              // SEEK_DATA unsupported: copy it all as data
            break;
        }
        const off_t hole = sys::lseek(in, data, SEEK_HOLE);
        pos = c.range(static_cast<std::uint64_t>(data), static_cast<std::uint64_t>(hole));
        if (pos < static_cast<std::uint64_t>(hole)) break;  // the source shrank, or reads less than it says
    }
    // Without extents: everything to the end of file as it is now, not as it was at open.
    if (whole) pos = c.range(pos, kToEof);
    // A trailing hole is not written: extend the destination to the source's length. Only for a
    // hole: a file whose reads end before the size it reports (sysfs) is copied as read.
    const std::uint64_t size = sys::file_size(in);
    if (hole_at_end && size > pos && sys::file_size(out) < size) sys::ftruncate(out, static_cast<off_t>(size));
    return c.result();
}

CopyResult copy_file(const std::string& src, const std::string& dst, const CopyOptions& options) {
    const sys::Fd in = sys::open(src, O_RDONLY | O_CLOEXEC);
    struct stat s {
    }, d{};
    if (::fstat(in.get(), &s) != 0) throw IoError(errno, "stat", src);
    const bool exists = ::stat(dst.c_str(), &d) == 0;
    if (exists && d.st_dev == s.st_dev && d.st_ino == s.st_ino)
        throw IoError(EINVAL, "copy " + src + " onto itself:", dst);
    if (exists && !options.overwrite) throw IoError(EEXIST, "copy " + src + " to", dst);

    // A new file is written in place; a replacement goes to a temporary name first and is
    // renamed over the old file only once complete, so a failure leaves the old file as it was.
    // The temporary name is unique (mkostemp) and short, whatever the destination's name.
    std::string target = dst;
    // The source's permission bits less the umask, as cp without -p gives (never setuid or setgid):
    // open(2) takes the umask off a new file's; a temporary one's are set, so only it reads it.
    const mode_t mode = s.st_mode & 0777;
    sys::Fd out;
    if (exists) {
        out = temporary_beside(dst, "copy");
        target = out.path();
        if (::fchmod(out.get(), mode & ~process_umask()) != 0) {
            const int e = errno;
            ::unlink(target.c_str());
            throw IoError(e, "set the mode of", target);
        }
    } else {
        out = sys::open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    }
    try {
        CopyResult r = copy_contents(in, out, options);
        // A replacement's data is on disk before the rename, so a crash leaves the old file or the
        // whole new one.
        if (exists) sys::fsync(out);
        out.close();
        if (exists && ::rename(target.c_str(), dst.c_str()) != 0) throw IoError(errno, "replace", dst);
        return r;
    } catch (...) {
        ::unlink(target.c_str());
        throw;
    }
}

}  // namespace iolab
