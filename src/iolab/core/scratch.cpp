#include "iolab/core/scratch.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
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
    // The lock says the folder is in use for as long as this process (or a fork) lives.
    lock_fd_ = ::open((path_ + "/lock").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
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
    k ? interrupt::remove_cleanup_tree(path_) : interrupt::add_cleanup_tree(path_);
}

ScratchDir::~ScratchDir() {
    if (!keep_) remove();
    if (lock_fd_ >= 0) ::close(lock_fd_);
}

void ScratchDir::remove() {
    if (removed_ || path_.empty()) return;
    removed_ = true;
    remove_tree_at(AT_FDCWD, path_);
    interrupt::remove_cleanup_tree(path_);
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
