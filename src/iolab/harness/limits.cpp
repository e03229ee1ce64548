#include "iolab/harness/limits.hpp"

#include <chrono>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "iolab/core/data.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/core/units.hpp"

namespace iolab {

double memcpy_mib_s(std::size_t src_size, std::size_t dst_size, int reps) {
    std::unique_ptr<std::byte[]> src(new std::byte[src_size]);
    std::unique_ptr<std::byte[]> dst(new std::byte[dst_size]);
    // Touch every page first: page faults are not what is being measured.
    fill(DataSpec{}, 0, std::span(src.get(), src_size));
    std::memset(dst.get(), 0, dst_size);
    double best = 0;
    volatile unsigned char sink = 0;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t off = 0; off < src_size; off += dst_size)
            std::memcpy(dst.get(), src.get() + off, std::min(dst_size, src_size - off));
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        sink = sink + static_cast<unsigned char>(dst[dst_size / 2]);  // the copies are used
        best = std::max(best, static_cast<double>(src_size) / s / (1 << 20));
    }
    return best;
}

Limits measure_memory_limits() {
    Limits l;
    constexpr std::size_t kBig = 256u << 20;
    l.memcpy_large_mib_s = memcpy_mib_s(kBig, kBig, 3);
    l.memcpy_cache_mib_s = memcpy_mib_s(kBig, 64 * 1024, 3);
    return l;
}

void measure_device_limit(Limits& limits, const std::string& dir, std::uint64_t size) {
    const Strategy* s = Registry::builtin().find("read.io-uring");
    if (auto why = s->skip_reason(dir)) {
        limits.device_note = *why;
        return;
    }
    ScratchDir scratch(dir);
    CaseSpec c;
    c.strategy = s;
    c.workload.family = Family::read;
    c.workload.size = size;
    c.workload.buffer = 1 << 20;
    c.workload.queue = 32;
    RunOptions o;
    o.cache = CacheMode::direct;
    o.warmup = Amount{1, 0};
    o.iterations = Amount{3, 0};
    const CaseResult r = run_case(c, o, scratch);
    if (r.status != Status::ok) {
        limits.device_note = r.reason;
        return;
    }
    limits.device_read_mib_s = r.throughput_mib_s;
    limits.device_note =
        fmt::format("O_DIRECT io_uring reads of a {} file, queue 32, 1 MiB blocks, median of 3", format_size(size));
}

}  // namespace iolab
