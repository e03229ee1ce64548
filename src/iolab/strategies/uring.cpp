// io_uring: Q reads or writes in flight at once, each of one N-byte block, with and without
// O_DIRECT. Completions arrive in any order; short ones and -EAGAIN are resubmitted for the
// rest of their block.
#include <algorithm>
#include <cstring>
#include <vector>

#include "iolab/core/aligned.hpp"
#include "iolab/core/timeline.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/direct.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/uring.hpp"

namespace iolab {

namespace {

constexpr std::uint64_t kNone = UINT64_MAX;

struct Slot {
    enum class State { free, reading, read_done, writing } state = State::free;
    std::uint64_t off = 0;  // file offset of the block
    std::size_t len = 0;    // bytes asked for
    std::size_t done = 0;   // bytes transferred so far
    std::byte* buf = nullptr;
};

bool transient(int res) { return res == -EAGAIN || res == -EINTR; }

// Geometry shared by the three strategies.
struct Blocks {
    std::size_t block = 0;
    std::size_t align = 1;  // offsets and lengths, under O_DIRECT
    std::size_t memory_align = 4096;
    unsigned depth = 1;
    AlignedBuffer memory;

    Blocks(const Job& j, const sys::Fd* direct_fd) {
        depth = std::clamp(j.queue, 1u, 4096u);
        if (direct_fd) {
            const sys::DirectAlignment a = sys::direct_alignment(*direct_fd);
            align = a.offset;
            memory_align = std::max<std::size_t>(a.memory, 4096);
        }
        block = round_up(j.buffer, align);
        memory = AlignedBuffer(block * depth, memory_align);
    }
    std::byte* buffer(unsigned i) const { return memory.data() + static_cast<std::size_t>(i) * block; }
    // Where to resume a block after a short transfer: O_DIRECT needs an aligned position.
    std::size_t resume_at(std::size_t done) const { return done - done % align; }
};

// Reads the source through the ring, calling ready(slot index) for each block that has been
// read in full (or up to end of file). The callback may queue writes and must eventually
// call release(slot) to let the slot read again. Runs until every block is read and released.
class UringReader {
public:
    UringReader(sys::Ring& ring, const sys::Fd& in, Blocks& blocks, Timeline* tl)
        : ring_(ring), in_(in), b_(blocks), slots_(blocks.depth), tl_(tl) {
        for (unsigned i = 0; i < b_.depth; ++i) slots_[i].buf = b_.buffer(i);
    }

    std::vector<Slot>& slots() { return slots_; }
    std::uint64_t eof() const { return eof_; }

    void start() {
        for (unsigned i = 0; i < b_.depth; ++i) refill(i);
    }

    // A read completion for slot i. Returns true when the block is complete.
    bool on_read(unsigned i, int res) {
        Slot& s = slots_[i];
        if (transient(res)) {
            submit(i);
            return false;
        }
        if (res < 0) throw IoError(-res, "read", in_.path());
        const std::size_t from = b_.resume_at(s.done);
        const std::size_t now = from + static_cast<std::size_t>(res);
        if (res == 0 || now <= s.done) {  // nothing new: end of file inside this block
            eof_ = std::min(eof_, s.off + s.done);
        } else {
            s.done = now;
            if (s.done < s.len) {
                submit(i);
                return false;
            }
        }
        s.state = Slot::State::read_done;
        if (tl_) tl_->end(0, Timeline::Kind::read, s.off, s.done);
        return true;
    }

    // Slot i's block is used up: read the next block into it, if any.
    void release(unsigned i) {
        slots_[i].state = Slot::State::free;
        refill(i);
    }

    bool idle() const {
        return std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.state == Slot::State::free; });
    }

private:
    void refill(unsigned i) {
        if (next_ >= eof_) return;
        Slot& s = slots_[i];
        s.off = next_;
        s.len = b_.block;
        s.done = 0;
        s.state = Slot::State::reading;
        next_ += b_.block;
        if (tl_) tl_->begin(0, Timeline::Kind::read, s.off, s.len);
        submit(i);
    }
    void submit(unsigned i) {
        Slot& s = slots_[i];
        const std::size_t from = b_.resume_at(s.done);
        ring_.read(in_, s.buf + from, static_cast<unsigned>(s.len - from), static_cast<off_t>(s.off + from), i);
    }

    sys::Ring& ring_;
    const sys::Fd& in_;
    Blocks& b_;
    std::vector<Slot> slots_;
    Timeline* tl_;
    std::uint64_t next_ = 0;
    std::uint64_t eof_ = kNone;
};

int direct_flag(const Job& j) { return j.direct ? O_DIRECT : 0; }

