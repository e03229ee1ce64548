#include "iolab/core/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <vector>

#include "iolab/core/interrupt.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

std::optional<std::string> find_program(const std::string& name) {
    // A path is the program itself (not looked up).
    if (name.find('/') != std::string::npos) {
        struct stat st {};
        if (::stat(name.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(name.c_str(), X_OK) == 0) return name;
        return std::nullopt;
    }
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= dirs.size()) {
        const std::size_t end = std::min(dirs.find(':', start), dirs.size());
        const std::string candidate = dirs.substr(start, end - start) + "/" + name;
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        start = end + 1;
    }
    return std::nullopt;
}

std::optional<std::pair<int, std::string>> split_fd_path(const std::string& path) {
    constexpr std::string_view prefix = "/proc/self/fd/";
    if (!path.starts_with(prefix)) return std::nullopt;
    const std::size_t slash = path.find('/', prefix.size());
    if (slash == std::string::npos || slash == prefix.size() || slash + 1 == path.size()) return std::nullopt;
    int fd = 0;
    for (std::size_t i = prefix.size(); i < slash; ++i) {
        if (path[i] < '0' || path[i] > '9' || fd > 100000000) return std::nullopt;
        fd = fd * 10 + (path[i] - '0');
    }
    const std::string name = path.substr(slash + 1);
    if (name.find('/') != std::string::npos) return std::nullopt;
    return std::pair{fd, name};
}

namespace {

// What the child needs, made before it starts: it may not allocate (it runs in the parent's memory).
struct Child {
    pid_t parent;
    int cwd_fd;
    const char* stdout_path;
    int err;
    const char* program;
    char* const* args;
    char* const* env;
};

constexpr std::size_t kChildStack = 64 * 1024;

// The child, between clone and exec: raw system calls only, and no sanitizer's code, nothing written
// to the memory it shares with the parent (a sanitizer's interceptor would write the parent's state).
__attribute__((no_sanitize("address", "thread", "undefined"))) int start_child(void* arg) {
    const Child& c = *static_cast<const Child*>(arg);
    interrupt::prepare_child(c.parent);
    if (c.cwd_fd >= 0 && ::syscall(SYS_fchdir, c.cwd_fd) != 0) ::syscall(SYS_exit, 126);
    const long in = ::syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY, 0);
    const long out = ::syscall(SYS_openat, AT_FDCWD, c.stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0) ::syscall(SYS_exit, 126);
    // dup3 refuses a descriptor onto itself (it is already where it should be then).
    if (in != 0) ::syscall(SYS_dup3, in, 0, 0);
    if (out != 1) ::syscall(SYS_dup3, out, 1, 0);
    if (c.err != 2) ::syscall(SYS_dup3, c.err, 2, 0);
    ::syscall(SYS_execve, c.program, c.args, c.env);
    ::syscall(SYS_exit, 127);
    return 127;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdout_path, int cwd_fd,
                          double deadline_s) {
    const auto program = find_program(argv.at(0));
    if (!program) throw IoError(ENOENT, "find the program", argv[0]);
    int err[2];
    if (::pipe2(err, O_CLOEXEC) != 0) throw IoError(errno, "create a pipe for", argv[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    // The tool speaks the C locale, whose output (dd's "0.0121 s", fio's JSON) iolab reads.
    std::vector<std::string> env_text{"LC_ALL=C"};
    for (char** e = environ; e && *e; ++e) {
        const std::string_view v(*e);
        if (!v.starts_with("LC_ALL=") && !v.starts_with("LANG=") && !v.starts_with("LANGUAGE="))
            env_text.emplace_back(v);
    }
    std::vector<char*> env;
    for (auto& e : env_text) env.push_back(e.data());
    env.push_back(nullptr);
    // The child shares this process's memory until it execs (clone with CLONE_VM | CLONE_VFORK, as
    // posix_spawn does), on a stack of its own: fork would copy the page tables of iolab's whole
    // memory, a cost that grows with it, and mark every page copy-on-write, so that the first
    // write to each page afterwards faults, in whatever case runs next (docs/harness.md).
    Child child{::getpid(), cwd_fd, stdout_path.c_str(), err[1], program->c_str(), args.data(), env.data()};
    std::vector<std::byte> stack(kChildStack);
    const pid_t pid = ::clone(start_child, stack.data() + stack.size(), CLONE_VM | CLONE_VFORK | SIGCHLD, &child);
    if (pid < 0) {
        ::close(err[0]);
        ::close(err[1]);
        throw IoError(errno, "start", argv[0]);
    }
    ::setpgid(pid, pid);  // as the child does: whichever runs first
    interrupt::add_child(pid);
    ::close(err[1]);
    ProcessResult r;
    const auto start = std::chrono::steady_clock::now();
    // Milliseconds left before the deadline (-1: none; 0: past it).
    const auto left_ms = [&]() -> int {
        if (deadline_s <= 0) return -1;
        const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return static_cast<int>(std::clamp((deadline_s - spent) * 1000, 0.0, 1e9));
    };
    const auto kill_it = [&] {
        r.timed_out = true;
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);
    };
    char buf[4096];
    for (;;) {
        pollfd p{err[0], POLLIN, 0};
        const int ready = ::poll(&p, 1, left_ms());
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) {  // the deadline
            kill_it();
            break;
        }
        const ssize_t n = ::read(err[0], buf, sizeof buf);
        if (n > 0 && r.errors.size() < 4096) r.errors.append(buf, static_cast<std::size_t>(n));
        if (n == 0 || (n < 0 && errno != EINTR)) break;
    }
    ::close(err[0]);
    int status = 0;
    // Its standard error closed: it ends, or has handed that descriptor on and runs on.
    for (;;) {
        const pid_t w = ::waitpid(pid, &status, r.timed_out || deadline_s <= 0 ? 0 : WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) break;
        if (left_ms() == 0)
            kill_it();
        else
            ::usleep(10000);
    }
    interrupt::remove_child(pid);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

}  // namespace iolab
