#pragma once
// Reference limits, measured in-process: how fast this machine copies memory (a read from the
// page cache is a memcpy from the cache into the reader's buffer; a copy between two cached
// files is a large memcpy), and, on request, how fast the scratch device reads raw.
#include <cstddef>
#include <string>

#include "iolab/harness/runner.hpp"

namespace iolab {

struct Limits {
    double memcpy_large_mib_s = 0;  // 256 MiB to 256 MiB: both far larger than the caches
    double memcpy_cache_mib_s = 0;  // 256 MiB into one 64 KiB buffer that stays in cache
    double device_read_mib_s = 0;   // O_DIRECT io_uring reads, queue 32, 1 MiB blocks (0: not measured)
    std::string device_note;        // why the device figure is missing, or what was read
    bool measured() const { return memcpy_large_mib_s > 0; }
};

// MiB/s of copying `total` bytes from a source of src_size bytes into a destination of dst_size
// bytes, reused from its start whenever it is full; the best of `reps` runs.
double memcpy_mib_s(std::size_t src_size, std::size_t dst_size, int reps);
Limits measure_memory_limits();
// Reads a `size`-byte file in `dir` with O_DIRECT through io_uring (queue 32, 1 MiB blocks).
void measure_device_limit(Limits& limits, const std::string& dir, std::uint64_t size);

}  // namespace iolab
