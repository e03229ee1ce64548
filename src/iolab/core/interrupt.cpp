#include "iolab/core/interrupt.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "iolab/core/scratch.hpp"

namespace iolab::interrupt {

namespace {

std::atomic<int> g_signal{0};
std::mutex g_mutex;
std::string g_scratch;
bool g_keep = false;
std::vector<pid_t> g_children;

sigset_t stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    return set;
}

void signal_children(int sig) {
    std::lock_guard lock(g_mutex);
    for (pid_t pg : g_children) ::kill(-pg, sig);
}

void watch() {
    const sigset_t set = stop_signals();
    for (;;) {
        int sig = 0;
        if (::sigwait(&set, &sig) != 0) continue;
        int expected = 0;
        if (g_signal.compare_exchange_strong(expected, sig)) {
            signal_children(SIGTERM);
            continue;
        }
        // The second signal: no more waiting for a safe point.
        signal_children(SIGKILL);
        std::string scratch;
        bool keep = false;
        {
            std::lock_guard lock(g_mutex);
            scratch = g_scratch;
            keep = g_keep;
        }
        if (!scratch.empty() && !keep) remove_tree_at(AT_FDCWD, scratch);
        ::_exit(128 + g_signal.load());
    }
}

}  // namespace

void install() {
    const sigset_t set = stop_signals();
    ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread(watch).detach();
}

int signal_received() { return g_signal.load(); }
bool requested() { return g_signal.load() != 0; }

void set_scratch(const std::string& path, bool keep) {
    std::lock_guard lock(g_mutex);
    g_scratch = path;
    g_keep = keep;
}

void clear_scratch() {
    std::lock_guard lock(g_mutex);
    g_scratch.clear();
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

void prepare_child() {
    ::setpgid(0, 0);
    const sigset_t set = stop_signals();
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGHUP, SIG_DFL);
    ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

void simulate(int signo) { g_signal.store(signo); }
void reset_for_tests() { g_signal.store(0); }

}  // namespace iolab::interrupt
