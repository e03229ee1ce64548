#pragma once
// Stopping cleanly on SIGINT, SIGTERM and SIGHUP in every phase: a watcher thread, a stop at the
// next safe point while measuring, exit with cleanup elsewhere. docs/design.md has the phases.
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

// A stop asked for elsewhere (another rank of an MPI run): from now on requested() is true here
// too, and signal_received() says signo (unless a signal came here first), so that every rank
// stops at the same safe point. A signal of this process's own after it is still a first one.
void request(int signo);
// How long, after a signal, a run may take to reach its next safe point before it is ended at
// once (default 1 s; under MPI the ranks' timeout, as they learn of a stop only at their next step).
void set_grace(int seconds);

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

// In a child after fork from `parent` (getpid() before the fork): killed when the thread that
// forked it ends (iolab killed with SIGKILL too), or ended now when that already happened; its
// own process group, and the signals unblocked and at their defaults, so that a stop request
// reaches it. Async-signal-safe.
void prepare_child(pid_t parent);

void reset_for_tests();

}  // namespace iolab::interrupt
