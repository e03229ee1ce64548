#pragma once
// A page cache of a stated size where no memory cgroup can be made: as root, the memory the
// machine has available beyond the budget is locked away (mmap MAP_LOCKED, populated), so the
// kernel must keep the page cache within what is left. Every process on the machine feels it:
// the cgroup is always tried first (sys/cgroup.hpp).
#include <cstdint>
#include <memory>
#include <string>

#include "iolab/sys/memory_limit.hpp"

namespace iolab::sys {

// MemAvailable of /proc/meminfo, in bytes; 0 when unknown.
std::uint64_t memory_available();
// MemTotal, in bytes; 0 when unknown.
std::uint64_t memory_total();

class MemoryReserve : public MemoryLimit {
public:
    // `bytes` locked, or nullptr with why not in *why (not root, or the kernel refused).
    static std::unique_ptr<MemoryReserve> lock(std::uint64_t bytes, std::string* why);
    ~MemoryReserve();
    std::uint64_t bytes() const { return bytes_; }

private:
    MemoryReserve(void* p, std::uint64_t n) : p_(p), bytes_(n) {}
    void* p_;
    std::uint64_t bytes_;
};

}  // namespace iolab::sys
