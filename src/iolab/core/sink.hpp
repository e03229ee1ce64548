#pragma once
// Where read strategies put what they read: the sink hashes every byte (XXH3-64) so that the
// run can be verified. This is the reader's use of its data (JMH's Blackhole), and its time is
// part of the measured time: taking it out was tried and measured to be biased, because the
// hash absorbed the cost of the kernel's copy still draining to memory (a 1 MiB pread loop
// measured 2.5x faster than the same loop in plain C). Strategies hand it chunks, never bytes.
#include <cstddef>
#include <cstdint>

#include "iolab/core/checksum.hpp"

namespace iolab {

class Sink {
public:
    void consume(const void* p, std::size_t n) { hasher_.update(p, n); }

    std::uint64_t digest() const { return hasher_.digest(); }
    std::uint64_t bytes() const { return hasher_.bytes(); }
    void reset() { hasher_.reset(); }

private:
    Hasher hasher_;
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
