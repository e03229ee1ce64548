// The registration list of the kinds whose work is not one file.
#include "iolab/strategies/kind.hpp"

#include <fmt/format.h>

namespace iolab {

std::string Verdict::describe() const {
    if (!tree.empty()) return tree;
    if (count_only) return fmt::format("the tool reported {} bytes, expected {}", actual_bytes, expected_bytes);
    if (crc32)
        return fmt::format("CRC-32 {:#010x}, expected {:#010x} ({} bytes, expected {})", actual, expected, actual_bytes,
                           expected_bytes);
    return fmt::format("{} {:#018x}, expected {:#018x} ({} bytes, expected {})",
                       mode == VerifyMode::full ? "checksum" : "sampled fingerprint", actual, expected, actual_bytes,
                       expected_bytes);
}

const KindModule* kind_module(Family f) {
    switch (shape_of(f)) {
        case Shape::tree: return &files_kind();
        case Shape::set: return &replace_kind();
        case Shape::file:
        case Shape::records: return nullptr;
    }
    return nullptr;
}

}  // namespace iolab
