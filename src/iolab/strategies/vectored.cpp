// readv/writev: several buffers or records per system call.
#include <sys/uio.h>

#include <algorithm>
#include <vector>

#include "iolab/core/aligned.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/strategy.hpp"

namespace iolab {

namespace {

// IOV_MAX on Linux: a vector longer than this is refused with EINVAL.
constexpr unsigned kIovMax = 1024;

void read_readv(const Job& j) {
    const sys::Fd in = detail::open_src(j.src);
    const unsigned k = std::clamp(j.iov, 1u, kIovMax);
    AlignedBuffer buf(j.buffer * k, detail::kPage);
    std::vector<iovec> iov(k);
    for (unsigned i = 0; i < k; ++i) iov[i] = {buf.data() + i * j.buffer, j.buffer};
    // The buffers are consecutive, so whatever one call fills is one contiguous run.
    while (const std::size_t n = sys::readv_some(in, iov.data(), static_cast<int>(k))) j.sink->consume(buf.data(), n);
}

void write_writev(const Job& j) {
    const sys::Fd out = detail::open_dst(j.dst);
    const unsigned k = std::clamp(j.iov, 1u, kIovMax);
    std::vector<iovec> iov(k);
    const RecordValues& r = j.records_of();
    for (std::uint64_t first = 0; first < r.count; first += k) {
        const auto n = static_cast<unsigned>(std::min<std::uint64_t>(k, r.count - first));
        for (unsigned i = 0; i < n; ++i) iov[i] = {const_cast<std::byte*>(j.records->at(first + i).data()), r.record};
        sys::writev_all(out, iov.data(), static_cast<int>(n));
    }
}

// One entry per row, fields in declaration order.
// clang-format off
constexpr StrategyDef kVectored[] = {
    {.name = "read.readv", .params = kParamBuffer | kParamIov, .run = read_readv,
     .description = "readv(2) into K buffers of N bytes per call", .jvm = "ScatteringByteChannel.read(ByteBuffer[])"},
    {.name = "write.writev", .params = kParamRecord | kParamIov, .run = write_writev,
     .description = "writev(2) gathering K records per call, straight from memory",
     .jvm = "GatheringByteChannel.write(ByteBuffer[])"},
};
// clang-format on

}  // namespace

void register_vectored_strategies(Registry& r) { r.add(kVectored); }

}  // namespace iolab
