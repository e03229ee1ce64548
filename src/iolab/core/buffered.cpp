#include "iolab/io/buffered.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <stdexcept>

#include "iolab/io/profile.hpp"

namespace iolab {

namespace {
std::size_t capacity_for(const sys::Fd& fd, std::size_t capacity, bool reading) {
    return capacity != kTuned ? capacity : tuned_buffer(fd, reading, profile());
}
}  // namespace

std::size_t tuned_buffer(const sys::Fd& fd, bool reading, const Profile& tuning) {
    if (!tuning.usable()) return kDefaultBufferSize;
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || static_cast<std::uint64_t>(st.st_dev) != tuning.device)
        return kDefaultBufferSize;
    const std::size_t tuned = reading ? tuning.read_buffer : tuning.write_buffer;
    return tuned ? tuned : kDefaultBufferSize;
}

// Page-aligned storage: the kernel copies into it faster (see strategies/common.hpp).
BufferedReader::BufferedReader(const sys::Fd& fd, std::size_t capacity)
    : fd_(fd),
      cap_(capacity_for(fd, capacity, true)),
      storage_(cap_, 4096),
      buf_(reinterpret_cast<unsigned char*>(storage_.data())) {}

bool BufferedReader::refill() {
    // Emptied first: if the read throws, the bytes already handed out are not handed out again.
    pos_ = 0;
    end_ = 0;
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
    : fd_(fd),
      cap_(capacity_for(fd, capacity, false)),
      storage_(cap_, 4096),
      buf_(reinterpret_cast<char8_t*>(storage_.data())) {}

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
