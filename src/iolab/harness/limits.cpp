#include "iolab/harness/limits.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include <dlfcn.h>
#include <fcntl.h>

#include "iolab/core/aligned.hpp"
#include "iolab/core/data.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/core/sink.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"
#include "iolab/sys/uring.hpp"

namespace iolab {

namespace {

// What cat reads at a time: coreutils' io_blksize, 128 KiB on every filesystem iolab runs on.
constexpr std::size_t kCatBuffer = 128 * 1024;

// The C library's own memcpy. A build with AddressSanitizer checks every memcpy the program makes
// (some 20 % slower for 64 KiB copies here), while the kernel's copies into a reader's buffer are
// not checked: a ceiling measured with the checked memcpy would lie below them.
using Memcpy = void* (*)(void*, const void*, std::size_t);
Memcpy libc_memcpy() {
    static const Memcpy f = [] {
        void* libc = ::dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
        void* sym = libc ? ::dlsym(libc, "memcpy") : nullptr;
        return sym ? reinterpret_cast<Memcpy>(sym) : static_cast<Memcpy>(&std::memcpy);
    }();
    return f;
}

#if defined(__x86_64__)
// A copy by the string instruction (the kernel's copy_to_user where the CPU has fast strings).
void* string_copy(void* dst, const void* src, std::size_t n) {
    void* d = dst;
    asm volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
    return dst;
}
#endif

// The copies a copying ceiling is the faster of.
std::vector<Memcpy> copies() {
#if defined(__x86_64__)
    return {libc_memcpy(), &string_copy};
#else
    return {libc_memcpy()};
#endif
}

// The best rate of `pass` (which moves `bytes`) over `reps` timed runs, each repeating it until
// it has taken at least 5 ms, so that a small size is timed well above the clock's resolution.
template <class Pass>
double best_rate(std::uint64_t bytes, int reps, Pass&& pass) {
    double best = 0;
    for (int r = 0; r < reps; ++r) {
        std::uint64_t passes = 0;
        const auto t0 = std::chrono::steady_clock::now();
        double s = 0;
        do {
            pass();
            ++passes;
            s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        } while (s < 5e-3);
        best = std::max(best, static_cast<double>(bytes) * static_cast<double>(passes) / s / (1 << 20));
    }
    return best;
}

// A source of `size` bytes of generated data, every page touched: page faults are not what is
// measured.
std::unique_ptr<std::byte[]> source(std::size_t size) {
    std::unique_ptr<std::byte[]> src(new std::byte[std::max<std::size_t>(size, 1)]);
    fill(DataSpec{}, 0, std::span(src.get(), size));
    return src;
}

double measure(const CeilingKey& k, const std::string& dir, std::string& note) {
    constexpr int kReps = 9;
    const auto size = static_cast<std::size_t>(k.size);
    switch (k.kind) {
        case LimitKind::memcpy_into_buffer: {
            note = "the faster of memcpy and rep movsb, best of 9";
            return memcpy_mib_s(size, std::max<std::size_t>(1, k.buffer), kReps);
        }
        case LimitKind::memcpy: {
            note = "the faster of memcpy and rep movsb, best of 9";
            return memcpy_mib_s(size, size, kReps);
        }
        case LimitKind::scan: {
            // What a mapped read does with every byte it reads in place (Sink::consume_in_place).
            const auto src = source(size);
            Sink sink;
            sink.set_mode(VerifyMode::sampled);
            note = "every byte read once in place (a vectorised sum), best of 9";
            return best_rate(size, kReps, [&] { sink.consume_in_place(src.get(), size); });
        }
        case LimitKind::byte_loop: {
            // A byte-at-a-time read's own work per byte, with no call to fetch it: ByteStager fed
            // from memory.
            const auto src = source(size);
            Sink sink;
            sink.set_mode(VerifyMode::sampled);
            note = "one byte at a time from memory with no call: the two adds a byte every such read makes";
            return best_rate(size, kReps, [&] {
                std::size_t i = 0;
                const auto* p = reinterpret_cast<const unsigned char*>(src.get());
                ByteStager(sink).drain([&] { return i < size ? int{p[i++]} : -1; });
            });
        }
        case LimitKind::device: return device_read_mib_s(dir, k.size, note);
    }
    return 0;
}

}  // namespace

std::string CeilingKey::describe() const {
    switch (kind) {
        case LimitKind::memcpy_into_buffer:
            return fmt::format("memcpy of {} into a {} buffer", format_size(size), format_size(buffer));
        case LimitKind::scan: return fmt::format("a read-only scan of {} of memory", format_size(size));
        case LimitKind::memcpy: return fmt::format("memcpy of {} to {}", format_size(size), format_size(size));
        case LimitKind::device: return fmt::format("O_DIRECT reads of {} from the device", format_size(size));
        case LimitKind::byte_loop: return fmt::format("{} one byte at a time, no calls", format_size(size));
    }
    return {};
}

const Ceiling* Limits::find(const CeilingKey& k) const {
    for (const Ceiling& c : ceilings)
        if (c.key == k) return &c;
    return nullptr;
}

std::vector<CeilingKey> ceilings_of(const CaseSpec& c, const RunOptions& opts) {
    const Workload& w = c.workload;
    const Strategy& s = *c.strategy;
    std::vector<CeilingKey> out;
    // None for a kind with no bound in memory, and none for several jobs at once (a ceiling is one
    // thread's).
    const auto bound = kind_module(w.family).bound;
    const MemoryBound b = bound ? bound(w) : MemoryBound::none;
    if (b == MemoryBound::none || w.jobs > 1) return out;
    const std::uint64_t moved = std::min<std::uint64_t>(w.bytes(), kLimitSizeCap);
    if (opts.cache != CacheMode::warm || s.bypasses_cache())
        out.push_back({LimitKind::device, std::min<std::uint64_t>(w.size, kLimitSizeCap), 0});
    if (b == MemoryBound::copy) {
        out.push_back({LimitKind::memcpy, moved, 0});
    } else if (s.byte_at_a_time()) {
        out.push_back({LimitKind::byte_loop, moved, 0});
    } else if (s.in_place()) {
        out.push_back({LimitKind::scan, moved, 0});
    } else {
        const std::size_t buffer = w.patterned ? w.block : s.honours(kParamBuffer) ? w.buffer : kCatBuffer;
        out.push_back({LimitKind::memcpy_into_buffer, moved, std::min<std::size_t>(buffer, moved)});
    }
    return out;
}

const Ceiling* ceiling_for(const Limits& limits, const CaseSpec& c, const RunOptions& opts) {
    const Ceiling* low = nullptr;
    for (const CeilingKey& k : ceilings_of(c, opts))
        if (const Ceiling* found = limits.find(k); found && found->mib_s > 0 && (!low || found->mib_s < low->mib_s))
            low = found;
    return low;
}

Limits measure_limits(const std::vector<CeilingKey>& keys, const std::string& dir) {
    Limits l;
    for (const CeilingKey& k : keys) {
        if (l.find(k)) continue;
        Ceiling c{k, 0, {}};
        c.mib_s = measure(k, dir, c.note);
        l.ceilings.push_back(std::move(c));
    }
    return l;
}

double memcpy_mib_s(std::size_t src_size, std::size_t dst_size, int reps) {
    const auto src = source(src_size);
    std::unique_ptr<std::byte[]> dst(new std::byte[std::max<std::size_t>(dst_size, 1)]);
    std::memset(dst.get(), 0, dst_size);
    volatile unsigned char sink = 0;
    double best = 0;
    // The faster of two copies: the C library's memcpy, and the string copy the kernel's own copy
    // into a reader's buffer uses on x86-64. Measured here, copying 64 MiB into a 1 MiB buffer:
    // memcpy 15-19 GiB/s (from 1 MiB on, it writes around the cache), rep movsb 25-31 GiB/s,
    // read(2) of the same bytes cached 21-23 GiB/s: memcpy alone is no ceiling of a read.
    for (const Memcpy copy : copies()) {
        best = std::max(best, best_rate(src_size, reps, [&] {
                            for (std::size_t off = 0; off < src_size; off += dst_size)
                                copy(dst.get(), src.get() + off, std::min(dst_size, src_size - off));
                            sink = sink + static_cast<unsigned char>(dst[dst_size / 2]);  // the copies are used
                        }));
    }
    return best;
}

namespace {

// Reads a file with O_DIRECT through io_uring, from a ring and buffers made and touched
// beforehand (a strategy's own set-up is not the device's ceiling).
class DirectReader {
public:
    static constexpr unsigned kMostQueue = 32;

