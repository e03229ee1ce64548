#pragma once
// Where read strategies put what they read. The sink hashes every byte (XXH3-64) so the run
// can be verified, and times its own hashing so the harness can take it out of the measured
// time: verification is not the strategy's work. Strategies hand it chunks, never single bytes.
#include <cstddef>
#include <cstdint>

#include "iolab/core/checksum.hpp"

namespace iolab {

class Sink {
public:
    // Hash a chunk the strategy has read; the hashing time is excluded from measurement.
    void consume(const void* p, std::size_t n);
    // Hash data in place as the strategy's own work (mmap-scan): the time stays measured.
    void consume_as_work(const void* p, std::size_t n) { hasher_.update(p, n); }

    std::uint64_t digest() const { return hasher_.digest(); }
    std::uint64_t bytes() const { return hasher_.bytes(); }
    std::uint64_t excluded_ns() const { return excluded_ns_; }
    void reset() {
        hasher_.reset();
        excluded_ns_ = 0;
    }

private:
    Hasher hasher_;
    std::uint64_t excluded_ns_ = 0;
};

// Collects single bytes into a block and hands full blocks to the sink: what a byte-at-a-time
// reader does with each byte (the JMH Blackhole's role), at the cost of one store.
class ByteStager {
public:
    explicit ByteStager(Sink& sink) : sink_(sink) {}
    ~ByteStager() = default;
    void put(unsigned char c) {
        buf_[n_++] = c;
        if (n_ == sizeof buf_) [[unlikely]]
            flush();
    }
    void flush() {
        sink_.consume(buf_, n_);
        n_ = 0;
    }

private:
    Sink& sink_;
    std::size_t n_ = 0;
    unsigned char buf_[64 * 1024];
};

}  // namespace iolab
