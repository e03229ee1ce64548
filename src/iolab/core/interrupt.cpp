#include "iolab/core/interrupt.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "iolab/core/scratch.hpp"
#include "iolab/sys/stop.hpp"

namespace iolab::interrupt {

namespace {

std::atomic<int> g_signal{0};
// A stop asked for on another rank (request): kept apart from g_signal, so that this rank's own
// signal arriving later is a first signal, not a second.
std::atomic<int> g_remote{0};
// How long a stopped run may take to reach its next safe point before it is ended at once.
std::atomic<int> g_grace_s{1};
std::mutex g_mutex;
bool g_stoppable = false;
std::vector<ScratchTree> g_trees;
std::vector<std::string> g_files;
std::vector<pid_t> g_children;

sigset_t stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    return set;
}

void say(const std::string& text) {
    const std::string line = "iolab: " + text + "\n";
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
}

// Stops the children, removes what iolab created, exits. Runs on the watcher thread.
[[noreturn]] void exit_now(int status, const char* why) {
    // The lock is kept to the end: the main thread cannot close a registered folder meanwhile.
    g_mutex.lock();
    for (pid_t pg : g_children) ::kill(-pg, SIGKILL);
    for (const auto& f : g_files) ::unlink(f.c_str());
    bool stays = false;
    for (const auto& t : g_trees) {
        remove_scratch_tree(t);
        struct stat st {};
        stays = stays || ::fstatat(t.parent_fd, t.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    }
    say(std::string(why) + (g_trees.empty() ? ""
                            : stays         ? "; the scratch folder stays, for 'iolab clean' (something in it could "
                                              "not be removed)"
                                            : "; scratch folder removed"));
    ::_exit(status);
}

void watch() {
    const sigset_t set = stop_signals();
    for (;;) {
        int sig = 0;
        if (::sigwait(&set, &sig) != 0) continue;
        int expected = 0;
        if (!g_signal.compare_exchange_strong(expected, sig))
            exit_now(128 + g_signal.load(), "second signal: stopped at once, without results");
        bool stoppable = false;
        {
            std::lock_guard lock(g_mutex);
            stoppable = g_stoppable;
            if (stoppable) {
                sys::request_stop();
                for (pid_t pg : g_children) ::kill(-pg, SIGTERM);
            }
        }
        if (!stoppable) exit_now(128 + sig, (std::string("stopped by signal ") + std::to_string(sig)).c_str());
        // A strategy whose I/O bypasses the syscall layer (libstdc++, a mapping) cannot be cut
        // short: if the run has not stopped within the grace (a second; under MPI, as long as
        // the other ranks may take to reach the step where they learn of the stop), stop at once.
        const timespec grace{g_grace_s.load(), 0};
        siginfo_t info{};
        if (::sigtimedwait(&set, &info, &grace) > 0)
            exit_now(128 + sig, "second signal: stopped at once, without results");
        bool still_running = false;
        {
            std::lock_guard lock(g_mutex);
            still_running = g_stoppable;
        }
        if (still_running)
            exit_now(128 + sig, g_grace_s.load() == 1
                                    ? "the run reached no safe point within a second of the signal: stopped "
                                      "at once, without results"
                                    : "the run reached no safe point within its grace after the signal: "
                                      "stopped at once, without results");
    }
}

void erase(std::vector<std::string>& v, const std::string& s) { v.erase(std::remove(v.begin(), v.end(), s), v.end()); }

}  // namespace

void install() {
    const sigset_t set = stop_signals();
    ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
    // A reader that goes away (iolab run | head -1) makes a write fail with EPIPE, an error that
    // unwinds and removes the scratch folder, instead of killing iolab where it stands.
    ::signal(SIGPIPE, SIG_IGN);
    std::thread(watch).detach();
}

int signal_received() {
    const int own = g_signal.load();
    return own != 0 ? own : g_remote.load();
}
bool requested() { return g_signal.load() != 0 || g_remote.load() != 0; }
void set_grace(int seconds) { g_grace_s.store(std::max(1, seconds)); }

void set_stoppable(bool on) {
    std::lock_guard lock(g_mutex);
    g_stoppable = on;
    if (!on) sys::clear_stop();  // the run is over: its results can be written
}

void add_cleanup_tree(const ScratchTree& tree) {
    std::lock_guard lock(g_mutex);
    g_trees.push_back(tree);
}

void remove_cleanup_tree(int dir_fd) {
    std::lock_guard lock(g_mutex);
    g_trees.erase(
        std::remove_if(g_trees.begin(), g_trees.end(), [&](const ScratchTree& t) { return t.dir_fd == dir_fd; }),
        g_trees.end());
}

void add_cleanup_file(const std::string& path) {
    std::lock_guard lock(g_mutex);
    g_files.push_back(path);
}

void remove_cleanup_file(const std::string& path) {
    std::lock_guard lock(g_mutex);
    erase(g_files, path);
}

void add_child(pid_t pgid) {
    std::lock_guard lock(g_mutex);
    g_children.push_back(pgid);
    // A signal that came while the child was starting must reach it too.
    if (g_signal.load() != 0) ::kill(-pgid, SIGTERM);
}

void remove_child(pid_t pgid) {
    std::lock_guard lock(g_mutex);
    g_children.erase(std::remove(g_children.begin(), g_children.end(), pgid), g_children.end());
}

namespace {

// The kernel's own struct sigaction (rt_sigaction takes it, with the size of its mask).
struct KernelSigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)();
    unsigned long mask;
};

}  // namespace

// Raw system calls only, and no sanitizer's code: it also runs in a child that shares the parent's
// memory until it execs (process.cpp), where a sanitizer's interceptor would write the parent's state.
__attribute__((no_sanitize("address", "thread", "undefined"))) void prepare_child(pid_t parent) {
    // Set before the parent is looked at: a parent that dies after the look kills this child,
    // one that died before it is seen gone.
    ::syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (static_cast<pid_t>(::syscall(SYS_getppid)) != parent) ::syscall(SYS_exit, 128 + SIGKILL);
    ::syscall(SYS_setpgid, 0, 0);
    // A tool's own pipes behave as they would from a shell: SIGPIPE at its default too.
    const KernelSigaction dfl{SIG_DFL, 0, nullptr, 0};
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE})
        ::syscall(SYS_rt_sigaction, sig, &dfl, nullptr, sizeof(unsigned long));
    const unsigned long stops = (1ul << (SIGINT - 1)) | (1ul << (SIGTERM - 1)) | (1ul << (SIGHUP - 1));
    ::syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &stops, nullptr, sizeof(unsigned long));
}

void request(int signo) {
    int none = 0;
    g_remote.compare_exchange_strong(none, signo);
}

void reset_for_tests() {
    g_signal.store(0);
    g_remote.store(0);
}

}  // namespace iolab::interrupt
