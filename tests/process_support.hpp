#pragma once
// Helpers for tests that start iolab as a process and watch what it leaves behind: scratch
// folders, child processes, partly written outputs.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "iolab/core/checksum.hpp"
#include "support.hpp"

namespace iolab::test {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// Starts `iolab ARGS...` without a shell and returns its pid.
inline pid_t spawn(const std::vector<std::string>& args, const std::string& out) {
    std::vector<std::string> argv = {IOLAB_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        std::vector<char*> a;
        for (auto& s : argv) a.push_back(s.data());
        a.push_back(nullptr);
        ::execv(a[0], a.data());
        ::_exit(127);
    }
    return pid;
}

// Waits up to `limit` for the process; returns its exit status (128 + signal if killed), or -1.
inline int wait_for(pid_t pid, std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        std::this_thread::sleep_for(20ms);
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return -1;
}

inline std::vector<std::string> scratch_folders(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().rfind("iolab.", 0) == 0) out.push_back(e.path().string());
    return out;
}

// The processes whose command line contains every one of `texts`.
inline std::vector<int> pids_mentioning(const std::vector<std::string>& texts) {
    std::vector<int> out;
    std::error_code ec;
    for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::string cmd = slurp((it->path() / "cmdline").string());
        for (char& c : cmd)
            if (c == '\0') c = ' ';
        if (!cmd.empty() && std::all_of(texts.begin(), texts.end(),
                                        [&](const std::string& t) { return cmd.find(t) != std::string::npos; }))
            out.push_back(std::stoi(name));
    }
    return out;
}

// Processes whose command line contains text. Processes come and go while /proc is read: one
// that is gone (its cmdline unreadable) simply does not count.
inline int processes_mentioning(const std::string& text) {
    int n = 0;
    std::error_code ec;
    for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const int fd = ::open((it->path() / "cmdline").c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        std::string cmd;
        char buf[4096];
        for (ssize_t r; (r = ::read(fd, buf, sizeof buf)) > 0;) cmd.append(buf, static_cast<std::size_t>(r));
        ::close(fd);
        for (char& c : cmd)
            if (c == '\0') c = ' ';
        // External tools run inside the scratch folder with relative names: their working
        // folder counts as a mention.
        char cwd[4096];
        const ssize_t len = ::readlink((it->path() / "cwd").c_str(), cwd, sizeof cwd - 1);
        const std::string where = len > 0 ? std::string(cwd, static_cast<std::size_t>(len)) : std::string();
        if (cmd.find(text) != std::string::npos || (!where.empty() && where.find(text) == 0)) ++n;
    }
    return n;
}

// Whether dir holds `folders` scratch folders, each with its lock written: set up far enough to
// be registered for removal and to name its owner.
inline bool scratch_locked(const std::string& dir, std::size_t folders) {
    const auto f = scratch_folders(dir);
    std::size_t with_lock = 0;
    for (const auto& p : f) with_lock += !slurp(p + "/lock").empty();
    return f.size() == folders && with_lock == folders;
}

// Whether a strategy in a scratch folder under dir has begun writing its output.
inline bool writing_output(const std::string& dir) {
    for (const auto& f : scratch_folders(dir)) {
        std::error_code ec;
        for (fs::directory_iterator it(f, ec), end; !ec && it != end; it.increment(ec))
            if (it->path().extension() == ".out" && fs::file_size(it->path(), ec) > 0) return true;
    }
    return false;
}

// A run whose iterations the syscall layer cannot cut short (libstdc++ writes 512 MiB one byte at
// a time, for seconds), in a scratch folder under dir; its output goes to dir/out.
inline pid_t long_write(const ScratchDir& dir, const char* out) {
    return spawn({"run", "-s", "write.byte-iostream", "--size", "512M", "--byte-slice", "0", "--iterations", "3",
                  "--warmup", "0", "--quiet", "--dir", dir.path(), "--json", dir.file("r.json")},
                 dir.file(out));
}

inline bool wait_until(const std::function<bool()>& cond, std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (cond()) return true;
        std::this_thread::sleep_for(20ms);
    }
    return false;
}

}  // namespace iolab::test
