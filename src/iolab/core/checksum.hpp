#pragma once
// Checksums that prove a strategy did the whole job: XXH3-64 of what was read, or of the
// file that was written or copied.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "iolab/core/data.hpp"

struct XXH3_state_s;

#include <fmt/format.h>

#include "iolab/core/units.hpp"

namespace iolab {

// Streaming XXH3-64.
class Hasher {
public:
    Hasher();
    ~Hasher();
    Hasher(const Hasher&) = delete;
    Hasher& operator=(const Hasher&) = delete;

    void update(const void* p, std::size_t n);
    std::uint64_t digest() const;
    std::uint64_t bytes() const { return bytes_; }
    void reset();

private:
    XXH3_state_s* state_;
    std::uint64_t bytes_ = 0;
};

std::uint64_t checksum(std::span<const std::byte> data);
// A whole (small) text file: a suite, a result. nullopt when it cannot be read, is not a
// regular file (a FIFO or a device is never opened for reading: it could block or never end),
// or holds more than `limit` bytes; `why` then says which.
inline constexpr std::uint64_t kMaxTextFile = 64ull << 20;
std::optional<std::string> read_text_file(const std::string& path, std::string* why = nullptr,
                                          std::uint64_t limit = kMaxTextFile);
// The same, or an Error "PATH: cannot read WHAT: WHY" (one line).
template <class Error>
std::string read_text_file_or_throw(const std::string& path, std::string_view what) {
    std::string why;
    auto text = read_text_file(path, &why);
    if (!text) throw Error(one_line(fmt::format("{}: cannot read {}: {}", path, what, why)));
    return std::move(*text);
}
// Checksum (XXH3-64) and length of a whole file, read through the syscall layer in large blocks.
struct FileDigest {
    std::uint64_t checksum = 0;
    std::uint64_t size = 0;
    std::uint64_t fingerprint = 0;  // the sampled fingerprint (sink.hpp) of the same bytes
    std::uint64_t byte_sums = 0;    // their ByteSums digest (sink.hpp)
};
FileDigest checksum_file(const std::string& path);
// The same, with the sampled fingerprint and the byte sums too: the references of a read input.
FileDigest reference_digests(const std::string& path);
// Reads a whole file through the syscall layer in 1 MiB blocks, handing each to f.
void read_blocks(const std::string& path, const std::function<void(const std::byte*, std::size_t)>& f);
// The checksum of the first `size` bytes of a generated data stream, without any file.
std::uint64_t reference_checksum(const DataSpec& spec, std::uint64_t size);

}  // namespace iolab
