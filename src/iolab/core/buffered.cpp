#include "iolab/core/buffered.hpp"

#include <algorithm>
#include <stdexcept>

namespace iolab {

namespace {
std::size_t checked(std::size_t capacity) {
    if (capacity == 0) throw std::invalid_argument("buffer capacity must be at least 1 byte");
    return capacity;
}
}  // namespace

// Page-aligned storage: the kernel copies into it faster (see strategies/common.hpp).
BufferedReader::BufferedReader(const sys::Fd& fd, std::size_t capacity)
    : fd_(fd), cap_(checked(capacity)), storage_(cap_, 4096), buf_(reinterpret_cast<unsigned char*>(storage_.data())) {}

bool BufferedReader::refill() {
    pos_ = 0;
    end_ = sys::read_some(fd_, buf_, cap_);
    return end_ > 0;
}

std::size_t BufferedReader::read(void* dst, std::size_t n) {
    auto* out = static_cast<unsigned char*>(dst);
    std::size_t done = std::min(n, end_ - pos_);
    std::memcpy(out, buf_ + pos_, done);
    pos_ += done;
    while (done < n) {
        if (n - done >= cap_) {
            const std::size_t r = sys::read_some(fd_, out + done, n - done);
            if (r == 0) break;
            done += r;
        } else {
            if (!refill()) break;
            const std::size_t k = std::min(n - done, end_);
            std::memcpy(out + done, buf_, k);
            pos_ = k;
            done += k;
        }
    }
    return done;
}

BufferedWriter::BufferedWriter(const sys::Fd& fd, std::size_t capacity)
    : fd_(fd), cap_(checked(capacity)), storage_(cap_, 4096), buf_(reinterpret_cast<char8_t*>(storage_.data())) {}

BufferedWriter::~BufferedWriter() {
    try {
        drain();
    } catch (...) {
    }
}

void BufferedWriter::drain() {
    if (pos_ == 0) return;
    const std::size_t n = pos_;
    pos_ = 0;  // on failure the bytes are dropped, not written twice by the destructor
    sys::write_all(fd_, buf_, n);
}

void BufferedWriter::write(const void* src, std::size_t n) {
    const auto* in = static_cast<const unsigned char*>(src);
    if (n < cap_ - pos_) {
        std::memcpy(buf_ + pos_, in, n);
        pos_ += n;
        return;
    }
    if (n >= cap_) {
        drain();
        sys::write_all(fd_, in, n);
        return;
    }
    const std::size_t k = cap_ - pos_;
    std::memcpy(buf_ + pos_, in, k);
    pos_ = cap_;
    drain();
    std::memcpy(buf_, in + k, n - k);
    pos_ = n - k;
}

}  // namespace iolab
