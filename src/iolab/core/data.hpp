#pragma once
// Reproducible input data: a file's content is a pure function of (kind, seed, offset), so any
// range, and the reference checksum, can be made without the file.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "iolab/core/names.hpp"

#include "iolab/sys/error.hpp"

namespace iolab {

enum class DataKind { random, text, zeros, compressible };
inline constexpr Named<DataKind> kDataKinds[] = {{DataKind::random, "random"},
                                                 {DataKind::text, "text"},
                                                 {DataKind::zeros, "zeros"},
                                                 {DataKind::compressible, "compressible"}};

struct DataSpec {
    DataKind kind = DataKind::random;
    double ratio = 1;  // for compressible: about how many times smaller it compresses
    std::uint64_t seed = 0x10ab'5eed;
};

// "random", "text", "zeros" or "compressible:R" (R > 1). Throws InputError.
DataSpec parse_data_spec(std::string_view text);
std::string to_string(const DataSpec& spec);

// The splitmix64 mixer: a well-spread 64-bit value from any (seeds, places, orders).
std::uint64_t splitmix64(std::uint64_t x);

// Writes the bytes at [offset, offset + out.size()) of the data stream into out.
void fill(const DataSpec& spec, std::uint64_t offset, std::span<std::byte> out);

}  // namespace iolab
