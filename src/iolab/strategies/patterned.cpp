// Patterned reads and writes: `ops` operations of one block each, at the offsets a pattern gives
// (random, strided, sequential), each timed on its own into Job::latency: pread(2) and pwrite(2),
// with and without O_DIRECT, a mapping touched where the block lies, and io_uring with Q
// operations in flight. A block read goes to the sink with its offset, so it is verified where it
// was read from; a block written is the record that belongs where it is written.
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <vector>

#include "iolab/core/aligned.hpp"
#include "iolab/core/pattern.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/direct.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/strategies/uring_loop.hpp"
#include "iolab/sys/uring.hpp"

namespace iolab {

namespace {

using detail::OpClock;

Offsets offsets_of(const Job& j) { return Offsets(j.ops.pattern, j.ops.span, j.ops.block, j.ops.seed); }

// The block size O_DIRECT can read here, or a CannotRun naming the alignment it needs.
sys::DirectAlignment direct_block(const sys::Fd& fd, std::size_t block) {
    const sys::DirectAlignment a = sys::direct_alignment(fd);
    if (block % a.offset != 0)
        throw CannotRun("O_DIRECT needs blocks of a multiple of " + std::to_string(a.offset) +
                        " bytes here; block is " + std::to_string(block));
    return a;
}

void read_pread_ops(const Job& j) {
    const sys::Fd in = detail::open_src(j.src);
    AlignedBuffer buf(j.ops.block, detail::kPage);
    const Offsets at = offsets_of(j);
    const OpClock clock(j);
    for (std::uint64_t i = 0; i < j.ops.count; ++i) {
        const std::uint64_t off = at(j.ops.first + i);
        const std::uint64_t t = clock.now();
        const std::size_t n = sys::pread_full(in, buf.data(), j.ops.block, static_cast<off_t>(off));
        clock.done(t);
        j.sink->consume_block(j.ops.first + i, off, buf.data(), n);
    }
}

void read_direct_ops(const Job& j) {
    const sys::Fd in = sys::open(j.src, O_RDONLY | O_DIRECT);
    const sys::DirectAlignment a = direct_block(in, j.ops.block);
    AlignedBuffer buf(j.ops.block, a.memory);
    const Offsets at = offsets_of(j);
    const OpClock clock(j);
    for (std::uint64_t i = 0; i < j.ops.count; ++i) {
        const std::uint64_t off = at(j.ops.first + i);
        const std::uint64_t t = clock.now();
        // A short read leaves an aligned position only by chance: go on from the last boundary.
        std::size_t done = 0;
        while (done < j.ops.block) {
            const std::size_t from = done - done % a.offset;
            const std::size_t n =
                sys::pread_some(in, buf.data() + from, j.ops.block - from, static_cast<off_t>(off + from));
            if (from + n <= done) break;  // no progress: the end of the file (the sink sees it short)
            done = from + n;
        }
        clock.done(t);
        j.sink->consume_block(j.ops.first + i, off, buf.data(), done);
    }
}

// The span mapped once, each block read where it lies: the page faults are the I/O. With the
// kernel's default advice a fault reads around the page (read_ahead_kb); MADV_RANDOM reads the
// page alone.
void mmap_ops(const Job& j, int advice) {
    const sys::Fd in = detail::open_src(j.src);
    sys::Mapping m = sys::map(in, static_cast<std::size_t>(j.ops.span), PROT_READ, MAP_SHARED);
    if (advice != MADV_NORMAL) m.advise(advice);
    const Offsets at = offsets_of(j);
    const OpClock clock(j);
    for (std::uint64_t i = 0; i < j.ops.count; ++i) {
        const std::uint64_t off = at(j.ops.first + i);
        const std::uint64_t t = clock.now();
        // The operation: a load from every page of the block, which faults it in (as a pread
        // copies it); its digest is taken after the clock, as the other strategies' are.
        for (std::size_t p = 0; p < j.ops.block; p += detail::kPage)
            (void)*static_cast<const volatile unsigned char*>(static_cast<const void*>(m.data() + off + p));
        clock.done(t);
        j.sink->consume_block(j.ops.first + i, off, m.data() + off, j.ops.block, true);
    }
}

void read_mmap_ops(const Job& j) { mmap_ops(j, MADV_NORMAL); }
void read_mmap_random_ops(const Job& j) { mmap_ops(j, MADV_RANDOM); }

// Patterned writes go into the file the harness laid out (the span, its blocks allocated): each
// operation writes the block that belongs at its offset (Job::records: record k is block k).
const std::byte* block_for(const Job& j, std::uint64_t off) { return j.records->at(off / j.ops.block).data(); }

// The output, opened for writing: the file the harness laid out, checked to be that very file (a
// file put in its place is never written), or else a new one made and laid out here.
sys::Fd open_laid_out(const Job& j, int flags) {
    if (j.ops.dst_ino == 0) {
        sys::Fd fd = detail::open_dst(j.dst, flags & O_ACCMODE, flags & ~O_ACCMODE);
        sys::allocate(fd, 0, static_cast<off_t>(j.ops.span));
        return fd;
    }
    sys::Fd fd = sys::open(j.dst, flags | O_NOFOLLOW);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw IoError(errno, "stat", j.dst);
    const auto ctime_ns =
        static_cast<std::uint64_t>(st.st_ctim.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(st.st_ctim.tv_nsec);
    if (st.st_dev != j.ops.dst_dev || st.st_ino != j.ops.dst_ino || ctime_ns != j.ops.dst_ctime_ns)
        throw IoError(EEXIST, "write into", j.dst);
    return fd;
}

void write_pwrite_ops(const Job& j) {
    const sys::Fd out = open_laid_out(j, O_WRONLY);
    const Offsets at = offsets_of(j);
    const OpClock clock(j);
    for (std::uint64_t i = 0; i < j.ops.count; ++i) {
        const std::uint64_t off = at(j.ops.first + i);
        const std::uint64_t t = clock.now();
        sys::pwrite_all(out, block_for(j, off), j.ops.block, static_cast<off_t>(off));
        clock.done(t);
        j.sink->note_op(j.ops.first + i, off);
    }
}

void write_direct_ops(const Job& j) {
    const sys::Fd out = open_laid_out(j, O_WRONLY | O_DIRECT);
    const sys::DirectAlignment a = direct_block(out, j.ops.block);
    AlignedBuffer buf(j.ops.block, a.memory);
    const Offsets at = offsets_of(j);
    const OpClock clock(j);
    for (std::uint64_t i = 0; i < j.ops.count; ++i) {
        const std::uint64_t off = at(j.ops.first + i);
        std::memcpy(buf.data(), block_for(j, off), j.ops.block);  // O_DIRECT needs aligned memory
        const std::uint64_t t = clock.now();
        direct_pwrite_all(out, buf.data(), j.ops.block, static_cast<off_t>(off), a.offset);
        clock.done(t);
        j.sink->note_op(j.ops.first + i, off);
    }
}

// Each block stored into a shared mapping (the fault and the copy are the operation), then one
// msync(MS_SYNC) of the span: the stores reach the file, as a checkpoint does.
void write_mmap_ops(const Job& j) {
    const sys::Fd out = open_laid_out(j, O_RDWR);
    const sys::Mapping m = sys::map(out, static_cast<std::size_t>(j.ops.span), PROT_READ | PROT_WRITE, MAP_SHARED);
    const Offsets at = offsets_of(j);
    const OpClock clock(j);
    for (std::uint64_t i = 0; i < j.ops.count; ++i) {
        const std::uint64_t off = at(j.ops.first + i);
        const std::uint64_t t = clock.now();
        std::memcpy(m.data() + off, block_for(j, off), j.ops.block);
        clock.done(t);
        j.sink->note_op(j.ops.first + i, off);
    }
    if (m.size() > 0 && ::msync(m.data(), m.size(), MS_SYNC) != 0) throw IoError(errno, "msync", j.dst);
}

// Q operations in flight, one a slot. A block read goes to the sink when it completes (the order
// does not matter to it); a block to write is copied into its slot first. Either way the slot
// then starts the next operation.
void uring_ops(const Job& j, bool write, bool direct) {
    const int flags = direct ? O_DIRECT : 0;
    const sys::Fd fd = write ? open_laid_out(j, O_WRONLY | flags) : sys::open(j.src, O_RDONLY | flags);
    sys::DirectAlignment a;
    if (direct) a = direct_block(fd, j.ops.block);
    const unsigned depth =
        static_cast<unsigned>(std::clamp<std::uint64_t>(j.queue, 1, std::max<std::uint64_t>(1, j.ops.count)));
    detail::UringLoop loop(depth, j.ops.block, direct ? a.memory : detail::kPage, direct ? a.offset : 1,
                           write ? j.dst : j.src);
    const Offsets at = offsets_of(j);
    const OpClock clock(j);
    std::vector<std::uint64_t> index(depth), began(depth);
    std::uint64_t next = 0;
    const auto start = [&](unsigned s) {
        if (next >= j.ops.count) return;
        index[s] = j.ops.first + next++;
        const std::uint64_t off = at(index[s]);
        if (write) std::memcpy(loop.buffer(s), block_for(j, off), j.ops.block);
        began[s] = clock.now();
        if (write)
            loop.write(s, fd, off, j.ops.block);
        else
            loop.read(s, fd, off, j.ops.block);
    };
    for (unsigned s = 0; s < depth; ++s) start(s);
    loop.run([&](unsigned s) {
        const detail::UringLoop::Transfer& t = loop.transfer(s);
        clock.done(began[s]);
        if (write)
            j.sink->note_op(index[s], t.off);
        else
            j.sink->consume_block(index[s], t.off, loop.buffer(s), t.done);
        start(s);
    });
}

void read_uring_ops(const Job& j) { uring_ops(j, false, j.direct); }
void read_uring_direct_ops(const Job& j) { uring_ops(j, false, true); }
void write_uring_ops(const Job& j) { uring_ops(j, true, j.direct); }
void write_uring_direct_ops(const Job& j) { uring_ops(j, true, true); }

std::optional<std::string> uring_unavailable(const std::string&) { return sys::uring_unavailable(); }
std::optional<std::string> uring_direct_unavailable(const std::string& dir) {
    if (auto why = sys::uring_unavailable()) return why;
    return direct_unavailable(dir);
}

constexpr unsigned kOps = kParamPattern;

// One entry per row, fields in declaration order.
// clang-format off
constexpr StrategyDef kPatterned[] = {
    {.name = "read.pread-ops", .params = kOps, .run = read_pread_ops,
     .description = "pread(2) of one block per operation, at the pattern's offsets", .jvm = "FileChannel.read(ByteBuffer, long)"},
    {.name = "read.direct-ops", .params = kOps, .flags = kDirect | kBypassesCache, .run = read_direct_ops, .unavailable = direct_unavailable,
     .description = "pread(2) with O_DIRECT of one block per operation, at the pattern's offsets"},
    {.name = "read.mmap-ops", .params = kOps, .flags = kInPlace, .run = read_mmap_ops,
     .description = "the file mapped once, each operation's block read where it lies (page faults do the I/O)",
     .jvm = "MappedByteBuffer.get(int, byte[])"},
    {.name = "read.mmap-random-ops", .params = kOps, .flags = kInPlace, .run = read_mmap_random_ops,
     .description = "as read.mmap-ops with madvise(MADV_RANDOM): a fault reads its page, not the pages around it"},
    {.name = "read.uring-ops", .params = kOps | kParamQueue, .flags = kDirect, .run = read_uring_ops,
     .unavailable = uring_unavailable,
     .description = "io_uring with Q operations of one block in flight, at the pattern's offsets"},
    {.name = "read.uring-direct-ops", .params = kOps | kParamQueue, .flags = kDirect | kBypassesCache, .run = read_uring_direct_ops,
     .unavailable = uring_direct_unavailable,
     .description = "io_uring with O_DIRECT and Q operations of one block in flight, at the pattern's offsets"},
    {.name = "write.pwrite-ops", .params = kOps, .run = write_pwrite_ops,
     .description = "pwrite(2) of one block per operation, at the pattern's offsets of a laid-out file",
     .jvm = "FileChannel.write(ByteBuffer, long)"},
    {.name = "write.direct-ops", .params = kOps, .flags = kDirect | kBypassesCache, .run = write_direct_ops,
     .unavailable = direct_unavailable,
     .description = "pwrite(2) with O_DIRECT of one block per operation, at the pattern's offsets"},
    {.name = "write.mmap-ops", .params = kOps, .flags = kUnthrottled, .run = write_mmap_ops,
     .description = "each block stored into a shared mapping at the pattern's offsets, then one msync(MS_SYNC)",
     .jvm = "MappedByteBuffer.put(int, byte[]) and force()"},
    {.name = "write.uring-ops", .params = kOps | kParamQueue, .flags = kDirect, .run = write_uring_ops,
     .unavailable = uring_unavailable,
     .description = "io_uring with Q writes of one block in flight, at the pattern's offsets"},
    {.name = "write.uring-direct-ops", .params = kOps | kParamQueue, .flags = kDirect | kBypassesCache, .run = write_uring_direct_ops,
     .unavailable = uring_direct_unavailable,
     .description = "io_uring with O_DIRECT and Q writes of one block in flight, at the pattern's offsets"},
};
// clang-format on

}  // namespace

void register_patterned_strategies(Registry& r) { r.add(kPatterned); }

}  // namespace iolab
