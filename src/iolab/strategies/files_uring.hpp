#pragma once
// The files family's io_uring parts: how many files are in flight (files_uring.cpp, and the
// removal in files_tree.cpp), the file each slot works on, and the loop that hands every ready
// completion to its slot before one submission of all they queued.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "iolab/strategies/files_common.hpp"
#include "iolab/sys/uring.hpp"

namespace iolab::detail {

// Files in flight: the job's queue, at most its files.
inline unsigned files_in_flight(const Job& j) {
    return static_cast<unsigned>(std::min<std::uint64_t>(j.queue, std::max<std::uint64_t>(1, j.tree_of().files)));
}

// The file a slot works on: its index, its name (read by the kernel when the open is submitted,
// after begin), how far it has come, and when it began (a file's latency).
struct SlotFile {
    std::uint64_t file = 0;
    FileName name{0};
    off_t offset = 0;
    std::uint64_t began = 0;
    void begin(std::uint64_t index, std::uint64_t now) {
        file = index;
        name = FileName(index);
        offset = 0;
        began = now;
    }
};

// A completion's tag: the slot, and what the operation was (one of 8).
inline std::uint64_t slot_tag(unsigned slot, unsigned op) { return (std::uint64_t{slot} << 3) | op; }

// Takes every completion, handing each to f(slot, op, res), until none is in flight.
template <class F>
void drive(sys::Ring& ring, F&& f) {
    while (ring.in_flight() > 0)
        for (std::optional<sys::Completion> c = ring.next(); c; c = ring.ready())
            f(static_cast<unsigned>(c->tag >> 3), static_cast<unsigned>(c->tag & 7), c->res);
}

}  // namespace iolab::detail
