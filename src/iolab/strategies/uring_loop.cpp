#include "iolab/strategies/uring_loop.hpp"

#include <algorithm>
#include <cerrno>

#include "iolab/strategies/common.hpp"
#include "iolab/sys/error.hpp"

namespace iolab::detail {

UringLoop::UringLoop(unsigned depth, std::size_t block, std::size_t memory_align, std::size_t align, std::string label)
    : block_(block),
      align_(align),
      memory_(block * depth, std::max(memory_align, kPage)),
      ring_(depth, std::move(label)),
      slots_(depth) {}

UringLoop::~UringLoop() { sys::keep_if_abandoned(ring_, memory_); }

void UringLoop::read(unsigned slot, const sys::Fd& fd, std::uint64_t off, std::size_t len) {
    start(slot, fd, false, off, len);
}

void UringLoop::write(unsigned slot, const sys::Fd& fd, std::uint64_t off, std::size_t len) {
    start(slot, fd, true, off, len);
}

void UringLoop::start(unsigned slot, const sys::Fd& fd, bool write, std::uint64_t off, std::size_t len) {
    slots_[slot] = Transfer{&fd, write, off, len, 0};
    submit(slot);
}

// The rest of the slot's block, from the last aligned position reached (O_DIRECT needs one).
void UringLoop::submit(unsigned slot) {
    const Transfer& t = slots_[slot];
    const std::size_t from = t.done - t.done % align_;
    const auto n = static_cast<unsigned>(t.len - from);
    const auto at = static_cast<off_t>(t.off + from);
    if (t.write)
        ring_.write(*t.fd, buffer(slot) + from, n, at, slot);
    else
        ring_.read(*t.fd, buffer(slot) + from, n, at, slot);
}

bool UringLoop::reap(unsigned slot, int res) {
    Transfer& t = slots_[slot];
    if (res == -EAGAIN || res == -EINTR) {
        submit(slot);
        return false;
    }
    if (res < 0) throw IoError(-res, t.write ? "write" : "read", t.fd->path());
    const std::size_t now = t.done - t.done % align_ + static_cast<std::size_t>(res);
    if (now <= t.done) {  // no progress: a full device, or the end of the file
        if (t.write) throw IoError(ENOSPC, "write", t.fd->path());
        return true;
    }
    t.done = now;
    if (t.done < t.len) {
        submit(slot);
        return false;
    }
    return true;
}

void UringLoop::run(const std::function<void(unsigned slot)>& finished) {
    try {
        while (ring_.in_flight() > 0) {
            const sys::Completion c = ring_.next();
            const auto slot = static_cast<unsigned>(c.tag);
            if (reap(slot, c.res)) finished(slot);
        }
    } catch (...) {
        ring_.drain();
        throw;
    }
}

}  // namespace iolab::detail