void read_uring(const Job& j) {
    const sys::Fd in = sys::open(j.src, O_RDONLY | direct_flag(j));
    Blocks b(j, j.direct ? &in : nullptr);
    sys::Ring ring(b.depth, j.src);
    UringReader reader(ring, in, b, nullptr);
    auto& slots = reader.slots();
    std::uint64_t consumed = 0;  // blocks reach the sink in file order
    reader.start();
    while (ring.in_flight() > 0) {
        const sys::Completion c = ring.next();
        if (!reader.on_read(static_cast<unsigned>(c.tag), c.res)) continue;
        for (bool progress = true; progress;) {
            progress = false;
            for (unsigned i = 0; i < slots.size(); ++i) {
                Slot& s = slots[i];
                if (s.state != Slot::State::read_done || s.off != consumed) continue;
                const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(s.done, reader.eof() - s.off));
                if (n > 0) j.sink->consume(s.buf, n);
                consumed += n;
                reader.release(i);
                progress = n > 0;
            }
        }
        // Blocks past the end of file come back empty: drop them.
        for (unsigned i = 0; i < slots.size(); ++i)
            if (slots[i].state == Slot::State::read_done && slots[i].off >= reader.eof()) reader.release(i);
    }
}

// Writes slot i's block (done bytes from 0) at its offset; under O_DIRECT the length is padded
// to the alignment and the file cut back to size at the end.
struct UringWriter {
    sys::Ring& ring;
    const sys::Fd& out;
    const Blocks& b;
    Timeline* tl;

    void start(Slot& s, unsigned i) {
        s.state = Slot::State::writing;
        s.len = round_up(s.done, b.align);
        if (s.len > s.done) std::memset(s.buf + s.done, 0, s.len - s.done);
        s.done = 0;
        if (tl) tl->begin(0, Timeline::Kind::write, s.off, s.len);
        submit(s, i);
    }
    void submit(const Slot& s, unsigned i) {
        const std::size_t from = b.resume_at(s.done);
        ring.write(out, s.buf + from, static_cast<unsigned>(s.len - from), static_cast<off_t>(s.off + from), i);
    }
    // Returns true when the block is fully written.
    bool on_write(Slot& s, unsigned i, int res) {
        if (transient(res)) {
            submit(s, i);
            return false;
        }
        if (res < 0) throw IoError(-res, "write", out.path());
        if (res == 0) throw IoError(ENOSPC, "write", out.path());
        s.done = b.resume_at(s.done) + static_cast<std::size_t>(res);
        if (s.done < s.len) {
            submit(s, i);
            return false;
        }
        if (tl) tl->end(0, Timeline::Kind::write, s.off, s.len);
        return true;
    }
};

void copy_uring(const Job& j) {
    const sys::Fd in = sys::open(j.src, O_RDONLY | direct_flag(j));
    const sys::Fd out = detail::open_dst(j.dst, O_WRONLY, direct_flag(j));
    Blocks b(j, j.direct ? &in : nullptr);
    if (j.direct) b.align = std::max(b.align, sys::direct_alignment(out).offset);
    sys::Ring ring(b.depth, j.src + " to " + j.dst);
    UringReader reader(ring, in, b, j.timeline);
    UringWriter writer{ring, out, b, j.timeline};
    auto& slots = reader.slots();
    reader.start();
    while (ring.in_flight() > 0) {
        const sys::Completion c = ring.next();
        const auto i = static_cast<unsigned>(c.tag);
        Slot& s = slots[i];
        if (s.state == Slot::State::writing) {
            if (writer.on_write(s, i, c.res)) reader.release(i);
            continue;
        }
        if (!reader.on_read(i, c.res)) continue;
        if (s.done > 0)
            writer.start(s, i);
        else
            reader.release(i);
    }
    // Padded O_DIRECT tails (and blocks read before the end was known) are cut back.
    if (j.direct && reader.eof() != kNone) sys::ftruncate(out, static_cast<off_t>(reader.eof()));
}

void write_uring(const Job& j) {
    const sys::Fd out = detail::open_dst(j.dst, O_WRONLY, direct_flag(j));
    Blocks b(j, j.direct ? &out : nullptr);
    sys::Ring ring(b.depth, j.dst);
    UringWriter writer{ring, out, b, nullptr};
    std::vector<Slot> slots(b.depth);
    const std::uint64_t total = j.records->size();
    std::uint64_t next = 0;
    const auto fill = [&](unsigned i) {
        if (next >= total) return;
        Slot& s = slots[i];
        s.buf = b.buffer(i);
        s.off = next;
        s.done = static_cast<std::size_t>(std::min<std::uint64_t>(b.block, total - next));
        j.records->copy(next, std::span(s.buf, s.done));
        next += s.done;
        writer.start(s, i);
    };
    for (unsigned i = 0; i < b.depth; ++i) fill(i);
    while (ring.in_flight() > 0) {
        const sys::Completion c = ring.next();
        const auto i = static_cast<unsigned>(c.tag);
        if (writer.on_write(slots[i], i, c.res)) fill(i);
    }
    if (j.direct && total % b.align != 0) sys::ftruncate(out, static_cast<off_t>(total));
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