    // `whole`: the bytes O_DIRECT can read of the file; `alignment`: its buffers' memory alignment.
    DirectReader(const std::string& path, const sys::Fd& fd, std::uint64_t whole, std::size_t alignment)
        : path_(path),
          fd_(fd),
          whole_(whole),
          most_block_(static_cast<std::size_t>(std::min<std::uint64_t>(4 << 20, whole))),
          buffers_(make_buffers(most_block_, alignment)),
          ends_(kMostQueue),
          ring_(kMostQueue, path) {}
    ~DirectReader() { sys::keep_if_abandoned(ring_, buffers_); }
    DirectReader(const DirectReader&) = delete;
    DirectReader& operator=(const DirectReader&) = delete;

    std::size_t most_block() const { return most_block_; }

    // Reads the file with `queue` reads of `block` bytes in flight; returns the bytes read.
    std::uint64_t read_all(unsigned queue, std::size_t block) {
        block_ = std::min(block, most_block_);
        next_ = 0;
        std::uint64_t done = 0;
        for (unsigned slot = 0; slot < queue && next_ < whole_; ++slot) issue_next(slot);
        while (ring_.in_flight() > 0) {
            const sys::Completion c = ring_.next();
            if (c.res <= 0) throw IoError(c.res < 0 ? -c.res : EIO, "read with O_DIRECT", path_);
            done += static_cast<std::uint64_t>(c.res);
            const std::uint64_t off = c.tag >> 8;
            const auto slot = static_cast<unsigned>(c.tag & 0xff);
            // A short read: the rest of its block is read next, from where it stopped.
            if (off + static_cast<std::uint64_t>(c.res) < ends_[slot])
                issue(slot, off + static_cast<std::uint64_t>(c.res));
            else if (next_ < whole_)
                issue_next(slot);
        }
        return done;
    }

private:
    static std::vector<AlignedBuffer> make_buffers(std::size_t size, std::size_t alignment) {
        std::vector<AlignedBuffer> buffers;
        for (unsigned i = 0; i < kMostQueue; ++i) {
            buffers.emplace_back(size, alignment);
            std::memset(buffers.back().data(), 0, size);
        }
        return buffers;
    }
    // The slot's read from `off` to the end of its block.
    void issue(unsigned slot, std::uint64_t off) {
        ring_.read(fd_, buffers_[slot].data(), static_cast<unsigned>(ends_[slot] - off), static_cast<off_t>(off),
                   (off << 8) | slot);
    }
    // The slot's read of the next block.
    void issue_next(unsigned slot) {
        ends_[slot] = std::min<std::uint64_t>(next_ + block_, whole_);
        issue(slot, next_);
        next_ = ends_[slot];
    }

