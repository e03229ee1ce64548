#include "iolab/core/worker.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/core/process.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

namespace {

constexpr std::size_t kMaxLine = 64 * 1024;
constexpr std::size_t kErrorsKept = 4096;

std::int64_t now_ms() {
    timespec t{};
    ::clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<std::int64_t>(t.tv_sec) * 1000 + t.tv_nsec / 1'000'000;
}

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

}  // namespace

Worker::Worker(const std::vector<std::string>& argv, int keep_fd, const std::vector<std::string>& env)
    : program_(argv.at(0)) {
    const auto program = find_program(argv.at(0));
    if (!program) throw IoError(ENOENT, "find the program", argv[0]);
    int sv[2], err[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        throw IoError(errno, "create a socket for", argv[0]);
    if (::pipe2(err, O_CLOEXEC) != 0) {
        ::close(sv[0]);
        ::close(sv[1]);
        throw IoError(errno, "create a pipe for", argv[0]);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<char*> envp;
    for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        for (int fd : {sv[0], sv[1], err[0], err[1]}) ::close(fd);
        throw IoError(errno, "start", argv[0]);
    }
    if (pid == 0) {
        // Only async-signal-safe calls between fork and exec.
        interrupt::prepare_child(parent);
        ::dup2(sv[1], 0);
        ::dup2(sv[1], 1);
        ::dup2(err[1], 2);
        if (keep_fd > 2) ::fcntl(keep_fd, F_SETFD, 0);  // stays open across exec
        ::execve(program->c_str(), args.data(), env.empty() ? environ : envp.data());
        ::_exit(127);
    }
    ::setpgid(pid, pid);  // as the child does: whichever runs first
    interrupt::add_child(pid);
    ::close(sv[1]);
    ::close(err[1]);
    pid_ = pid;
    sock_ = sv[0];
    err_ = err[0];
    ::fcntl(err_, F_SETFL, O_NONBLOCK);
}

Worker::~Worker() { end(); }

void Worker::drain_stderr() {
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(err_, buf, sizeof buf);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            if (n == 0) close_fd(err_);
            return;
        }
        errors_.append(buf, static_cast<std::size_t>(n));
        if (errors_.size() > kErrorsKept) errors_.erase(0, errors_.size() - kErrorsKept);
    }
}

std::string Worker::stderr_tail() const {
    std::string e = errors_;
    while (!e.empty() && (e.back() == '\n' || e.back() == '\r' || e.back() == ' ')) e.pop_back();
    const std::size_t nl = e.rfind('\n');
    if (nl != std::string::npos) e.erase(0, nl + 1);
    for (char& c : e)
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    return e.empty() ? "" : fmt::format(" (it said: {})", e.substr(0, 300));
}

void Worker::fail(const std::string& why) {
    if (err_ >= 0) drain_stderr();
    const std::string said = stderr_tail();
    end(0);
    throw WorkerFailed(fmt::format("the {} worker {}{}", program_, why, said));
}

std::string Worker::ask(const std::string& line, double deadline_s) {
    if (pid_ <= 0) throw WorkerFailed(fmt::format("the {} worker has ended", program_));
    if (!line.empty()) {
        const std::string out = line + "\n";
        for (std::size_t done = 0; done < out.size();) {
            const ssize_t n = ::send(sock_, out.data() + done, out.size() - done, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) fail(fmt::format("could not be asked ({})", std::strerror(errno)));
            done += static_cast<std::size_t>(n);
        }
    }
    const std::int64_t limit = now_ms() + static_cast<std::int64_t>(std::ceil(std::max(0.0, deadline_s) * 1000));
    for (;;) {
        if (const std::size_t nl = pending_.find('\n'); nl != std::string::npos) {
            std::string answer = pending_.substr(0, nl);
            pending_.erase(0, nl + 1);
            return answer;
        }
        if (pending_.size() > kMaxLine) fail(fmt::format("answered a line of over {} bytes", kMaxLine));
        const std::int64_t left = limit - now_ms();
        if (left <= 0) fail(fmt::format("gave no answer within {:g} s and was ended", deadline_s));
        pollfd fds[2] = {{sock_, POLLIN, 0}, {err_, POLLIN, 0}};
        const int r = ::poll(fds, err_ >= 0 ? 2 : 1, static_cast<int>(std::min<std::int64_t>(left, 1000)));
        if (r < 0 && errno != EINTR) fail(fmt::format("could not be waited for ({})", std::strerror(errno)));
        if (r <= 0) continue;
        if (err_ >= 0 && fds[1].revents) drain_stderr();
        if (fds[0].revents) {
            char buf[16384];
            const ssize_t n = ::recv(sock_, buf, sizeof buf, 0);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                // Its standard error may still hold its last words.
                if (err_ >= 0) drain_stderr();
                // Its output closes as it exits, a moment before its status can be had (looked at,
                // not reaped: end() kills what is left of its group first).
                siginfo_t info{};
                for (const std::int64_t until = now_ms() + 2000;
                     (info.si_pid = 0, ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT)) ==
                         0 &&
                     info.si_pid == 0 && now_ms() < until;)
                    ::usleep(1000);
                std::string how = "closed its output";
                if (info.si_pid == pid_)
                    how = info.si_code == CLD_EXITED
                              ? fmt::format("ended with status {}", info.si_status)
                              : fmt::format("was killed by signal {} (SIG{})", info.si_status,
                                            ::sigabbrev_np(info.si_status) ? ::sigabbrev_np(info.si_status) : "?");
                fail(how + (pending_.empty() ? "" : " in the middle of an answer"));
            }
            pending_.append(buf, static_cast<std::size_t>(n));
        }
    }
}

void Worker::end(double grace_s) {
    if (pid_ <= 0) return;
    close_fd(sock_);  // the end of its input: it ends
    // Waited for without reaping it, so that its pid stays its own until its group is killed:
    // what it left running (a wrapper script's children) ends with it.
    const std::int64_t limit = now_ms() + static_cast<std::int64_t>(grace_s * 1000);
    siginfo_t info{};
    while ((info.si_pid = 0, ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT)) == 0 &&
           info.si_pid == 0 && now_ms() < limit)
        ::usleep(2000);
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    interrupt::remove_child(pid_);
    close_fd(err_);
    pid_ = -1;
    pending_.clear();
}

void Worker::abandon() {
    close_fd(sock_);
    close_fd(err_);
    pid_ = -1;
}

}  // namespace iolab
