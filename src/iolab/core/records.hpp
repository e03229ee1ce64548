#pragma once
// The data a write job writes: `count` records of `record` bytes, handed out from a bounded pool
// of data generated before the clock starts, so that memory does not grow with the file (fio
// keeps a few buffers per job whatever the size).
//
// The records are grouped into blocks of at least 64 KiB (a whole number of records). Block k is
// the pool's bytes from a place drawn from (seed, k), one of millions, so no two blocks of a file
// are alike but by a one-in-millions chance, and none repeats at a fixed period: a block written
// twice, skipped, or put at another block's place (off by a record, by 2^32, by the pool) changes
// the file's checksum. Handing out a record costs an addition; a block, one hash.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "iolab/core/aligned.hpp"
#include "iolab/core/checksum.hpp"
#include "iolab/core/data.hpp"

namespace iolab {

class Records {
public:
    static constexpr std::size_t kMinBlock = 64 * 1024;
    static constexpr std::size_t kAlign = 64;          // where a block may start in the pool
    static constexpr std::size_t kSpread = 16u << 20;  // bytes of the pool blocks start in

    Records() = default;
    // Generates the pool: one block plus up to kSpread bytes (fewer for a smaller file).
    Records(const DataSpec& spec, std::size_t record, std::uint64_t count);

    std::size_t record() const noexcept { return record_; }
    std::uint64_t count() const noexcept { return count_; }
    std::uint64_t size() const noexcept { return static_cast<std::uint64_t>(record_) * count_; }
    std::size_t block() const noexcept { return block_; }
    std::size_t pool_bytes() const noexcept { return pool_ ? pool_->size() : 0; }
    // What the pool was generated from (a worker in another runtime makes the same records from it).
    const DataSpec& spec() const noexcept { return spec_; }

    // The first byte of block k.
    const std::byte* block_at(std::uint64_t k) const noexcept { return pool_->data() + place(k); }
    // Record i.
    std::span<const std::byte> at(std::uint64_t i) const noexcept {
        return {block_at(i / per_block_) + (i % per_block_) * record_, record_};
    }
    // f(const std::byte*, std::size_t) for every record, in order.
    template <class F>
    void for_each_record(F&& f) const {
        std::uint64_t i = 0;
        for (std::uint64_t k = 0; i < count_; ++k) {
            const std::byte* p = block_at(k);
            for (std::size_t r = 0; r < per_block_ && i < count_; ++r, ++i, p += record_) f(p, record_);
        }
    }
    // f(const std::byte*, std::size_t) for the pieces of bytes [offset, offset + n), in order:
    // each piece lies within one block.
    template <class F>
    void for_each_piece(std::uint64_t offset, std::uint64_t n, F&& f) const {
        while (n > 0) {
            const std::uint64_t k = offset / block_;
            const auto in = static_cast<std::size_t>(offset % block_);
            const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(n, block_ - in));
            f(block_at(k) + in, take);
            offset += take;
            n -= take;
        }
    }
    // Copies bytes [offset, offset + out.size()) into out.
    void copy(std::uint64_t offset, std::span<std::byte> out) const;
    // The checksum and size of all the records, back to back (computed once, before any run).
    FileDigest digest() const;

private:
    std::size_t place(std::uint64_t k) const noexcept;

    std::shared_ptr<const AlignedBuffer> pool_;
    DataSpec spec_;
    std::size_t record_ = 0;
    std::size_t per_block_ = 1;
    std::size_t block_ = 0;
    std::uint64_t count_ = 0;
    std::uint64_t seed_ = 0;
    std::uint64_t places_ = 1;
};

}  // namespace iolab
