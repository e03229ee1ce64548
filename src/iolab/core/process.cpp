#include "iolab/core/process.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

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

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdout_path, int cwd_fd) {
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
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(err[0]);
        ::close(err[1]);
        throw IoError(errno, "start", argv[0]);
    }
    if (pid == 0) {
        // Only async-signal-safe calls between fork and exec.
        interrupt::prepare_child(parent);
        if (cwd_fd >= 0 && ::fchdir(cwd_fd) != 0) ::_exit(126);
        const int in = ::open("/dev/null", O_RDONLY);
        const int out = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || out < 0) ::_exit(126);
        ::dup2(in, 0);
        ::dup2(out, 1);
        ::dup2(err[1], 2);
        ::execve(program->c_str(), args.data(), env.data());
        ::_exit(127);
    }
    ::setpgid(pid, pid);  // as the child does: whichever runs first
    interrupt::add_child(pid);
    ::close(err[1]);
    ProcessResult r;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(err[0], buf, sizeof buf);
        if (n > 0 && r.errors.size() < 4096) r.errors.append(buf, static_cast<std::size_t>(n));
        if (n == 0 || (n < 0 && errno != EINTR)) break;
    }
    ::close(err[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    interrupt::remove_child(pid);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

}  // namespace iolab
