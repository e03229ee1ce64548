#include "iolab/sys/throttle.hpp"

#include "iolab/sys/stop.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace iolab::sys {

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> g_active{false};
std::mutex g_mutex;
double g_rate = 0;   // bytes per second
double g_burst = 0;  // bucket size in bytes
double g_tokens = 0;
double g_latency = 0;  // seconds per request
double g_charged = 0;  // device seconds charged, ever
Clock::time_point g_last;

}  // namespace

ScopedThrottle::ScopedThrottle(double bytes_per_s, double latency_s) {
    if (bytes_per_s <= 0) return;
    std::lock_guard lock(g_mutex);
    g_rate = bytes_per_s;
    g_latency = latency_s;
    // A plain rate: a device absorbs about 10 ms of data at once (and never less than one 4 KiB
    // page). With a cost per request the device is synchronous, as the model t = requests x
    // latency + bytes / rate says: no credit, every request waits its whole cost.
    g_burst = latency_s > 0 ? 0 : std::max(4096.0, bytes_per_s / 100);
    g_tokens = g_burst;
    g_last = Clock::now();
    g_active.store(true, std::memory_order_release);
}

ScopedThrottle::~ScopedThrottle() { g_active.store(false, std::memory_order_release); }

bool throttle_active() { return g_active.load(std::memory_order_relaxed); }

void throttle_wait(std::size_t n) {
    if (!throttle_active()) return;
    std::unique_lock lock(g_mutex);
    const auto now = Clock::now();
    g_tokens = std::min(g_burst, g_tokens + std::chrono::duration<double>(now - g_last).count() * g_rate);
    g_last = now;
    // A request costs its bytes and the bytes the device could have moved during its latency.
    g_tokens -= static_cast<double>(n) + g_latency * g_rate;
    g_charged += static_cast<double>(n) / g_rate + g_latency;
    if (g_tokens >= 0) return;
    // In debt: sleep until the bucket is back at zero. Holding the lock makes concurrent
    // writers queue behind each other, as they would behind one slow device.
    // Slept in slices, so that a stop request ends the wait within 50 ms.
    const auto until =
        now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(-g_tokens / g_rate));
    while (Clock::now() < until && !stop_requested())
        std::this_thread::sleep_for(std::min<Clock::duration>(until - Clock::now(), std::chrono::milliseconds(50)));
    g_tokens = 0;
    g_last = Clock::now();
}

double throttle_charged_seconds() {
    std::lock_guard lock(g_mutex);
    return g_charged;
}

}  // namespace iolab::sys
