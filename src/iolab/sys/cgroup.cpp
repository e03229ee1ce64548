#include "iolab/sys/cgroup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace iolab::sys {

namespace {

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// Writes text to a control file: the kernel takes it in one write or refuses it.
bool put(const std::string& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    return ok;
}

// The path of this process's cgroup in a hierarchy: the line of /proc/self/cgroup whose
// controllers field is `controllers` ("" for v2, "memory" for v1).
std::string own_path(const std::string& controllers) {
    std::istringstream in(slurp("/proc/self/cgroup"));
    for (std::string line; std::getline(in, line);) {
        const auto a = line.find(':'), b = line.find(':', a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        const std::string ctl = line.substr(a + 1, b - a - 1);
        if (ctl == controllers || (controllers == "memory" && (ctl.find("memory") != std::string::npos)))
            return line.substr(b + 1);
    }
    return {};
}

// Where a filesystem of type `type` (with `option` among its mount options, when given) is mounted.
std::string mount_point(const std::string& type, const std::string& option) {
    std::istringstream in(slurp("/proc/self/mounts"));
    for (std::string line; std::getline(in, line);) {
        std::istringstream f(line);
        std::string dev, dir, fs, opts;
        f >> dev >> dir >> fs >> opts;
        if (fs != type) continue;
        if (!option.empty() && ("," + opts + ",").find("," + option + ",") == std::string::npos) continue;
        return dir;
    }
    return {};
}

bool is_dir(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::vector<std::string> MemoryCgroup::remove_stale(const std::string& base) {
    std::vector<std::string> removed;
    DIR* d = ::opendir(base.c_str());
    if (!d) return removed;
    while (const dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (n.rfind("iolab-budget-", 0) != 0) continue;
        const long pid = std::strtol(n.c_str() + 13, nullptr, 10);
        if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH &&
            ::rmdir((base + "/" + n).c_str()) == 0)
            removed.push_back(base + "/" + n);
    }
    ::closedir(d);
    return removed;
}

std::vector<std::string> MemoryCgroup::remove_dead() {
    std::vector<std::string> removed;
    if (const std::string root = mount_point("cgroup2", ""); !root.empty() && !own_path("").empty())
        removed = remove_stale(root + (own_path("") == "/" ? "" : own_path("")));
    if (const std::string root = mount_point("cgroup", "memory"); !root.empty() && !own_path("memory").empty()) {
        const std::string path = own_path("memory");
        for (auto& r : remove_stale(root + (path == "/" ? "" : path))) removed.push_back(std::move(r));
    }
    return removed;
}

std::unique_ptr<MemoryCgroup> MemoryCgroup::make(std::uint64_t limit, std::string* why) {
    static unsigned made = 0;
    const std::string name = "/iolab-budget-" + std::to_string(::getpid()) + "-" + std::to_string(++made);
    // v2: the memory controller must be enabled for this cgroup's children.
    const std::string v2_root = mount_point("cgroup2", "");
    if (!v2_root.empty() && !own_path("").empty()) {
        const std::string base = v2_root + (own_path("") == "/" ? "" : own_path(""));
        // Appended, not " " + slurp(...): GCC 12 takes that for an overlapping copy (-Wrestrict).
        std::string enabled = " ";
        enabled += slurp(base + "/cgroup.subtree_control") + " ";
        remove_stale(base);
        if (enabled.find(" memory") != std::string::npos || enabled.find("memory ") != std::string::npos) {
            const std::string dir = base + name;
            if (::mkdir(dir.c_str(), 0700) == 0) {
                if (put(dir + "/memory.max", std::to_string(limit)) && put(dir + "/memory.swap.max", "0"))
                    return std::unique_ptr<MemoryCgroup>(new MemoryCgroup(dir, true, limit));
                ::rmdir(dir.c_str());
            }
        }
    }
    // v1: a memory hierarchy of its own.
    const std::string v1_root = mount_point("cgroup", "memory");
    if (!v1_root.empty()) {
        const std::string path = own_path("memory");
        if (path.empty()) return refuse(why, "cannot tell this process's memory cgroup (/proc/self/cgroup)");
        const std::string base = v1_root + (path == "/" ? "" : path);
        const std::string dir = base + name;
        if (is_dir(base)) remove_stale(base);
        if (is_dir(base) && ::mkdir(dir.c_str(), 0700) == 0) {
            if (put(dir + "/memory.limit_in_bytes", std::to_string(limit)))
                return std::unique_ptr<MemoryCgroup>(new MemoryCgroup(dir, false, limit));
            ::rmdir(dir.c_str());
        }
        return refuse(why, "cannot make a memory cgroup under " + base + ": " + std::strerror(errno));
    }
    return refuse(why, v2_root.empty() ? "this machine has no memory cgroup controller mounted"
                                       : "the memory controller is not delegated to this process's cgroup (cgroup v2)");
}

MemoryCgroup::~MemoryCgroup() {
    // v1 moves the charges to the parent on removal; v2 does as well.
    for (int tries = 0; tries < 50 && ::rmdir(dir_.c_str()) != 0 && errno == EBUSY; ++tries) ::usleep(10000);
}

bool MemoryCgroup::join() const noexcept {
    const std::string pid = std::to_string(::getpid());
    return put(dir_ + "/cgroup.procs", pid);
}

bool MemoryCgroup::hold_cache_to(std::uint64_t cache) {
    const std::optional<std::uint64_t> anon = memory_count(dir_ + "/memory.stat", v2_ ? "anon" : "rss");
    if (!anon) return false;
    limit_ = cache + *anon + (1u << 20);
    return put(dir_ + (v2_ ? "/memory.max" : "/memory.limit_in_bytes"), std::to_string(limit_));
}

}  // namespace iolab::sys
