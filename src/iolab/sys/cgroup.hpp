#pragma once
// A memory cgroup of iolab's own, made under the one this process is in, so that a child process
// put in it has a page cache of a stated size: the kernel reclaims the cgroup's cached file pages
// once its memory reaches the limit. cgroup v2 (memory.max) where the memory controller is
// delegated, else v1 (memory.limit_in_bytes).
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iolab/sys/memory_limit.hpp"

namespace iolab::sys {

class MemoryCgroup : public MemoryLimit {
public:
    // A new cgroup limited to `limit` bytes, or nullptr with why it cannot be made here (no memory
    // controller, no permission) in *why.
    static std::unique_ptr<MemoryCgroup> make(std::uint64_t limit, std::string* why);
    // Removed (its charges go to the parent); the processes in it must have ended.
    ~MemoryCgroup();

    // Moves the calling process into the cgroup (a child, after fork). Returns false on failure.
    bool join() const noexcept;
    // Sets the limit to `cache` bytes above the anonymous memory charged to it now (and 1 MiB for
    // what a run allocates), so that the page cache gets `cache` bytes whatever the process holds.
    // From inside the cgroup, before a run. Returns false when the kernel refuses.
    bool hold_cache_to(std::uint64_t cache);
    // Removes the cgroups of earlier runs whose process is gone (a run ended by a second signal,
    // or killed, leaves its cgroup behind) under base; empty ones only; called by make(). The
    // paths removed.
    static std::vector<std::string> remove_stale(const std::string& base);
    // The same under this process's own cgroup, v2 and v1 (iolab clean).
    static std::vector<std::string> remove_dead();

private:
    MemoryCgroup(std::string dir, bool v2, std::uint64_t limit) : dir_(std::move(dir)), v2_(v2), limit_(limit) {}
    std::string dir_;
    bool v2_;
    std::uint64_t limit_;
};

}  // namespace iolab::sys
