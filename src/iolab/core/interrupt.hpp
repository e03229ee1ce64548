#pragma once
// Stopping cleanly on SIGINT, SIGTERM and SIGHUP.
//
// install() blocks the three signals in the calling thread (before any other thread exists, so
// every thread inherits the mask) and starts a watcher thread that waits for them with
// sigwait. The first signal asks the run to stop at its next safe point and stops the child
// processes (forks, external tools). A second one removes the scratch folder and exits at once
// with 128 + the signal number.
#include <sys/types.h>

#include <string>

namespace iolab::interrupt {

void install();
// 0, or the first signal received.
int signal_received();
bool requested();

// The scratch folder to remove if a second signal comes (keep: leave it).
void set_scratch(const std::string& path, bool keep);
void clear_scratch();

// Child process groups to stop on a signal.
void add_child(pid_t pgid);
void remove_child(pid_t pgid);

// In a child after fork: its own process group, and the signals unblocked and at their
// defaults, so that a stop request reaches it. Async-signal-safe.
void prepare_child();

// For tests: behave as if the signal had arrived (no watcher needed).
void simulate(int signo);
void reset_for_tests();

}  // namespace iolab::interrupt
