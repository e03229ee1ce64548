#include "iolab/sys/stop.hpp"

#include <atomic>

namespace iolab::sys {

namespace {
std::atomic<bool> g_stop{false};
}  // namespace

void request_stop() { g_stop.store(true, std::memory_order_relaxed); }
void clear_stop() { g_stop.store(false, std::memory_order_relaxed); }
bool stop_requested() { return g_stop.load(std::memory_order_relaxed); }

}  // namespace iolab::sys
