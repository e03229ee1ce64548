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
// Checksum (XXH3-64) and length of a whole file, read through the syscall layer in large blocks.
struct FileDigest {
    std::uint64_t checksum = 0;
    std::uint64_t size = 0;
    std::uint64_t fingerprint = 0;  // the sampled fingerprint (sink.hpp) of the same bytes
    std::uint64_t byte_sums = 0;    // their ByteSums digest (sink.hpp)
};
FileDigest checksum_file(const std::string& path);
// The same for `length` bytes from `offset` (fewer when the file ends before).
FileDigest checksum_range(const std::string& path, std::uint64_t offset, std::uint64_t length);
// The same, with the sampled fingerprint and the byte sums too: the references of a read input.
FileDigest reference_digests(const std::string& path);
// Reads a whole file through the syscall layer in 1 MiB blocks, handing each to f.
void read_blocks(const std::string& path, const std::function<void(const std::byte*, std::size_t)>& f);
// The checksum of the first `size` bytes of a generated data stream, without any file.
std::uint64_t reference_checksum(const DataSpec& spec, std::uint64_t size);

}  // namespace iolab
