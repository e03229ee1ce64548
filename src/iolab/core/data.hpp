#pragma once
// Reproducible input data. The content of a file is a pure function of (kind, seed, offset):
// each 64 KiB block is filled from a PRNG seeded by the block's index, so any range can be
// generated on its own, fast (8 bytes per PRNG step), and the reference checksum of a file
// can be computed without the file.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "iolab/sys/error.hpp"

namespace iolab {

enum class DataKind { random, text, zeros, compressible };

struct DataSpec {
    DataKind kind = DataKind::random;
    double ratio = 1;  // for compressible: about how many times smaller it compresses
    std::uint64_t seed = 0x10ab'5eed;
};

// "random", "text", "zeros" or "compressible:R" (R > 1). Throws InputError.
DataSpec parse_data_spec(std::string_view text);
std::string to_string(const DataSpec& spec);

// Writes the bytes at [offset, offset + out.size()) of the data stream into out.
void fill(const DataSpec& spec, std::uint64_t offset, std::span<std::byte> out);

}  // namespace iolab
