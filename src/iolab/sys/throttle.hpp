#pragma once
// A simulated slow device: a token bucket on the write side of the syscall layer. While a
// throttle is active, every call that puts bytes into a destination (write, pwrite, writev,
// sendfile, copy_file_range, splice into a file, io_uring writes) waits until the bucket has
// refilled at the given rate. Shared by all threads.
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
