#pragma once
// Inside the syscall layer only: one system call, retried on EINTR and EAGAIN, with any injected
// fault applied, counted, throttled and cancellable. The .cpp files of sys/ share it.
#include <cerrno>
#include <cstddef>
#include <string>
#include <string_view>

#include <sys/types.h>

#include "iolab/sys/fault.hpp"
#include "iolab/sys/io.hpp"
#include "iolab/sys/stop.hpp"
#include "iolab/sys/throttle.hpp"

namespace iolab::sys::detail {

void count(Call c, std::size_t bytes = 0);
[[noreturn]] void fail(int err, std::string_view op, const std::string& path);
// Whether the call's bytes land in a destination, so that an active throttle slows it down.
bool is_write_side(Call c, int fd);
// Waits until fd is ready after EAGAIN (only pipes and sockets ever block).
void wait_ready(int fd, short events);

// The errno an injected fault stands for, or 0 when the call is to run (none, short_count).
inline int fault_error(Fault f) {
    switch (f) {
        case Fault::eintr: return EINTR;
        case Fault::eagain: return EAGAIN;
        case Fault::enospc: return ENOSPC;
        case Fault::eio: return EIO;
        case Fault::errno_value: return fault_errno();
        default: return 0;
    }
}

// Runs one system call, retrying EINTR and EAGAIN, applying any injected fault, counting it.
// op(n) performs the call asking for n bytes; a short-count fault asks for half (at least 1).
// Returns the call's result, or -1 with errno set for any other error.
template <class Op>
ssize_t attempt(Call c, int fd, short events, std::size_t n, Op&& op) {
    for (;;) {
        if (stop_requested()) {
            errno = ECANCELED;
            return -1;
        }
        const Fault f = take_fault(c);
        ssize_t r;
        if (const int err = fault_error(f)) {
            errno = err;
            r = -1;
        } else {
            r = op(f == Fault::short_count && n > 1 ? n / 2 : n);
        }
        count(c, r > 0 ? static_cast<std::size_t>(r) : 0);
        if (r > 0 && is_write_side(c, fd)) throttle_wait(static_cast<std::size_t>(r));
        if (r >= 0) return r;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            wait_ready(fd, events);
            continue;
        }
        return -1;
    }
}

// Same, for calls that move no data: 0 on success.
template <class Op>
void attempt_void(Call c, const std::string& path, std::string_view what, Op&& op) {
    for (;;) {
        int r;
        if (const int err = fault_error(take_fault(c))) {
            errno = err;
            r = -1;
        } else {
            r = op();
        }
        count(c);
        if (r == 0) return;
        if (errno == EINTR || errno == EAGAIN) continue;
        fail(errno, what, path);
    }
}

}  // namespace iolab::sys::detail
