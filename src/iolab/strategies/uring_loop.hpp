#pragma once
// The io_uring loop of every io_uring strategy (uring.cpp, patterned.cpp): Q slots, each with a
// buffer of its own and at most one read or write in flight. The loop submits, reaps, resubmits
// a short transfer for the rest of its block and -EAGAIN or -EINTR as they were, and hands each
// finished transfer to the strategy, which may start the slot's next one.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "iolab/core/aligned.hpp"
#include "iolab/sys/io.hpp"
#include "iolab/sys/uring.hpp"

namespace iolab::detail {

class UringLoop {
public:
    // What a slot moves: len bytes between its buffer and the file at off.
    struct Transfer {
        const sys::Fd* fd = nullptr;
        bool write = false;
        std::uint64_t off = 0;
        std::size_t len = 0;
        std::size_t done = 0;  // bytes moved so far
    };

    // depth slots of block bytes, their memory aligned to memory_align (a page at least). A short
    // transfer goes on from the last multiple of align it reached (O_DIRECT's alignment, else 1).
    // label names the file(s), for the ring's own errors.
    UringLoop(unsigned depth, std::size_t block, std::size_t memory_align, std::size_t align, std::string label);
    // Gives its buffers back, unless the ring was abandoned with operations the kernel still holds:
    // then they are kept for good, as the kernel may yet write into them.
    ~UringLoop();
    UringLoop(const UringLoop&) = delete;
    UringLoop& operator=(const UringLoop&) = delete;

    unsigned depth() const { return static_cast<unsigned>(slots_.size()); }
    std::size_t block() const { return block_; }
    std::size_t align() const { return align_; }
    std::byte* buffer(unsigned slot) const { return memory_.data() + static_cast<std::size_t>(slot) * block_; }
    const Transfer& transfer(unsigned slot) const { return slots_[slot]; }

    // Starts slot's transfer of len bytes of its buffer from or to fd at off.
    void read(unsigned slot, const sys::Fd& fd, std::uint64_t off, std::size_t len);
    void write(unsigned slot, const sys::Fd& fd, std::uint64_t off, std::size_t len);

    // Runs until nothing is in flight, calling finished(slot) for each transfer done in full, or
    // for a read that stops short (the end of the file: done < len). A write that makes no
    // progress throws ENOSPC, another error an IoError naming the file ("read", "write"). On any
    // throw the ring first waits for what the kernel still has, so no buffer goes while in use.
    void run(const std::function<void(unsigned slot)>& finished);

private:
    void start(unsigned slot, const sys::Fd& fd, bool write, std::uint64_t off, std::size_t len);
    void submit(unsigned slot);
    // Takes one completion; true when its transfer is finished.
    bool reap(unsigned slot, int res);

    std::size_t block_, align_;
    AlignedBuffer memory_;  // before the ring: it goes after the ring has drained
    sys::Ring ring_;
    std::vector<Transfer> slots_;
};

}  // namespace iolab::detail
