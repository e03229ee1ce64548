#include "iolab/core/records.hpp"

#include <algorithm>
#include <cstring>

namespace iolab {

Records::Records(const DataSpec& spec, std::size_t record, std::uint64_t count)
    : spec_(spec), record_(record), count_(count), seed_(splitmix64(spec.seed ^ 0x7265'636f'7264'7321ULL)) {
    if (record_ == 0) record_ = 1;
    per_block_ = (kMinBlock + record_ - 1) / record_;
    block_ = record_ * per_block_;
    const std::uint64_t spread = std::min<std::uint64_t>(kSpread, size());
    auto pool = std::make_shared<AlignedBuffer>(block_ + static_cast<std::size_t>(spread), 4096);
    fill(spec, 0, std::span(pool->data(), pool->size()));
    places_ = spread / kAlign + 1;
    pool_ = std::move(pool);
}

std::size_t Records::place(std::uint64_t k) const noexcept {
    return static_cast<std::size_t>(splitmix64(seed_ ^ k) % places_) * kAlign;
}

void Records::copy(std::uint64_t offset, std::span<std::byte> out) const {
    std::byte* to = out.data();
    for_each_piece(offset, out.size(), [&](const std::byte* p, std::size_t n) {
        std::memcpy(to, p, n);
        to += n;
    });
}

FileDigest Records::digest() const {
    Hasher h;
    for_each_piece(0, size(), [&](const std::byte* p, std::size_t n) { h.update(p, n); });
    return {h.digest(), size(), 0, 0};
}

}  // namespace iolab
