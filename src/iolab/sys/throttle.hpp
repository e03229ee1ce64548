#pragma once
// A simulated slow device: a token bucket, shared by all threads, on every call that puts bytes
// into a destination.
#include <cstddef>

namespace iolab::sys {

class ScopedThrottle {
public:
    // bytes_per_s <= 0: no throttle.
    explicit ScopedThrottle(double bytes_per_s);
    ~ScopedThrottle();
    ScopedThrottle(const ScopedThrottle&) = delete;
    ScopedThrottle& operator=(const ScopedThrottle&) = delete;
};

bool throttle_active();
// Accounts n bytes just written, sleeping as long as the rate requires.
void throttle_wait(std::size_t n);

}  // namespace iolab::sys
