// io_uring: Q reads or writes in flight at once, each of one N-byte block, with and without
// O_DIRECT. Completions arrive in any order; the loop (uring_loop.hpp) resubmits short ones and
// -EAGAIN for the rest of their block.
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <span>
#include <vector>

#include "iolab/core/aligned.hpp"
#include "iolab/core/timeline.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/direct.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/strategies/uring_loop.hpp"
#include "iolab/sys/uring.hpp"

namespace iolab {

namespace {

constexpr std::uint64_t kNone = UINT64_MAX;

using detail::UringLoop;

// The loop of the three strategies: Q slots of N bytes, N rounded up to O_DIRECT's alignment
// for every file that is opened with it.
UringLoop make_loop(const Job& j, std::initializer_list<const sys::Fd*> files, std::string label) {
    std::size_t align = 1, memory_align = detail::kPage;
    if (j.direct) {
        for (const sys::Fd* fd : files) {
            const sys::DirectAlignment a = sys::direct_alignment(*fd);
            align = std::max(align, a.offset);
            memory_align = std::max(memory_align, a.memory);
        }
    }
    return UringLoop(std::clamp(j.queue, 1u, 4096u), round_up(j.buffer, align), memory_align, align, std::move(label));
}

// Reads the source through the loop's slots, block after block, to the end of the file.
class BlockReader {
public:
    BlockReader(UringLoop& loop, const sys::Fd& in, Timeline* tl) : loop_(loop), in_(in), tl_(tl) {}

    std::uint64_t eof() const { return eof_; }

    void start() {
        for (unsigned i = 0; i < loop_.depth(); ++i) refill(i);
    }
    // Slot i's read is finished: one that stopped short found the end of the file.
    void finished(unsigned i) {
        const UringLoop::Transfer& t = loop_.transfer(i);
        if (t.done < t.len) eof_ = std::min(eof_, t.off + t.done);
        if (tl_) tl_->end(0, Timeline::Kind::read, t.off, t.done);
    }
    // Slot i's block is used up: read the next block into it, if any.
    void refill(unsigned i) {
        if (next_ >= eof_) return;
        if (tl_) tl_->begin(0, Timeline::Kind::read, next_, loop_.block());
        loop_.read(i, in_, next_, loop_.block());
        next_ += loop_.block();
    }

private:
    UringLoop& loop_;
    const sys::Fd& in_;
    Timeline* tl_;
    std::uint64_t next_ = 0;
    std::uint64_t eof_ = kNone;
};

int direct_flag(const Job& j) { return j.direct ? O_DIRECT : 0; }

void read_uring(const Job& j) {
    const sys::Fd in = sys::open(j.src, O_RDONLY | direct_flag(j));
    UringLoop loop = make_loop(j, {&in}, j.src);
    BlockReader reader(loop, in, nullptr);
    std::vector<char> ready(loop.depth(), 0);  // read, not yet passed on
    std::uint64_t consumed = 0;                // blocks reach the sink in file order
    reader.start();
    loop.run([&](unsigned done) {
        reader.finished(done);
        ready[done] = 1;
        for (bool progress = true; progress;) {
            progress = false;
            for (unsigned i = 0; i < loop.depth(); ++i) {
                const UringLoop::Transfer& t = loop.transfer(i);
                if (!ready[i] || t.off != consumed) continue;
                const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(t.done, reader.eof() - t.off));
                if (n > 0) j.sink->consume(loop.buffer(i), n);
                consumed += n;
                ready[i] = 0;
                reader.refill(i);
                progress = n > 0;
            }
        }
        // Blocks past the end of file come back empty: drop them.
        for (unsigned i = 0; i < loop.depth(); ++i) {
            if (ready[i] && loop.transfer(i).off >= reader.eof()) {
                ready[i] = 0;
                reader.refill(i);
            }
        }
    });
}

// Writes the first n bytes of slot i's buffer at off; under O_DIRECT the length is padded to the
// alignment (the strategy cuts the file back to size at the end).
void write_block(UringLoop& loop, unsigned i, const sys::Fd& out, std::uint64_t off, std::size_t n, Timeline* tl) {
    const std::size_t len = round_up(n, loop.align());
    if (len > n) std::memset(loop.buffer(i) + n, 0, len - n);
    if (tl) tl->begin(0, Timeline::Kind::write, off, len);
    loop.write(i, out, off, len);
}

void copy_uring(const Job& j) {
    const sys::Fd in = sys::open(j.src, O_RDONLY | direct_flag(j));
    const sys::Fd out = detail::open_dst(j.dst, O_WRONLY, direct_flag(j));
    UringLoop loop = make_loop(j, {&in, &out}, j.src + " to " + j.dst);
    BlockReader reader(loop, in, j.timeline);
    reader.start();
    loop.run([&](unsigned i) {
        const UringLoop::Transfer& t = loop.transfer(i);
        if (t.write) {
            if (j.timeline) j.timeline->end(0, Timeline::Kind::write, t.off, t.len);
            reader.refill(i);
            return;
        }
        reader.finished(i);
        if (t.done > 0)
            write_block(loop, i, out, t.off, t.done, j.timeline);
        else
            reader.refill(i);
    });
    // Padded O_DIRECT tails (and blocks read before the end was known) are cut back.
    if (j.direct && reader.eof() != kNone) sys::ftruncate(out, static_cast<off_t>(reader.eof()));
}

void write_uring(const Job& j) {
    const sys::Fd out = detail::open_dst(j.dst, O_WRONLY, direct_flag(j));
    UringLoop loop = make_loop(j, {&out}, j.dst);
    const std::uint64_t total = j.records->size();
    std::uint64_t next = 0;
    const auto fill = [&](unsigned i) {
        if (next >= total) return;
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(loop.block(), total - next));
        j.records->copy(next, std::span(loop.buffer(i), n));
        write_block(loop, i, out, next, n, nullptr);
        next += n;
    };
    for (unsigned i = 0; i < loop.depth(); ++i) fill(i);
    loop.run(fill);
    if (j.direct && total % loop.align() != 0) sys::ftruncate(out, static_cast<off_t>(total));
}

std::optional<std::string> uring_unavailable(const std::string&) { return sys::uring_unavailable(); }

constexpr unsigned kRing = kParamBuffer | kParamQueue;

// One entry per row, fields in declaration order.
// clang-format off
constexpr StrategyDef kUring[] = {
    {.name = "read.io-uring", .params = kRing, .flags = kDirect, .run = read_uring, .unavailable = uring_unavailable,
     .description = "io_uring: Q reads of N bytes in flight (O_DIRECT with --cache direct)"},
    {.name = "write.io-uring", .params = kRing | kParamRecord, .flags = kDirect, .run = write_uring,
     .unavailable = uring_unavailable,
     .description = "io_uring: Q writes of N bytes in flight"},
    {.name = "copy.io-uring", .params = kRing, .flags = kDirect | kTimeline, .run = copy_uring,
     .unavailable = uring_unavailable,
     .description = "io_uring: Q blocks of N bytes, each read then written"},
};
// clang-format on

}  // namespace

void register_uring_strategies(Registry& r) { r.add(kUring); }

}  // namespace iolab
