#include "iolab/report/output_file.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include <climits>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace iolab {

namespace {
std::string folder_of(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}
}  // namespace

namespace {

// The name and its folder: a file name, in an existing, writable folder.
void check_output_name(const std::string& path, const char* option) {
    if (path.empty() || path.back() == '/')
        throw InputError(fmt::format("invalid {} '{}': expected a file name", option, path));
    const std::string dir = folder_of(path);
    if (path.size() - path.rfind('/') - 1 > NAME_MAX)
        throw InputError(fmt::format("invalid {} '{}': the file name is longer than {} bytes", option, path, NAME_MAX));
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw InputError(fmt::format("invalid {} '{}': the folder '{}' does not exist", option, path, dir));
    if (::access(dir.c_str(), W_OK) != 0)
        throw InputError(fmt::format("invalid {} '{}': the folder '{}' is not writable", option, path, dir));
}

// Whether something is there to be replaced, which only force allows.
void check_not_there(const std::string& path, bool force, const char* option) {
    struct stat st {};
    if (!force && ::lstat(path.c_str(), &st) == 0)
        throw InputError(
            fmt::format("{} '{}' already exists: choose another name, or add --force to replace it", option, path));
}

const char* kind_of(mode_t m) {
    if (S_ISDIR(m)) return "a folder";
    if (S_ISBLK(m) || S_ISCHR(m)) return "a device";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

// The folder's canonical path and the file's name: two spellings of one name compare equal.
std::string canonical_name(const std::string& path) {
    const auto slash = path.rfind('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    char* real = ::realpath(folder_of(path).c_str(), nullptr);
    if (!real) return path;
    std::string out = std::string(real) + "/" + name;
    std::free(real);
    return out;
}

}  // namespace

void check_output_path(const std::string& path, bool force, const char* option) {
    check_output_name(path, option);
    check_not_there(path, force, option);
}

void check_output_paths(const std::vector<ResultPath>& results, bool force, const std::vector<std::string>& inputs) {
    std::vector<struct stat> in(inputs.size());
    std::vector<bool> have_input(inputs.size());
    for (std::size_t k = 0; k < inputs.size(); ++k) have_input[k] = ::stat(inputs[k].c_str(), &in[k]) == 0;
    for (std::size_t i = 0; i < results.size(); ++i) {
        const auto& [option, path] = results[i];
        // The name and its folder first, then what is there, then whether it may be replaced:
        // each refusal names its own reason.
        check_output_name(path, option.c_str());
        struct stat st {};
        if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
            throw InputError(
                fmt::format("invalid {} '{}': it is {}; a result is written only as a regular "
                            "file",
                            option, path, kind_of(st.st_mode)));
        struct stat target {};
        const bool exists = ::stat(path.c_str(), &target) == 0;
        for (std::size_t k = 0; k < inputs.size(); ++k)
            if (canonical_name(path) == canonical_name(inputs[k]) ||
                (exists && have_input[k] && target.st_dev == in[k].st_dev && target.st_ino == in[k].st_ino))
                throw InputError(fmt::format("invalid {} '{}': it is the input file '{}', which iolab never writes",
                                             option, path, inputs[k]));
        check_not_there(path, force, option.c_str());
        for (std::size_t k = 0; k < i; ++k) {
            struct stat other {};
            const bool same_inode = exists && ::stat(results[k].path.c_str(), &other) == 0 &&
                                    other.st_dev == target.st_dev && other.st_ino == target.st_ino;
            if (same_inode || canonical_name(path) == canonical_name(results[k].path))
                throw InputError(
                    fmt::format("{} and {} name the same file '{}': give each result its own "
                                "file",
                                results[k].option, option, path));
        }
    }
}

void write_file_atomically(const std::string& path, std::string_view content, bool force) {
    const std::string dir = folder_of(path);
    // The temporary name does not grow with the result's: any valid name can be written.
    std::string tmpl = (dir == "/" ? std::string() : dir) + "/.iolab-tmp-XXXXXX";
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    const int raw = ::mkstemp(name.data());
    if (raw < 0) throw IoError(errno, "create a temporary file in", dir);
    const std::string tmp = name.data();
    interrupt::add_cleanup_file(tmp);  // a signal while writing leaves no temporary file
    struct Forget {
        const std::string& path;
        ~Forget() { interrupt::remove_cleanup_file(path); }
    } forget{tmp};
    try {
        sys::Fd fd(raw, tmp);
        // A replaced file keeps its mode; a new one gets what the umask allows.
        struct stat old {};
        mode_t mode = 0;
        if (::lstat(path.c_str(), &old) == 0) {
            if (!S_ISREG(old.st_mode) && !S_ISLNK(old.st_mode)) throw IoError(EEXIST, "replace", path);
            if (!force) throw IoError(EEXIST, "create", path);
            mode = S_ISREG(old.st_mode) ? old.st_mode & 07777 : 0;
        }
        if (mode == 0) {
            const mode_t mask = ::umask(0);
            ::umask(mask);
            mode = 0666 & ~mask;
        }
        if (::fchmod(fd.get(), mode) != 0) throw IoError(errno, "set the mode of", tmp);
        sys::write_all(fd, content.data(), content.size());
        sys::fsync(fd);
        fd.close();
        // RENAME_NOREPLACE makes "do not overwrite" atomic too: no window between a check and
        // the rename in which another process's file could be replaced.
        const unsigned flags = force ? 0u : RENAME_NOREPLACE;
        if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), flags) != 0) {
            if (errno == EINVAL && !force) {
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
    const sys::Fd d = sys::open(dir, O_RDONLY | O_DIRECTORY);
    sys::fsync(d);
}

}  // namespace iolab
