#pragma once
// A stop asked for by a signal: every data-moving call then fails with ECANCELED and throttled
// writes stop waiting, so an iteration ends within one call.
#include <atomic>

namespace iolab::sys {

void request_stop();
void clear_stop();
// A signal's stop, or the calling thread's own (ThreadStop).
bool stop_requested();
// A signal's stop only.
bool stop_requested_by_signal();

// While one lives, the calling thread's calls stop as under request_stop() once `flag` is set:
// how --stonewall stops the other jobs when the first one ends.
class ThreadStop {
public:
    explicit ThreadStop(const std::atomic<bool>* flag);
    ~ThreadStop();
    ThreadStop(const ThreadStop&) = delete;
    ThreadStop& operator=(const ThreadStop&) = delete;
};

}  // namespace iolab::sys
