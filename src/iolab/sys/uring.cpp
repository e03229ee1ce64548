#include "iolab/sys/uring.hpp"

#include <liburing.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "iolab/sys/attempt.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/fault.hpp"
#include "iolab/sys/throttle.hpp"

namespace iolab::sys {

namespace {
// The top bit of user_data marks writes, so completions can be counted and throttled.
constexpr std::uint64_t kWriteBit = std::uint64_t{1} << 63;
constexpr std::uint64_t kSyncBit = std::uint64_t{1} << 62;
// Trees: the kind of a metadata operation, in bits 59..61 (0: none).
constexpr std::uint64_t kMetaShift = 59, kMetaMask = std::uint64_t{7} << kMetaShift;
enum Meta : std::uint64_t { kOpen = 1, kClose = 2, kUnlink = 3 };
constexpr std::uint64_t kTagBits = ~(kWriteBit | kSyncBit | kMetaMask);
// The cancellation of a stalled ring's operations: a tag no operation has (all meta bits set).
constexpr std::uint64_t kCancelTag = kMetaMask;

// How long a ring may hold operations without completing any before it is taken as stalled: no
// transfer of a case here waits that long, and a stall would otherwise hang the run for good.
std::atomic<int> g_stall_limit_s{30};
// Set when a ring stalled: the operations it lost may be what keeps the next ring from completing
// (they hold the process's io_uring workers), so no ring is made again in this process.
std::atomic<bool> g_stalled{false};

void count(Call c, std::size_t bytes) {
    auto& t = thread_counters();
    ++t.calls[static_cast<std::size_t>(c)];
    t.bytes[static_cast<std::size_t>(c)] += bytes;
}
}  // namespace

Ring::Ring(unsigned entries, std::string label) : ring_(std::make_unique<io_uring>()), label_(std::move(label)) {
    if (g_stalled) {
        ring_.reset();
        throw IoError(EIO, "use io_uring again (one stalled earlier in this run) for", label_);
    }
    const int r = ::io_uring_queue_init(entries, ring_.get(), 0);
    if (r < 0) {
        ring_.reset();
        throw IoError(-r, "set up an io_uring for", label_);
    }
}

Ring::~Ring() {
    if (!ring_) return;
    // Operations still in the kernel (an error ended their owner's loop) may still copy into
    // buffers that are freed right after the ring.
    drain();
    // An abandoned ring is left open: closing it would wait on what the kernel lost.
    if (!abandoned_) ::io_uring_queue_exit(ring_.get());
}

void Ring::drain() noexcept {
    // Queued operations never reached the kernel: only the submitted ones complete. A stall
    // found here submits them with its cancel and accounts for them itself (wait).
    while (!abandoned_ && in_flight_ > queued_) {
        io_uring_cqe* cqe = nullptr;
        if (wait(&cqe) != 0) break;
        ::io_uring_cqe_seen(ring_.get(), cqe);
        --in_flight_;
    }
    in_flight_ = 0;
    queued_ = 0;
}

int Ring::wait(void* out) {
    auto** cqe = static_cast<io_uring_cqe**>(out);
    for (;;) {
        __kernel_timespec limit{g_stall_limit_s.load(), 0};
        const int r = ::io_uring_wait_cqe_timeout(ring_.get(), cqe, &limit);
        if (r == -EINTR || r == -EAGAIN) continue;
        if (r != -ETIME) return r;
        // Nothing completed within the limit: ask the kernel to cancel every operation, and give
        // it a second to say so; what it still holds then is abandoned with the ring.
        g_stalled = true;
        // The submission takes what was queued along with the cancel: all of it is in the kernel.
        unsigned left = in_flight_ - queued_;
        bool cancel_seen = true;
        if (io_uring_sqe* s = ::io_uring_get_sqe(ring_.get())) {
            ::io_uring_prep_cancel64(s, 0, IORING_ASYNC_CANCEL_ANY);
            ::io_uring_sqe_set_data64(s, kCancelTag);
            if (::io_uring_submit(ring_.get()) > 0) {
                left = in_flight_;
                cancel_seen = false;
            }
        }
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        while ((left > 0 || !cancel_seen) && std::chrono::steady_clock::now() < until) {
            __kernel_timespec second{1, 0};
            io_uring_cqe* c = nullptr;
            const int got = ::io_uring_wait_cqe_timeout(ring_.get(), &c, &second);
            if (got == -EINTR || got == -EAGAIN) continue;
            if (got != 0) break;
            if (::io_uring_cqe_get_data64(c) == kCancelTag)
                cancel_seen = true;
            else if (left > 0)
                --left;
            ::io_uring_cqe_seen(ring_.get(), c);
        }
        abandoned_ = left > 0;
        in_flight_ = 0;
        queued_ = 0;
        return -ETIME;
    }
}

void set_uring_stall_limit(int seconds) { g_stall_limit_s = seconds; }
void reset_uring_stall() { g_stalled = false; }
bool uring_stalled() { return g_stalled; }

void* Ring::sqe() {
    io_uring_sqe* s = ::io_uring_get_sqe(ring_.get());
    if (!s) throw IoError(EBUSY, "queue more on the full io_uring for", label_);
    return s;
}

void Ring::read(const Fd& fd, void* buf, unsigned n, off_t off, std::uint64_t tag) {
    auto* s = static_cast<io_uring_sqe*>(sqe());
    ::io_uring_prep_read(s, fd.get(), buf, n, static_cast<__u64>(off));
    ::io_uring_sqe_set_data64(s, tag & kTagBits);
    ++queued_;
    ++in_flight_;
}

void Ring::write(const Fd& fd, const void* buf, unsigned n, off_t off, std::uint64_t tag, bool link) {
    auto* s = static_cast<io_uring_sqe*>(sqe());
    ::io_uring_prep_write(s, fd.get(), buf, n, static_cast<__u64>(off));
    ::io_uring_sqe_set_data64(s, (tag & kTagBits) | kWriteBit);
    if (link) s->flags |= IOSQE_IO_LINK;
    ++queued_;
    ++in_flight_;
}

void Ring::register_slots(unsigned slots) {
    const int r = ::io_uring_register_files_sparse(ring_.get(), slots);
    if (r < 0) throw IoError(-r, "register files with the io_uring for", label_);
}

void Ring::open_into(const Fd& dir, const char* name, int flags, unsigned slot, std::uint64_t tag, bool link) {
    auto* s = static_cast<io_uring_sqe*>(sqe());
    // A registered slot is not a descriptor of the process: no O_CLOEXEC (EINVAL).
    ::io_uring_prep_openat_direct(s, dir.get(), name, flags & ~O_CLOEXEC, 0600, slot);
    ::io_uring_sqe_set_data64(s, (tag & kTagBits) | (kOpen << kMetaShift));
    if (link) s->flags |= IOSQE_IO_LINK;
    ++queued_;
    ++in_flight_;
}

void Ring::read_slot(unsigned slot, void* buf, unsigned n, off_t off, std::uint64_t tag, bool link) {
    auto* s = static_cast<io_uring_sqe*>(sqe());
    ::io_uring_prep_read(s, static_cast<int>(slot), buf, n, static_cast<__u64>(off));
    s->flags |= IOSQE_FIXED_FILE;
    if (link) s->flags |= IOSQE_IO_LINK;
    ::io_uring_sqe_set_data64(s, tag & kTagBits);
    ++queued_;
    ++in_flight_;
}

void Ring::write_slot(unsigned slot, const void* buf, unsigned n, off_t off, std::uint64_t tag) {
    auto* s = static_cast<io_uring_sqe*>(sqe());
    ::io_uring_prep_write(s, static_cast<int>(slot), buf, n, static_cast<__u64>(off));
    s->flags |= IOSQE_FIXED_FILE;
    ::io_uring_sqe_set_data64(s, (tag & kTagBits) | kWriteBit);
    ++queued_;
    ++in_flight_;
}

void Ring::close_slot(unsigned slot, std::uint64_t tag) {
    auto* s = static_cast<io_uring_sqe*>(sqe());
    ::io_uring_prep_close_direct(s, slot);
    ::io_uring_sqe_set_data64(s, (tag & kTagBits) | (kClose << kMetaShift));
    ++queued_;
    ++in_flight_;
}

void Ring::unlink(const Fd& dir, const char* name, std::uint64_t tag) {
    auto* s = static_cast<io_uring_sqe*>(sqe());
    ::io_uring_prep_unlinkat(s, dir.get(), name, 0);
    ::io_uring_sqe_set_data64(s, (tag & kTagBits) | (kUnlink << kMetaShift));
    ++queued_;
    ++in_flight_;
}

void Ring::fsync(const Fd& fd, bool datasync, std::uint64_t tag) {
    auto* s = static_cast<io_uring_sqe*>(sqe());
    ::io_uring_prep_fsync(s, fd.get(), datasync ? IORING_FSYNC_DATASYNC : 0);
    ::io_uring_sqe_set_data64(s, (tag & kTagBits) | kSyncBit);
    ++queued_;
    ++in_flight_;
}

Completion Ring::next() {
    while (queued_ > 0) {
        const int err = detail::fault_error(detail::take_fault(Call::uring_enter));
        const int r = err ? -err : ::io_uring_submit(ring_.get());
        count(Call::uring_enter, 0);
        if (r >= 0) {
            queued_ -= static_cast<unsigned>(r);
            break;
        }
        if (r != -EINTR && r != -EAGAIN && r != -EBUSY) throw IoError(-r, "submit to the io_uring for", label_);
    }
    io_uring_cqe* cqe = nullptr;
    if (const int r = wait(&cqe); r == -ETIME)
        throw IoError(ETIME,
                      fmt::format("get a completion within {} s (the io_uring stalled, and is not used again in "
                                  "this run) for",
                                  g_stall_limit_s.load()),
                      label_);
    else if (r != 0)
        throw IoError(-r, "wait on the io_uring for", label_);
    return complete(cqe);
}

std::optional<Completion> Ring::ready() {
    io_uring_cqe* cqe = nullptr;
    if (in_flight_ == queued_ || ::io_uring_peek_cqe(ring_.get(), &cqe) != 0 || !cqe) return std::nullopt;
    return complete(cqe);
}

Completion Ring::complete(void* done) {
    auto* cqe = static_cast<io_uring_cqe*>(done);
    Completion c{::io_uring_cqe_get_data64(cqe), cqe->res};
    ::io_uring_cqe_seen(ring_.get(), cqe);
    --in_flight_;
    const bool is_write = (c.tag & kWriteBit) != 0;
    const bool is_sync = (c.tag & kSyncBit) != 0;
    const std::uint64_t meta = (c.tag & kMetaMask) >> kMetaShift;
    c.tag &= kTagBits;
    if (meta != 0) {  // a tree's open, close or unlink: counted when it succeeded
        const Call m = meta == kOpen ? Call::uring_open : meta == kClose ? Call::uring_close : Call::uring_unlink;
        if (const int err = detail::fault_error(detail::take_fault(m))) c.res = -err;
        if (c.res >= 0) count(m, 0);
        return c;
    }
    const Call kind = is_sync ? Call::uring_fsync : is_write ? Call::uring_write : Call::uring_read;
    const Fault f = detail::take_fault(kind);
    if (const int err = detail::fault_error(f))
        c.res = -err;
    else if (f == Fault::short_count && c.res > 1)
        c.res /= 2;
    if (is_sync) {
        if (c.res == 0) count(kind, 0);  // only a sync that succeeded made anything durable
        return c;
    }
    count(kind, c.res > 0 ? static_cast<std::size_t>(c.res) : 0);
    if (is_write && c.res > 0) throttle_wait(static_cast<std::size_t>(c.res));
    return c;
}

std::optional<std::string> uring_unavailable() {
    if (g_stalled)
        return fmt::format(
            "an io_uring stalled earlier in this run (no completion within {} s): io_uring is not "
            "used again in it",
            g_stall_limit_s.load());
    static const std::optional<std::string> why = []() -> std::optional<std::string> {
        io_uring ring{};
        const int r = ::io_uring_queue_init(2, &ring, 0);
        if (r < 0)
            return std::string("io_uring is not available here (io_uring_setup: ") + std::strerror(-r) +
                   "; check kernel.io_uring_disabled)";
        ::io_uring_queue_exit(&ring);
        return std::nullopt;
    }();
    return why;
}

}  // namespace iolab::sys
