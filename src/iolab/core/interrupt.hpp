#pragma once
// Stopping cleanly on SIGINT, SIGTERM and SIGHUP, in every phase.
//
// install() blocks the three signals in the calling thread (before any other thread exists, so
// every thread inherits the mask) and starts a watcher thread that waits for them with
// sigwait. While a run is measuring (set_stoppable), the first signal asks it to stop at its
// next safe point, makes the syscall layer cancel the call in progress (sys/stop.hpp) and stops
// the child processes (forks, external tools): the run then writes its partial results. In
// every other phase (loading, compare, info --limits, writing results) the first signal
// removes what iolab created and exits at once. A second signal always exits at once, removing
// the scratch folders and temporary files, and says so. The exit status is 128 + the first
// signal's number.
#include <sys/types.h>

#include <string>

namespace iolab {
struct ScratchTree;
}

namespace iolab::interrupt {

void install();
// 0, or the first signal received.
int signal_received();
bool requested();

// Whether a run is measuring: a signal then stops it at the next safe point.
void set_stoppable(bool on);

// What to remove if iolab must exit at once: scratch folders (trees) and temporary files.
void add_cleanup_tree(const ScratchTree& tree);
void remove_cleanup_tree(int dir_fd);
void add_cleanup_file(const std::string& path);
void remove_cleanup_file(const std::string& path);

// Child process groups to stop on a signal.
void add_child(pid_t pgid);
void remove_child(pid_t pgid);

// In a child after fork: its own process group, and the signals unblocked and at their
// defaults, so that a stop request reaches it. Async-signal-safe.
void prepare_child();

// For tests: behave as if the signal had arrived during a run (no watcher needed).
void simulate(int signo);
void reset_for_tests();

}  // namespace iolab::interrupt
