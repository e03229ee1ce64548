#pragma once
// The page cache, chosen and proven: warm a file, evict it, and measure how much of it is
// resident (mincore) just before a timed iteration.
#include <cstdint>
#include <string>

namespace iolab::sys {
class MemoryCgroup;
}

namespace iolab {

// Fraction (0..1) of the file's pages in the page cache; 0 for an empty file.
double resident_fraction(const std::string& path);
// Reads the whole file once.
void warm_file(const std::string& path);
// fsync, then POSIX_FADV_DONTNEED over the whole file; with drop_caches, also
// /proc/sys/vm/drop_caches (root only: throws IoError otherwise).
void evict_file(const std::string& path, bool drop_caches);

// A page cache of `budget` bytes for this process, in the memory cgroup it runs in (a group's
// child under --cache-budget): hold_cache_budget() sets the cgroup's limit to the budget above
// the memory the process holds now, before each run. No cgroup: nothing to do.
// `room`: what a run may allocate beside (its buffers), on top of the budget.
void set_cache_budget(sys::MemoryCgroup* cgroup, std::uint64_t budget, std::uint64_t room);
// Throws std::runtime_error when the kernel refuses the limit.
void hold_cache_budget();

}  // namespace iolab
