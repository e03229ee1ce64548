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
        ssize_t r;
        switch (take_fault(c)) {
            case Fault::none: r = op(n); break;
            case Fault::short_count: r = op(n > 1 ? n / 2 : n); break;
            case Fault::eintr:
                errno = EINTR;
                r = -1;
                break;
            case Fault::eagain:
                errno = EAGAIN;
                r = -1;
                break;
            case Fault::enospc:
                errno = ENOSPC;
                r = -1;
                break;
            case Fault::eio:
                errno = EIO;
                r = -1;
                break;
            case Fault::errno_value:
                errno = fault_errno();
                r = -1;
                break;
            default: r = op(n); break;
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
        switch (take_fault(c)) {
            case Fault::eintr:
                errno = EINTR;
                r = -1;
                break;
            case Fault::eagain:
                errno = EAGAIN;
                r = -1;
                break;
            case Fault::enospc:
                errno = ENOSPC;
                r = -1;
                break;
            case Fault::eio:
                errno = EIO;
                r = -1;
                break;
            case Fault::errno_value:
                errno = fault_errno();
                r = -1;
                break;
            default: r = op(); break;
        }
        count(c);
        if (r == 0) return;
        if (errno == EINTR || errno == EAGAIN) continue;
        fail(errno, what, path);
    }
}

}  // namespace iolab::sys::detail
