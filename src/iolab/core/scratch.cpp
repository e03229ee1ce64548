#include "iolab/core/scratch.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "iolab/core/interrupt.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

std::string default_scratch_parent() {
    const char* t = std::getenv("TMPDIR");
    return (t && *t) ? std::string(t) : std::string("/tmp");
}

ScratchDir::ScratchDir(const std::string& parent) {
    std::string tmpl = (parent.empty() ? default_scratch_parent() : parent);
    while (tmpl.size() > 1 && tmpl.back() == '/') tmpl.pop_back();
    tmpl += "/iolab.XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) throw IoError(errno, "create a scratch folder in", parent);
    path_ = buf.data();  // mkdtemp creates it with mode 0700
    interrupt::add_cleanup_tree(path_);  // removed even if a signal ends iolab at once
}

void ScratchDir::keep(bool k) {
    if (k == keep_ || removed_) return;
    keep_ = k;
    k ? interrupt::remove_cleanup_tree(path_) : interrupt::add_cleanup_tree(path_);
}

ScratchDir::~ScratchDir() {
    if (!keep_) remove();
}

void ScratchDir::remove() {
    if (removed_ || path_.empty()) return;
    removed_ = true;
    remove_tree_at(AT_FDCWD, path_);
    interrupt::remove_cleanup_tree(path_);
}

void remove_tree_at(int dirfd, const std::string& name) {
    // Try it as a file (or symlink: unlinkat removes the link, not its target) first.
    if (::unlinkat(dirfd, name.c_str(), 0) == 0 || errno == ENOENT) return;
    const int fd = ::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    DIR* d = ::fdopendir(fd);
    if (!d) {
        ::close(fd);
        return;
    }
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (n != "." && n != "..") names.push_back(n);
    }
    for (const auto& n : names) remove_tree_at(fd, n);
    ::closedir(d);  // closes fd
    ::unlinkat(dirfd, name.c_str(), AT_REMOVEDIR);
}

}  // namespace iolab
