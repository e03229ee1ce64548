#include "iolab/harness/environment.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <sstream>
#include <vector>

#include <algorithm>

#include <fmt/format.h>

#include "iolab/core/units.hpp"

#ifndef IOLAB_VERSION
#define IOLAB_VERSION "0.0.0"
#endif
#ifndef IOLAB_COMMIT
#define IOLAB_COMMIT "unknown"
#endif
#ifndef IOLAB_COMPILER
#define IOLAB_COMPILER "unknown"
#endif
#ifndef IOLAB_BUILD_TYPE
#define IOLAB_BUILD_TYPE "unknown"
#endif

namespace iolab {

namespace {

std::string read_line(const std::string& path) {
    std::ifstream f(path);
    std::string line;
    std::getline(f, line);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\n')) line.pop_back();
    return line;
}

std::string cpu_model() {
    std::ifstream f("/proc/cpuinfo");
    for (std::string line; std::getline(f, line);)
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
        }
    return "unknown";
}

std::uint64_t memory_bytes() {
    std::ifstream f("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    while (f >> key >> kib) {
        if (key == "MemTotal:") return kib * 1024;
        f.ignore(1 << 10, '\n');
    }
    return 0;
}

}  // namespace

namespace {

// A list of options split at its commas, but not at those inside double quotes (an SELinux context).
std::vector<std::string> split_options(const std::string& list) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (char ch : list) {
        if (ch == '"') quoted = !quoted;
        if (ch == ',' && !quoted)
            out.emplace_back();
        else
            out.back() += ch;
    }
    return out;
}

// The filesystem's options that say nothing of what I/O costs and can be long: overlayfs's folders,
// security labels; and its rw or ro, which the mount's own list says for this mount.
bool said_elsewhere_or_a_path(const std::string& o) {
    const std::string key = o.substr(0, o.find('='));
    for (const char* k : {"rw", "ro", "lowerdir", "upperdir", "workdir", "context", "fscontext", "defcontext",
                          "rootcontext", "seclabel"})
        if (key == k) return true;
    return false;
}

}  // namespace

std::string merge_mount_options(const std::string& mount, const std::string& super) {
    std::vector<std::string> out;
    const auto add = [&](const std::string& o) {
        if (!o.empty() && std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
    };
    for (const std::string& o : split_options(mount)) add(o);
    for (const std::string& o : split_options(super))
        if (!said_elsewhere_or_a_path(o)) add(o);
    std::string joined;
    for (const auto& o : out) joined += (joined.empty() ? "" : ",") + o;
    return joined;
}

namespace {

// /proc/self/mountinfo: the mount whose device is st_dev, giving type and options.
void describe_mount(const std::string& dir, Environment& env) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) return;
    const std::string devno = fmt::format("{}:{}", major(st.st_dev), minor(st.st_dev));
    std::ifstream f("/proc/self/mountinfo");
    std::string best_mount;
    for (std::string line; std::getline(f, line);) {
        std::istringstream in(line);
        std::string id, parent, dev, root, mount_point, options;
        in >> id >> parent >> dev >> root >> mount_point >> options;
        if (dev != devno) continue;
        std::string field;
        while (in >> field && field != "-") {
        }
        std::string type, source, super_options;
        in >> type >> source >> super_options;
        // Several mounts may share a device (bind mounts): take the longest prefix of dir.
        if (dir.rfind(mount_point, 0) == 0 && mount_point.size() >= best_mount.size()) {
            best_mount = mount_point;
            env.fs_type = type;
            env.mount_options = merge_mount_options(options, super_options);
            env.device = source;
        }
    }
    const std::string sys = fmt::format("/sys/dev/block/{}", devno);
    std::string queue = sys + "/queue/rotational";
    std::string model = sys + "/device/model";
    if (::access(queue.c_str(), R_OK) != 0) {  // a partition: its disk holds the queue
        queue = sys + "/../queue/rotational";
        model = sys + "/../device/model";
    }
    const std::string rot = read_line(queue);
    if (rot == "0" || rot == "1") env.rotational = rot == "1";
    env.device_model = read_line(model);
}

}  // namespace

std::string Environment::one_line() const {
    std::string dev = fs_type.empty() ? "unknown fs" : fs_type;
    if (rotational >= 0) dev += rotational ? " on a rotational disk" : " on a non-rotational device";
    std::string line = fmt::format("{} x {}, {} RAM, Linux {}, scratch on {}", cpus, cpu_model,
                                   format_size(memory_bytes), kernel, dev);
    if (!hosts.empty()) {
        std::vector<std::string> distinct = hosts;
        std::sort(distinct.begin(), distinct.end());
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
        line += fmt::format("; MPI: {} rank(s) on {} host(s){}", hosts.size(), distinct.size(),
                            rank_shift ? fmt::format(", inputs shifted by {} rank(s)", rank_shift) : "");
    }
    if (!jvm.empty()) line += "; JVM: " + jvm;
    return line;
}

Environment collect_environment(const std::string& scratch_dir) {
    Environment e;
    e.iolab_version = IOLAB_VERSION;
    e.commit = IOLAB_COMMIT;
    e.compiler = IOLAB_COMPILER;
    e.build_type = IOLAB_BUILD_TYPE;
    utsname u{};
    if (::uname(&u) == 0) e.kernel = u.release;
    e.cpu_model = cpu_model();
    e.cpus = static_cast<unsigned>(::sysconf(_SC_NPROCESSORS_ONLN));
    e.memory_bytes = memory_bytes();
    e.scratch_dir = scratch_dir;
    describe_mount(scratch_dir, e);
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    e.date = buf;
    return e;
}

}  // namespace iolab

namespace iolab {

std::string version_line() {
    return fmt::format("iolab {} (commit {}, {} build, {})", IOLAB_VERSION, IOLAB_COMMIT, IOLAB_BUILD_TYPE,
                       IOLAB_COMPILER);
}

}  // namespace iolab
