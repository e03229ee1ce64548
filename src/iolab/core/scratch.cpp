#include "iolab/core/scratch.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/core/units.hpp"
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

namespace {

// 16 random bytes in hex: no other folder, made by anyone, names it.
std::string random_id() {
    unsigned char b[16];
    std::size_t got = 0;
    while (got < sizeof b) {
        const ssize_t n = ::getrandom(b + got, sizeof b - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw IoError(errno, "get random bytes for", "a scratch folder's identity");
        got += static_cast<std::size_t>(n);
    }
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : b) {
        out += hex[c >> 4];
        out += hex[c & 15];
    }
    return out;
}

// Writes text whole into a new file `name` in dir (O_EXCL); the descriptor, or throws.
int write_new(int dir, const std::string& name, const std::string& text, const std::string& path) {
    const int fd = ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) throw IoError(errno, "create", path + "/" + name);
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int e = n < 0 ? errno : EIO;
            ::close(fd);
            throw IoError(e, "write", path + "/" + name);
        }
        done += static_cast<std::size_t>(n);
    }
    return fd;
}

}  // namespace

void (*ScratchDir::on_step)(const std::string& path) = nullptr;

bool ScratchDir::bookkeeping(std::string_view name) {
    return name == kScratchLock || name == kScratchMarker || name == kScratchKept;
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
    if (dir_fd_ < 0 || ::fstat(dir_fd_, &st) != 0 || st.st_uid != ::geteuid() || (st.st_mode & 07777) != 0700) {
        const int e = dir_fd_ < 0 ? errno : EPERM;
        if (dir_fd_ >= 0) ::close(dir_fd_);
        ::close(parent_fd_);
        throw IoError(e, "open the scratch folder (it was replaced as it was made)", path_);
    }
    const bool proc = ::access("/proc/self/fd", X_OK) == 0;
    base_ = proc ? "/proc/self/fd/" + std::to_string(dir_fd_) : path_;
    parent_base_ = proc ? "/proc/self/fd/" + std::to_string(parent_fd_) : where;
    interrupt::add_cleanup_tree(ScratchTree{parent_fd_, name_, dir_fd_, st.st_dev, st.st_ino});
    if (on_step) on_step(path_);
    try {
        claim();
    } catch (...) {
        remove_scratch_tree(ScratchTree{parent_fd_, name_, dir_fd_, st.st_dev, st.st_ino});
        interrupt::remove_cleanup_tree(dir_fd_);
        for (int fd : {lock_fd_, dir_fd_, parent_fd_})
            if (fd >= 0) ::close(fd);
        throw;
    }
}

void ScratchDir::claim() {
    // The lock says the folder is in use for as long as this process (or a fork) lives. It is
    // made and taken under a name of its own, and only then renamed into place: whoever
    // finds "lock" finds it held. The marker comes after it: a folder with a marker has a
    // lock that names it.
    id_ = random_id();
    char stamp[64] = "";
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&now, &tm);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const std::string made = "lock." + id_;
    lock_fd_ = write_new(dir_fd_, made,
                         "pid " + std::to_string(::getpid()) + " started " + stamp + "\nid " + id_ + "\n", path_);
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        // A filesystem without locks (Lustre mounted noflock): the run goes on, and without a
        // lock and a marker its folder is never proven iolab's, so no clean removes it.
        if (e != ENOSYS && e != ENOLCK && e != EOPNOTSUPP && e != EINVAL) throw IoError(e, "lock", path_ + "/" + made);
        ::close(lock_fd_);
        lock_fd_ = -1;
        ::unlinkat(dir_fd_, made.c_str(), 0);
        return;
    }
    if (::renameat(dir_fd_, made.c_str(), dir_fd_, kScratchLock) != 0)
        throw IoError(errno, "rename the lock in", path_);
    if (on_step) on_step(path_);
    ::close(write_new(dir_fd_, kScratchMarker, "iolab scratch folder\nid " + id_ + "\n", path_));
    if (on_step) on_step(path_);
}

