// O_DIRECT and O_DSYNC: reads and writes that bypass the page cache or wait for the device.
#include <algorithm>
#include <cstring>

#include "iolab/core/aligned.hpp"
#include "iolab/core/buffered.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/direct.hpp"
#include "iolab/strategies/strategy.hpp"

namespace iolab {

std::optional<std::string> direct_unavailable(const std::string& dir) {
    try {
        ScratchDir probe(dir);
        const sys::Fd fd = detail::open_dst(probe.at("probe"), O_RDWR, O_DIRECT);
        const sys::DirectAlignment a = sys::direct_alignment(fd);
        if (!a.direct_io) return "this filesystem reports no direct I/O support (statx STATX_DIOALIGN)";
        return std::nullopt;
    } catch (const IoError& e) {
        return "this filesystem refuses O_DIRECT (open: " + std::string(std::strerror(e.code())) + ")";
    }
}

void direct_pwrite_all(const sys::Fd& fd, const std::byte* buf, std::size_t len, off_t off, std::size_t align) {
    std::size_t done = 0;
    while (done < len) {
        // After a short write the position may be unaligned: back up to the last aligned
        // boundary and write those bytes again (the buffer still holds them).
        const std::size_t from = done - done % align;
        const std::size_t w = sys::pwrite_some(fd, buf + from, len - from, off + static_cast<off_t>(from));
        if (w == 0) throw IoError(ENOSPC, "write", fd.path());
        done = std::max(done, from + w);
    }
}

namespace {

void read_direct(const Job& j) {
    const sys::Fd in = sys::open(j.src, O_RDONLY | O_DIRECT);
    const sys::DirectAlignment a = sys::direct_alignment(in);
    const std::size_t block = round_up(j.buffer, a.offset);
    AlignedBuffer buf(block, a.memory);
    std::uint64_t pos = 0;
    for (;;) {
        // Reads start at aligned offsets; after a short read, re-read from the boundary and
        // skip what was already consumed.
        const std::uint64_t from = pos - pos % a.offset;
        const std::size_t skip = static_cast<std::size_t>(pos - from);
        const std::size_t n = sys::pread_some(in, buf.data(), block, static_cast<off_t>(from));
        if (n <= skip) break;  // end of file
        j.sink->consume(buf.data() + skip, n - skip);
        pos = from + n;
    }
}

void write_direct(const Job& j) {
    const sys::Fd out = detail::open_dst(j.dst, O_WRONLY, O_DIRECT);
    const sys::DirectAlignment a = sys::direct_alignment(out);
    const std::size_t block = round_up(j.buffer, a.offset);
    AlignedBuffer buf(block, a.memory);
    const std::uint64_t total = j.records->size();
    for (std::uint64_t pos = 0; pos < total; pos += block) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(block, total - pos));
        j.records->copy(pos, std::span(buf.data(), n));
        // The unaligned tail goes out padded with zeros; the file is cut back to size below.
        const std::size_t len = round_up(n, a.offset);
        std::memset(buf.data() + n, 0, len - n);
        direct_pwrite_all(out, buf.data(), len, static_cast<off_t>(pos), a.offset);
    }
    if (total % a.offset != 0) sys::ftruncate(out, static_cast<off_t>(total));
}

void write_dsync(const Job& j) {
    const sys::Fd out = detail::open_dst(j.dst, O_WRONLY, O_DSYNC);
    BufferedWriter w(out, j.buffer);
    j.records->for_each_record([&](const std::byte* p, std::size_t n) { w.write(p, n); });
    w.flush();
}

// One entry per row, fields in declaration order.
// clang-format off
constexpr StrategyDef kDirectIo[] = {
    {.name = "read.direct", .params = kParamBuffer, .flags = kDirect | kBypassesCache, .run = read_direct,
     .unavailable = direct_unavailable,
     .description = "pread(2) with O_DIRECT into an aligned N-byte buffer (no page cache)"},
    {.name = "write.direct", .params = kParamBuffer | kParamRecord, .flags = kDirect | kBypassesCache, .run = write_direct,
     .unavailable = direct_unavailable,
     .description = "pwrite(2) with O_DIRECT from an aligned N-byte buffer; the tail padded, then truncated"},
    {.name = "write.dsync", .params = kParamBuffer | kParamRecord, .flags = kWaitsForDevice, .run = write_dsync,
     .description = "O_DSYNC: every write(2) of an N-byte buffer waits for the device",
     .jvm = "FileChannel opened with StandardOpenOption.DSYNC"},
};
// clang-format on

}  // namespace

void register_direct_strategies(Registry& r) { r.add(kDirectIo); }

}  // namespace iolab
