#include "iolab/core/scratch.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <vector>

#include "iolab/core/interrupt.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

std::string default_scratch_parent() {
    const char* t = std::getenv("TMPDIR");
    return (t && *t) ? std::string(t) : std::string("/tmp");
}

std::string ScratchDir::sibling_at(const std::string& folder, const std::string& file) const {
    if (folder.empty() || folder == "." || folder == ".." || folder.find('/') != std::string::npos)
        throw std::invalid_argument("not a folder name: '" + folder + "'");
    return parent_base_ + "/" + folder + "/" + file;
}

ScratchDir::ScratchDir(const std::string& parent) {
    std::string where = parent.empty() ? default_scratch_parent() : parent;
    while (where.size() > 1 && where.back() == '/') where.pop_back();
    parent_fd_ = ::open(where.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent_fd_ < 0) throw IoError(errno, "open the scratch folder's parent", where);
    std::string tmpl = where + "/iolab.XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) {
        const int e = errno;
        ::close(parent_fd_);
        throw IoError(e, "create a scratch folder in", where);
    }
    path_ = buf.data();  // mkdtemp creates it with mode 0700
    name_ = path_.substr(path_.rfind('/') + 1);
    // From here on the folder is reached through its descriptor only. It must be what mkdtemp
    // made: a folder of ours, mode 0700, not a link put in its place.
    dir_fd_ = ::openat(parent_fd_, name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st {};
    if (dir_fd_ < 0 || ::fstat(dir_fd_, &st) != 0 || st.st_uid != ::geteuid() || (st.st_mode & 0777) != 0700) {
        const int e = dir_fd_ < 0 ? errno : EPERM;
        if (dir_fd_ >= 0) ::close(dir_fd_);
        ::close(parent_fd_);
        throw IoError(e, "open the scratch folder (it was replaced as it was made)", path_);
    }
    const bool proc = ::access("/proc/self/fd", X_OK) == 0;
    base_ = proc ? "/proc/self/fd/" + std::to_string(dir_fd_) : path_;
    parent_base_ = proc ? "/proc/self/fd/" + std::to_string(parent_fd_) : where;
    interrupt::add_cleanup_tree(ScratchTree{parent_fd_, name_, dir_fd_, st.st_dev, st.st_ino});
    // The lock says the folder is in use for as long as this process (or a fork) lives.
    lock_fd_ = ::openat(dir_fd_, "lock", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lock_fd_ >= 0 && ::flock(lock_fd_, LOCK_EX | LOCK_NB) == 0) {
        char stamp[64] = "";
        const std::time_t now = std::time(nullptr);
        std::tm tm{};
        ::gmtime_r(&now, &tm);
        std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
        const std::string owner = "pid " + std::to_string(::getpid()) + " started " + stamp + "\n";
        [[maybe_unused]] const ssize_t n = ::write(lock_fd_, owner.data(), owner.size());
    }
}

void ScratchDir::keep(bool k) {
    if (k == keep_ || removed_) return;
    keep_ = k;
    if (k) {
        interrupt::remove_cleanup_tree(dir_fd_);
    } else {
        struct stat st {};
        ::fstat(dir_fd_, &st);
        interrupt::add_cleanup_tree(ScratchTree{parent_fd_, name_, dir_fd_, st.st_dev, st.st_ino});
    }
}

ScratchDir::~ScratchDir() {
    if (!keep_) remove();
    interrupt::remove_cleanup_tree(dir_fd_);
    for (int fd : {lock_fd_, dir_fd_, parent_fd_})
        if (fd >= 0) ::close(fd);
}

void ScratchDir::remove() {
    if (removed_ || dir_fd_ < 0) return;
    removed_ = true;
    struct stat st {};
    ::fstat(dir_fd_, &st);
    // Removed before it is forgotten: a signal in between still finds it to remove.
    remove_scratch_tree(ScratchTree{parent_fd_, name_, dir_fd_, st.st_dev, st.st_ino});
    interrupt::remove_cleanup_tree(dir_fd_);
}

void remove_scratch_tree(const ScratchTree& t) {
    if (t.dir_fd < 0) return;
    empty_folder(t.dir_fd);
    // The name goes only if it still is this folder: a link or another folder put in its place
    // (or the folder renamed away) is left alone.
    struct stat st {};
    if (::fstatat(t.parent_fd, t.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
        st.st_dev == t.dev && st.st_ino == t.ino)
        ::unlinkat(t.parent_fd, t.name.c_str(), AT_REMOVEDIR);
}

std::vector<StaleScratch> find_stale_scratch(const std::string& parent) {
    std::vector<StaleScratch> out;
    const int pfd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0) return out;
    DIR* d = ::fdopendir(pfd);
    if (!d) {
        ::close(pfd);
        return out;
    }
    while (dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.size() != 12 || name.rfind("iolab.", 0) != 0) continue;
        struct stat st {};
        if (::fstatat(pfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != ::geteuid())
            continue;
        const int dfd = ::openat(pfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0) continue;
        StaleScratch s{parent + "/" + name, ""};
        const int lock = ::openat(dfd, "lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        bool stale = false;
        if (lock >= 0) {
            // Held by a live run: taking it fails at once.
            stale = ::flock(lock, LOCK_EX | LOCK_NB) == 0;
            char buf[128] = {};
            const ssize_t n = ::read(lock, buf, sizeof buf - 1);
            if (n > 0) s.owner = std::string(buf, static_cast<std::size_t>(n));
            while (!s.owner.empty() && (s.owner.back() == '\n' || s.owner.back() == '\r')) s.owner.pop_back();
            ::close(lock);  // releases the lock if this took it
        } else {
            stale = std::time(nullptr) - st.st_mtime > 60;
        }
        ::close(dfd);
        if (stale) out.push_back(std::move(s));
    }
    ::closedir(d);
    return out;
}

void empty_folder(int dir_fd) {
    // A directory stream of its own, with its own offset (a dup would share it with whoever else
    // lists the folder at the same time: the signal watcher removing it on a second signal).
    const int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
    for (const auto& n : names) remove_tree_at(dir_fd, n);
    ::closedir(d);
}

void remove_tree_at(int dirfd, const std::string& name) {
    // Try it as a file (or symlink: unlinkat removes the link, not its target) first.
    if (::unlinkat(dirfd, name.c_str(), 0) == 0 || errno == ENOENT) return;
    const int fd = ::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    empty_folder(fd);
    ::close(fd);
    ::unlinkat(dirfd, name.c_str(), AT_REMOVEDIR);
}

}  // namespace iolab
