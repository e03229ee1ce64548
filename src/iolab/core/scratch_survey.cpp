// What `iolab clean` sees of the iolab.* folders under a parent: which are proven iolab's (a
// marker and a lock that agree, the folder as mkdtemp made it), which are in use, stale or kept,
// and the removal of those asked for, the proof last (scratch.hpp).
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "iolab/core/scratch.hpp"

namespace iolab {

namespace {

// A small regular file's text (at most 256 bytes), opened without following a link and without
// waiting (a FIFO in its place); nullopt with why when it is missing or anything else.
// Read and write for a lock: NFS takes an exclusive flock as a write lock.
std::optional<std::string> small_file(int dir, const char* name, int* fd_out, std::string* why) {
    const int fd = ::openat(dir, name, (fd_out ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *why = errno == ENOENT ? fmt::format("it has no {}", name)
                               : fmt::format("its {} cannot be opened ({})", name,
                                             errno == ELOOP ? "a symbolic link" : std::strerror(errno));
        return std::nullopt;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 256) {
        ::close(fd);
        *why = fmt::format("its {} is not a small regular file", name);
        return std::nullopt;
    }
    char buf[257] = {};
    ssize_t n;
    while ((n = ::pread(fd, buf, 256, 0)) < 0 && errno == EINTR) {
    }
    std::string text(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
    if (fd_out)
        *fd_out = fd;
    else
        ::close(fd);
    return text;
}

// The value after "key " on a line of text, or "".
std::string line_value(const std::string& text, const std::string& key) {
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        const std::string_view line(text.data() + at, end - at);
        if (line.starts_with(key + " ")) return std::string(line.substr(key.size() + 1));
        at = end + 1;
    }
    return {};
}

bool named_like_ours(const std::string& name) {
    if (name.size() != 12 || name.rfind("iolab.", 0) != 0) return false;
    return std::all_of(name.begin() + 6, name.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
}

std::string mode_text(mode_t m) { return fmt::format("{:04o}", m & 07777); }

// What the folder name in pfd is; holds its lock in *lock_fd when it is stale or kept.
// Why the entry `name` of the folder pfd is no folder iolab could have made ("": it could be).
std::string not_a_scratch_folder(int pfd, const std::string& name) {
    struct stat st {};
    if (::fstatat(pfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return "it went away";
    if (S_ISLNK(st.st_mode)) return "it is a symbolic link";
    if (!S_ISDIR(st.st_mode)) return "it is not a folder";
    if (!named_like_ours(name)) return "its name is not iolab.XXXXXX";
    if (mount_point(pfd, name.c_str())) return "it is a mount point";
    return {};
}

ScratchFolder look_at(int pfd, const std::string& parent, const std::string& name, int* dir_fd, int* lock_fd,
                      struct stat* id) {
    ScratchFolder f;
    f.path = parent + "/" + name;
    f.why = not_a_scratch_folder(pfd, name);
    if (!f.why.empty()) return f;
    const int dfd = ::openat(pfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0 || ::fstat(dfd, id) != 0) {
        f.why = fmt::format("it cannot be opened ({})", std::strerror(errno));
        if (dfd >= 0) ::close(dfd);
        return f;
    }
    const auto fail = [&](std::string why) {
        f.why = std::move(why);
        ::close(dfd);
        return f;
    };
    if (id->st_uid != ::geteuid()) return fail(fmt::format("it is owned by uid {}, not by you", id->st_uid));
    if ((id->st_mode & 07777) != 0700)
        return fail(fmt::format("its mode is {}, not 0700 as iolab makes them", mode_text(id->st_mode)));
    std::string why;
    const auto marker = small_file(dfd, kScratchMarker, nullptr, &why);
    if (!marker) return fail(why + ": not made by this iolab, or a run still starting");
    const std::string id_text = line_value(*marker, "id");
    if (id_text.size() != 32) return fail(std::string("its ") + kScratchMarker + " holds no identity");
    int lfd = -1;
    const auto lock = small_file(dfd, kScratchLock, &lfd, &why);
    if (!lock) return fail(why);
    if (line_value(*lock, "id") != id_text) {
        ::close(lfd);
        return fail("its lock does not name its marker's identity");
    }
    f.owner = lock->substr(0, lock->find('\n'));
    // Held by a live run (or a fork of one): taking it fails at once.
    if (::flock(lfd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        ::close(lfd);
        if (e != EWOULDBLOCK)
            return fail(
                fmt::format("its lock cannot be taken ({}): whether it is in use is unknown", std::strerror(e)));
        ::close(dfd);
        f.state = ScratchFolder::State::in_use;
        return f;
    }
    struct stat kst {};
    f.state = ::fstatat(dfd, kScratchKept, &kst, AT_SYMLINK_NOFOLLOW) == 0 ? ScratchFolder::State::kept
                                                                           : ScratchFolder::State::stale;
    *dir_fd = dfd;
    *lock_fd = lfd;
    return f;
}

}  // namespace

std::vector<ScratchFolder> survey_scratch(const std::string& parent, bool remove_stale, bool remove_kept) {
    std::vector<ScratchFolder> out;
    // Not followed: the parent checked (not a link) is the one listed.
    const int pfd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (pfd < 0) return out;
    std::vector<std::string> names;
    if (DIR* d = ::fdopendir(::dup(pfd))) {
        while (dirent* e = ::readdir(d))
            if (std::string_view(e->d_name).starts_with("iolab.")) names.emplace_back(e->d_name);
        ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
        int dfd = -1, lfd = -1;
        struct stat id {};
        ScratchFolder f = look_at(pfd, parent, name, &dfd, &lfd, &id);
        const bool remove = (f.state == ScratchFolder::State::stale && remove_stale) ||
                            (f.state == ScratchFolder::State::kept && remove_kept);
        if (remove) {
            // With its lock held: no run takes a folder of a killed run back, but a second clean
            // would find it held. The proof goes last: a folder that cannot be emptied (a file
            // that will not go) is still proven at the next clean.
            remove_scratch_tree(ScratchTree{pfd, name, dfd, id.st_dev, id.st_ino});
            struct stat st {};
            f.removed = ::fstatat(pfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0;
            if (!f.removed) f.left = what_stays(dfd);
        }
        for (int fd : {lfd, dfd})
            if (fd >= 0) ::close(fd);
        out.push_back(std::move(f));
    }
    ::close(pfd);
    return out;
}

std::vector<ScratchFolder> find_stale_scratch(const std::string& parent) {
    std::vector<ScratchFolder> out;
    for (auto& f : survey_scratch(parent))
        if (f.state == ScratchFolder::State::stale) out.push_back(std::move(f));
    return out;
}

}  // namespace iolab
