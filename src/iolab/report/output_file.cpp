#include "iolab/report/output_file.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include <climits>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/core/temporary.hpp"
#include "iolab/io/whole_file.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace iolab {

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

// The kernel filesystem a folder is on (procfs, sysfs, ...), or nullptr.
const char* kernel_filesystem(const std::string& folder) {
    struct statfs fs {};
    if (::statfs(folder.c_str(), &fs) != 0) return nullptr;
    switch (static_cast<unsigned long>(fs.f_type)) {
        case PROC_SUPER_MAGIC: return "procfs";
        case SYSFS_MAGIC: return "sysfs";
        case CGROUP_SUPER_MAGIC:
        case CGROUP2_SUPER_MAGIC: return "a cgroup filesystem";
        case DEBUGFS_MAGIC: return "debugfs";
        case TRACEFS_MAGIC: return "tracefs";
        case SECURITYFS_MAGIC: return "securityfs";
        default: return nullptr;
    }
}

const char* kind_of(mode_t m) {
    if (S_ISLNK(m)) return "a symbolic link";
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
        if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
            throw InputError(
                fmt::format("invalid {} '{}': it is {}; a result is written only as a regular "
                            "file, --force or not",
                            option, path, kind_of(st.st_mode)));
        if (const char* fs = kernel_filesystem(folder_of(path)))
            throw InputError(
                fmt::format("invalid {} '{}': it is on {}, a kernel filesystem; a result is written "
                            "only as a regular file",
                            option, path, fs));
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
    AtomicWriteOptions o;
    o.replace = force;
    // A signal while writing leaves no temporary file.
    o.track_temporary = [](const std::string& tmp, bool made) {
        if (made)
            interrupt::add_cleanup_file(tmp);
        else
            interrupt::remove_cleanup_file(tmp);
    };
    write_file_atomic(path, content, o);
}

}  // namespace iolab
