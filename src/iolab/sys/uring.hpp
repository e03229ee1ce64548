#pragma once
// io_uring through liburing inside the syscall layer: submissions and completions are counted and
// completions can be faulted; resubmitting short or -EAGAIN completions is the caller's job.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "iolab/sys/io.hpp"

struct io_uring;

namespace iolab::sys {

struct Completion {
    std::uint64_t tag = 0;
    int res = 0;  // bytes, or -errno
};

class Ring {
public:
    // label names the file(s) the ring works on, for error messages. Throws IoError when
    // io_uring is unavailable.
    Ring(unsigned entries, std::string label);
    ~Ring();
    Ring(const Ring&) = delete;
    Ring& operator=(const Ring&) = delete;

    void read(const Fd& fd, void* buf, unsigned n, off_t off, std::uint64_t tag);
    // link: the next operation queued starts only when this one has completed in full (a short
    // write or an error completes the next with -ECANCELED).
    void write(const Fd& fd, const void* buf, unsigned n, off_t off, std::uint64_t tag, bool link = false);
    // fdatasync (datasync) or fsync of the file, counted as Call::uring_fsync when it completes.
    void fsync(const Fd& fd, bool datasync, std::uint64_t tag);

    // Trees of files: a table of `slots` registered files, empty; an openat below dir into slot
    // `slot` (its completion's res is 0 or -errno), a read of the file in a slot, the slot's file
    // closed, a name below dir removed. `link` as for write.
    void register_slots(unsigned slots);
    void open_into(const Fd& dir, const char* name, int flags, unsigned slot, std::uint64_t tag, bool link);
    void read_slot(unsigned slot, void* buf, unsigned n, off_t off, std::uint64_t tag, bool link);
    void write_slot(unsigned slot, const void* buf, unsigned n, off_t off, std::uint64_t tag);
    void close_slot(unsigned slot, std::uint64_t tag);
    void unlink(const Fd& dir, const char* name, std::uint64_t tag);
    // Submits what was queued and waits for one completion.
    Completion next();
    // A completion already there, without a system call (nothing is submitted), or nullopt: a
    // caller that takes every ready one before next() submits all it queued meanwhile at once.
    std::optional<Completion> ready();
    unsigned in_flight() const { return in_flight_; }
    // Waits for every operation the kernel still has, so that their buffers can go; queued ones
    // are dropped.
    void drain() noexcept;
    // True when the ring stalled (no completion within the stall limit) and the kernel kept
    // operations it would not cancel: their buffers must never be freed or reused.
    bool abandoned() const { return abandoned_; }

private:
    void* sqe();
    Completion complete(void* cqe);
    // Waits for a completion (io_uring_cqe**) up to the stall limit: 0, -errno, or -ETIME when the
    // ring stalled (then its operations are cancelled or abandoned, and none is in flight).
    int wait(void* cqe);
    std::unique_ptr<io_uring> ring_;
    unsigned in_flight_ = 0;
    unsigned queued_ = 0;
    bool abandoned_ = false;
    std::string label_;
};

// For the owner of a ring's buffers, in its destructor (the buffers declared before the ring):
// waits for what the kernel still has and, if the ring was abandoned with operations it would not
// cancel, keeps `buffers` for good, as the kernel may yet write into them.
template <class Buffers>
void keep_if_abandoned(Ring& ring, Buffers& buffers) {
    ring.drain();
    if (ring.abandoned()) static_cast<void>(new Buffers(std::move(buffers)));
}

// A ring that completes nothing for this many seconds (30 unless set) has stalled: next() throws
// IoError, and no ring is made again in the process (uring_stalled()) until reset_uring_stall().
void set_uring_stall_limit(int seconds);
bool uring_stalled();
void reset_uring_stall();

// Why io_uring cannot be used here (disabled by sysctl, seccomp, no kernel support), or
// nullopt. Probed once.
std::optional<std::string> uring_unavailable();

}  // namespace iolab::sys
