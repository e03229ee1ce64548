#include "iolab/sys/stop.hpp"

#include <atomic>

namespace iolab::sys {

namespace {
std::atomic<bool> g_stop{false};
thread_local const std::atomic<bool>* t_stop = nullptr;
}  // namespace

void request_stop() { g_stop.store(true, std::memory_order_relaxed); }
void clear_stop() { g_stop.store(false, std::memory_order_relaxed); }
bool stop_requested() {
    return g_stop.load(std::memory_order_relaxed) || (t_stop && t_stop->load(std::memory_order_relaxed));
}

bool stop_requested_by_signal() { return g_stop.load(std::memory_order_relaxed); }

ThreadStop::ThreadStop(const std::atomic<bool>* flag) { t_stop = flag; }
ThreadStop::~ThreadStop() { t_stop = nullptr; }

}  // namespace iolab::sys