void ScratchDir::keep(bool k) {
    if (k == keep_ || removed_) return;
    keep_ = k;
    if (k) {
        interrupt::remove_cleanup_tree(dir_fd_);
        const int fd = ::openat(dir_fd_, kScratchKept, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) ::close(fd);
    } else {
        ::unlinkat(dir_fd_, kScratchKept, 0);
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
    // Gone, or what stayed (in it, or its name in a parent that would not let it go).
    if (::fstatat(parent_fd_, name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
    left_ = what_stays(dir_fd_);
    // Emptied, marker and lock too, and then its name would not go: clean can no longer prove it.
    left_proven_ = ::fstatat(dir_fd_, kScratchMarker, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

std::optional<std::vector<std::string>> entries_besides_bookkeeping(int dir_fd) {
    const int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* d = fd >= 0 ? ::fdopendir(fd) : nullptr;
    if (!d) {
        if (fd >= 0) ::close(fd);
        return std::nullopt;
    }
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (n != "." && n != ".." && !ScratchDir::bookkeeping(n)) names.push_back(n);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> what_stays(int dir_fd) {
    std::vector<std::string> out;
    const auto names = entries_besides_bookkeeping(dir_fd);
    if (!names) return {"its entries cannot be listed"};
    for (const auto& n : *names)
        out.push_back(mount_point(dir_fd, n.c_str()) ? fmt::format("'{}' is a mount point", one_line(n))
                                                     : fmt::format("'{}' could not be removed", one_line(n)));
    if (out.empty()) out.push_back("the folder itself could not be removed (is its parent immutable?)");
    return out;
}

void remove_scratch_tree(const ScratchTree& t) {
    if (t.dir_fd < 0) return;
    // Everything but the marker and the lock first: should anything stay (a filesystem mounted
    // inside during the run), the folder stays proven iolab's, for `iolab clean` to name and take.
    const auto first = entries_besides_bookkeeping(t.dir_fd);
    if (!first) return;
    for (const auto& n : *first) remove_tree_at(t.dir_fd, n);
    if (const auto left = entries_besides_bookkeeping(t.dir_fd); !left || !left->empty()) return;
    for (const char* n : {kScratchKept, kScratchMarker, kScratchLock}) ::unlinkat(t.dir_fd, n, 0);
    // The name goes only if it still is this folder: a link or another folder put in its place
    // (or the folder renamed away) is left alone.
    struct stat st {};
    if (::fstatat(t.parent_fd, t.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
        st.st_dev == t.dev && st.st_ino == t.ino)
        ::unlinkat(t.parent_fd, t.name.c_str(), AT_REMOVEDIR);
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

namespace {

std::optional<std::uint64_t> mount_id(int dirfd, const char* name) {
    struct statx stx {};
    if (::statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_MNT_ID, &stx) != 0 ||
        !(stx.stx_mask & STATX_MNT_ID))
        return std::nullopt;
    return stx.stx_mnt_id;
}

}  // namespace

bool mount_point(int dirfd, const char* name) {
    struct stat inside {
    }, outside{};
    if (::fstatat(dirfd, name, &inside, AT_SYMLINK_NOFOLLOW) != 0 || ::fstat(dirfd, &outside) != 0) return true;
    if (inside.st_dev != outside.st_dev) return true;
    // A bind mount of the same filesystem has the same device: its mount differs.
    const auto in = mount_id(dirfd, name), out = mount_id(dirfd, ".");
    return in && out && *in != *out;
}

void remove_tree_at(int dirfd, const std::string& name) {
    // Try it as a file (or symlink: unlinkat removes the link, not its target) first.
    if (::unlinkat(dirfd, name.c_str(), 0) == 0 || errno == ENOENT) return;
    // Never into another filesystem mounted inside (a bind mount of a folder elsewhere).
    if (mount_point(dirfd, name.c_str())) return;
    const int fd = ::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    empty_folder(fd);
    ::close(fd);
    ::unlinkat(dirfd, name.c_str(), AT_REMOVEDIR);
}

}  // namespace iolab
