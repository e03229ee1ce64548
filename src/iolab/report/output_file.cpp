#include "iolab/report/output_file.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

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

void check_output_path(const std::string& path, bool force, const char* option) {
    if (path.empty() || path.back() == '/')
        throw std::invalid_argument(fmt::format("invalid {} '{}': expected a file name", option, path));
    const std::string dir = folder_of(path);
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw std::invalid_argument(fmt::format("invalid {} '{}': the folder '{}' does not exist", option, path, dir));
    if (::access(dir.c_str(), W_OK) != 0)
        throw std::invalid_argument(fmt::format("invalid {} '{}': the folder '{}' is not writable", option, path, dir));
    if (!force && ::lstat(path.c_str(), &st) == 0)
        throw std::invalid_argument(
            fmt::format("{} '{}' already exists: choose another name, or add --force to replace it", option, path));
}

void write_file_atomically(const std::string& path, std::string_view content, bool force) {
    const std::string dir = folder_of(path);
    std::string tmpl = path + ".iolab-tmp-XXXXXX";
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    const int raw = ::mkstemp(name.data());
    if (raw < 0) throw IoError(errno, "create a temporary file in", dir);
    const std::string tmp = name.data();
    try {
        sys::Fd fd(raw, tmp);
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
