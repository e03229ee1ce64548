#include "iolab/io/whole_file.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "iolab/core/temporary.hpp"
#include "iolab/io/error.hpp"
#include "iolab/io/profile.hpp"
#include "iolab/io/syscalls.hpp"

namespace iolab {

std::vector<std::byte> read_file(const std::string& path) { return read_file(path, profile()); }

std::vector<std::byte> read_file(const std::string& path, const Profile& tuning) {
    const sys::Fd fd = sys::open(path, O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw IoError(errno, "stat", path);
    // A file larger than this machine's memory cannot be held in it: refused before any is taken.
    const auto memory =
        static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    if (static_cast<std::uint64_t>(st.st_size) >= memory) throw IoError(EFBIG, "read into memory the whole of", path);
    const auto size = static_cast<std::size_t>(st.st_size);
    // One byte more than the size: a read that fills it says the file grew.
    std::vector<std::byte> data(size + 1);
    std::size_t have = 0;
    const Tuned* how = S_ISREG(st.st_mode) ? tuning.choice("read", size, st.st_dev) : nullptr;
    if (how && how->method == "read" && how->buffer > 0) {
        while (have < size) {
            const std::size_t n = sys::read_full(fd, data.data() + have, std::min(how->buffer, size - have));
            have += n;
            if (n == 0) break;
        }
    }
    for (;;) {
        const std::size_t n = sys::read_full(fd, data.data() + have, data.size() - have);
        have += n;
        if (have < data.size()) break;  // end of file
        if (data.size() * 2 >= memory) throw IoError(EFBIG, "read into memory the whole of", path);
        data.resize(data.size() * 2);
    }
    data.resize(have);
    return data;
}

mode_t process_umask() {
    // From /proc (Linux 4.7+): setting the umask to read it would change it for every thread.
    try {
        const sys::Fd fd = sys::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
        char buf[4096];
        const std::size_t n = sys::read_full(fd, buf, sizeof buf - 1);
        buf[n] = '\0';
        if (const char* u = std::strstr(buf, "\nUmask:"))
            return static_cast<mode_t>(std::strtoul(u + 8, nullptr, 8) & 0777);
    } catch (const IoError&) {
    }
    const mode_t mask = ::umask(0);  // no /proc: the old way
    ::umask(mask);
    return mask;
}

std::string folder_of(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

sys::Fd temporary_beside(const std::string& path, const char* stem) {
    const std::string dir = folder_of(path);
    std::string name = (dir == "/" ? std::string() : dir) + "/.iolab-" + stem + "-XXXXXX";
    const int raw = ::mkostemp(name.data(), O_CLOEXEC);
    if (raw < 0) throw IoError(errno, "create a temporary file in", dir);
    return sys::Fd(raw, name);
}

void write_file_atomic(const std::string& path, std::span<const std::byte> data, const AtomicWriteOptions& options) {
    sys::Fd fd = temporary_beside(path, "tmp");
    const std::string tmp = fd.path();
    try {
        if (options.track_temporary) options.track_temporary(tmp, true);
    } catch (...) {
        ::unlink(tmp.c_str());
        throw;
    }
    struct Untrack {
        const AtomicWriteOptions& o;
        const std::string& tmp;
        ~Untrack() {
            try {
                if (o.track_temporary) o.track_temporary(tmp, false);
            } catch (...) {  // a destructor must not throw; the file is gone all the same
            }
        }
    } untrack{options, tmp};
    try {
        // A replaced file keeps its mode; a new one gets what the umask allows.
        struct stat old {};
        mode_t mode = 0;
        if (::lstat(path.c_str(), &old) == 0) {
            // Only a regular file is replaced: a symbolic link (to /dev/stdout, say), a device,
            // a FIFO or a folder in its place stays as it is.
            if (!S_ISREG(old.st_mode)) throw IoError(EEXIST, "replace what is not a regular file at", path);
            if (!options.replace) throw IoError(EEXIST, "create", path);
            mode = old.st_mode & 07777;
        }
        if (mode == 0) {
            mode = 0666 & ~process_umask();
        }
        if (::fchmod(fd.get(), mode) != 0) throw IoError(errno, "set the mode of", tmp);
        sys::write_all(fd, data.data(), data.size());
        sys::fsync(fd);
        fd.close();
        // RENAME_NOREPLACE makes "do not replace" atomic too: no window between a check and the
        // rename in which another process's file could be replaced.
        const unsigned flags = options.replace ? 0u : RENAME_NOREPLACE;
        if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), flags) != 0) {
            if (errno == EINVAL && !options.replace) {
                // The filesystem has no RENAME_NOREPLACE: link(2) also refuses to replace.
                if (::link(tmp.c_str(), path.c_str()) != 0) throw IoError(errno, "create", path);
                ::unlink(tmp.c_str());
            } else {
                throw IoError(errno, "create", path);
            }
        }
    } catch (...) {
        ::unlink(tmp.c_str());
        throw;
    }
    const sys::Fd d = sys::open(folder_of(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    sys::fsync(d);  // "cannot fsync DIR": the new file is in place, its rename not yet durable
}

void write_file_atomic(const std::string& path, std::string_view text, const AtomicWriteOptions& options) {
    write_file_atomic(path, std::as_bytes(std::span(text.data(), text.size())), options);
}

}  // namespace iolab
