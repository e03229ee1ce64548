#pragma once
// A simulated slow device: a token bucket, shared by all threads, on every call that puts bytes
// into a destination; each call costs its bytes at the rate plus a fixed latency.
#include <cstddef>

namespace iolab::sys {

class ScopedThrottle {
public:
    // bytes_per_s <= 0: no throttle. latency_s: the fixed cost of one write request.
    explicit ScopedThrottle(double bytes_per_s, double latency_s = 0);
    ~ScopedThrottle();
    ScopedThrottle(const ScopedThrottle&) = delete;
    ScopedThrottle& operator=(const ScopedThrottle&) = delete;
};

bool throttle_active();
// Accounts one write request of n bytes just made, sleeping as long as the device requires.
void throttle_wait(std::size_t n);
// Device time charged by every request since the process started (n / rate + latency each):
// what the model says the writes cost, whatever the sleeps actually took.
double throttle_charged_seconds();

}  // namespace iolab::sys
