#include "iolab/sys/reserve.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace iolab::sys {

// /proc/meminfo counts in KiB.
std::uint64_t memory_available() { return memory_count("/proc/meminfo", "MemAvailable:").value_or(0) * 1024; }
std::uint64_t memory_total() { return memory_count("/proc/meminfo", "MemTotal:").value_or(0) * 1024; }

std::unique_ptr<MemoryReserve> MemoryReserve::lock(std::uint64_t bytes, std::string* why) {
    if (::geteuid() != 0) return refuse(why, "not root, so no memory can be locked away from the cache");
    if (bytes == 0) return std::unique_ptr<MemoryReserve>(new MemoryReserve(nullptr, 0));
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    const auto refused = [&] {
        return refuse(why, "cannot lock " + std::to_string(bytes >> 20) + " MiB: " + std::strerror(errno));
    };
    if (p == MAP_FAILED) return refused();
    // Not copied into children (external tools fork inside the timed part), and locked for real:
    // MAP_LOCKED does not fail when it cannot lock it all, mlock does.
    ::madvise(p, bytes, MADV_DONTFORK);
    // The system call itself: sanitizer runtimes replace mlock(3) with one that locks nothing.
    if (::syscall(SYS_mlock, p, bytes) != 0) {
        const int e = errno;
        ::munmap(p, bytes);
        errno = e;
        return refused();
    }
    return std::unique_ptr<MemoryReserve>(new MemoryReserve(p, bytes));
}

MemoryReserve::~MemoryReserve() {
    if (p_) ::munmap(p_, bytes_);
}

}  // namespace iolab::sys