    const std::string& path_;
    const sys::Fd& fd_;
    const std::uint64_t whole_;
    const std::size_t most_block_;
    std::vector<AlignedBuffer> buffers_;
    std::vector<std::uint64_t> ends_;  // where each slot's block ends
    sys::Ring ring_;
    std::size_t block_ = 0;   // of the reads under way
    std::uint64_t next_ = 0;  // where the next block starts
};

// A deep queue is not the fastest everywhere (a virtual disk measured 1.7 GiB/s at queue 1 and
// 0.7 GiB/s at queue 32 on 16 MiB): the best rate of a few queue depths and block sizes, in MiB/s,
// and which it was.
std::pair<double, std::string> fastest_read(DirectReader& reader, std::uint64_t size) {
    const int reps = size > (64ull << 20) ? 2 : 3;
    double best = 0;
    std::string how;
    for (const auto& [queue, block] :
         {std::pair<unsigned, std::size_t>{1, 1 << 20}, {4, 1 << 20}, {32, 1 << 20}, {1, 4 << 20}, {32, 4 << 20}})
        for (int r = 0; r < reps; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            const std::uint64_t bytes = reader.read_all(queue, block);
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (const double rate = static_cast<double>(bytes) / s / (1 << 20); rate > best) {
                best = rate;
                how = fmt::format("queue {}, {} blocks", queue, format_size(std::min(block, reader.most_block())));
            }
        }
    return {best, how};
}

}  // namespace

double device_read_mib_s(const std::string& dir, std::uint64_t size, std::string& note) {
    if (auto why = Registry::builtin().find("read.direct")->skip_reason(dir)) {
        note = *why;
        return 0;
    }
    if (auto why = sys::uring_unavailable()) {
        note = "io_uring: " + *why;
        return 0;
    }
    // The file, written once; then only the reads are timed.
    try {
        ScratchDir scratch(dir);
        const std::string path = scratch.at("device-ceiling");
        write_input_file(path, DataSpec{}, size);
        const sys::Fd fd = sys::open(path, O_RDONLY | O_DIRECT);
        const sys::DirectAlignment a = sys::direct_alignment(fd);
        const std::uint64_t whole = size / a.offset * a.offset;  // what O_DIRECT can read of it
        if (whole == 0) {
            note = fmt::format("a {} file is smaller than one O_DIRECT block", format_size(size));
            return 0;
        }
        DirectReader reader(path, fd, whole, std::max<std::size_t>(a.memory, 4096));
        reader.read_all(1, 1 << 20);  // once untimed: the device's own caches as the runs will find them
        const auto [best, how] = fastest_read(reader, size);
        note = fmt::format(
            "io_uring reads with O_DIRECT of a {} file, the best of queues 1, 4 and 32 and blocks of 1 "
            "and 4 MiB: {}",
            format_size(size), how);
        return best;
    } catch (const IoError& e) {
        // No room for the file, or the device refused: no ceiling, and the reason.
        note = e.what();
        return 0;
    }
}

void hold_to_ceilings(std::vector<CaseResult>& cases, const Limits& limits,
                      const std::function<const RunOptions&(const CaseResult&)>& options_of) {
    for (CaseResult& c : cases) {
        const Ceiling* l = c.ranked() ? ceiling_for(limits, c.spec, options_of(c)) : nullptr;
        if (!l || l->key.kind == LimitKind::device || c.throughput_mib_s <= l->mib_s) continue;
        c.no_figure = fmt::format(
            "its median rate ({:.0f} MiB/s) is above the ceiling of its kind of work ({}: "
            "{:.0f} MiB/s): a figure that cannot be",
            c.throughput_mib_s, l->key.describe(), l->mib_s);
    }
}

double file_layout_seconds(const std::string& dir, std::uint64_t file_size) {
    constexpr std::uint64_t kProbeFileBytes = 64 * 1024;
    try {
        ScratchDir scratch(dir);
        Workload w;
        w.family = Family::files_read;
        w.tree_of().files = kLayoutProbeFiles;
        w.tree_of().file_size = std::min(file_size, kProbeFileBytes);
        const KindModule& k = kind_module(w.family);
        // What others left dirty is written back first: the tree's write-back alone is timed.
        if (::syncfs(scratch.fd()) != 0) throw IoError(errno, "syncfs", dir);
        const auto start = std::chrono::steady_clock::now();
        const auto in = k.make_input(w, scratch.at("layout-probe"));
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (in->remove) in->remove(in->path);
        const double scale = file_size > kProbeFileBytes ? static_cast<double>(file_size) / kProbeFileBytes : 1.0;
        return took / static_cast<double>(kLayoutProbeFiles) * scale;
    } catch (const IoError&) {
        return 0;  // no room, or the filesystem refused: no estimate
    }
}

double sync_seconds(const std::string& dir) {
    try {
        ScratchDir scratch(dir);
        const sys::Fd fd = sys::open(scratch.at("sync-probe"), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC);
        std::vector<double> took;
        for (int i = 0; i < 15; ++i) {
            const auto start = std::chrono::steady_clock::now();
            const char byte = 'x';
            sys::write_all(fd, &byte, 1);
            sys::fdatasync(fd);
            took.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        return median(took);
    } catch (const IoError&) {
        return 0;  // no room, or the filesystem refused: no estimate
    }
}

}  // namespace iolab
