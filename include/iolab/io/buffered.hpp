#pragma once
// iolab::io's buffered reader and writer: the C++ counterparts of Java's BufferedInputStream and
// BufferedOutputStream and of Rust's BufReader and BufWriter. One byte costs an inline compare and
// copy; requests at least as large as the buffer bypass it and go straight to the descriptor.
// Errors throw IoError; the descriptor must outlive the reader or writer.
//
// Byte-level parsing without a call per byte, as Rust's BufRead::fill_buf and consume:
//
//     iolab::BufferedReader in(fd);
//     std::uint64_t lines = 0;
//     for (auto bytes = in.peek(); !bytes.empty(); bytes = in.peek()) {
//         lines += std::count(bytes.begin(), bytes.end(), std::byte{'\n'});
//         in.consume(bytes.size());
//     }
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>

#include "iolab/io/aligned.hpp"
#include "iolab/io/syscalls.hpp"
#include "iolab/io/export.hpp"

namespace iolab {

inline constexpr std::size_t kDefaultBufferSize = 64 * 1024;
// A capacity of kTuned: the buffer `iolab tune` found fastest for files on fd's filesystem
// (profile.hpp), else kDefaultBufferSize.
inline constexpr std::size_t kTuned = 0;

struct Profile;
// The buffer a reader (or writer) of fd gets for kTuned under `tuning`.
IOLAB_IO_API std::size_t tuned_buffer(const sys::Fd& fd, bool reading, const Profile& tuning);

class IOLAB_IO_API BufferedReader {
public:
    explicit BufferedReader(const sys::Fd& fd, std::size_t capacity = kTuned);
    // The descriptor must outlive the reader: a temporary one would not.
    BufferedReader(sys::Fd&&, std::size_t = kTuned) = delete;

    // The next byte (0..255), or -1 at end of file. Errors throw IoError.
    int get() {
        if (pos_ < end_) [[likely]]
            return buf_[pos_++];
        return refill() ? buf_[pos_++] : -1;
    }
    std::size_t capacity() const noexcept { return cap_; }
    // Up to n bytes; fewer only at end of file.
    std::size_t read(void* dst, std::size_t n);
    // The buffered bytes not yet consumed, refilling the buffer first when there are none: empty
    // only at end of file. They stay valid until the next call that reads.
    std::span<const std::byte> peek() {
        if (pos_ == end_ && !refill()) return {};
        return {reinterpret_cast<const std::byte*>(buf_ + pos_), end_ - pos_};
    }
    // Marks the first n bytes of peek()'s as read. Throws std::out_of_range past them.
    void consume(std::size_t n) {
        if (n > end_ - pos_) throw std::out_of_range("consume: more bytes than peek() gave");
        pos_ += n;
    }

private:
    bool refill();

    const sys::Fd& fd_;
    std::size_t cap_;
    AlignedBuffer storage_;
    unsigned char* buf_;
    std::size_t pos_ = 0;
    std::size_t end_ = 0;
};

class IOLAB_IO_API BufferedWriter {
public:
    explicit BufferedWriter(const sys::Fd& fd, std::size_t capacity = kTuned);
    BufferedWriter(sys::Fd&&, std::size_t = kTuned) = delete;
    // Flushes what is pending; errors are swallowed here, so call flush() to see them.
    ~BufferedWriter();
    BufferedWriter(const BufferedWriter&) = delete;
    BufferedWriter& operator=(const BufferedWriter&) = delete;

    void put(unsigned char c) {
        if (pos_ == cap_) [[unlikely]]
            drain();
        buf_[pos_++] = static_cast<char8_t>(c);
    }
    void write(const void* src, std::size_t n);
    void flush() { drain(); }
    std::size_t capacity() const noexcept { return cap_; }

private:
    void drain();

    const sys::Fd& fd_;
    std::size_t cap_;
    AlignedBuffer storage_;
    // char8_t, unlike unsigned char, may not alias other objects: a store into the buffer then
    // does not force pos_ and cap_ to be reloaded from memory on every put().
    char8_t* buf_;
    std::size_t pos_ = 0;
};

}  // namespace iolab
