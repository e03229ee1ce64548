#pragma once
// Where a patterned job's operations go: `sequential` (block after block), `random` (every block
// once per pass, in an order drawn from the seed, as fio's random map does) or `strided:S` (a
// block every S bytes; each pass moves on by one block). Offsets are computed, never stored, so
// any number of operations costs no memory.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "iolab/core/names.hpp"

namespace iolab {

enum class PatternKind { sequential, random, strided };
inline constexpr Named<PatternKind> kPatternKinds[] = {
    {PatternKind::sequential, "sequential"}, {PatternKind::random, "random"}, {PatternKind::strided, "strided"}};

struct Pattern {
    PatternKind kind = PatternKind::sequential;
    std::uint64_t stride = 0;  // strided: bytes from one operation's start to the next's
    bool operator==(const Pattern&) const = default;
};

// "sequential", "random" or "strided:SIZE" (SIZE at least 1 byte). Throws InputError.
Pattern parse_pattern(std::string_view text);
std::string to_string(const Pattern& p);

class Offsets {
public:
    // Operations of `block` bytes within the first `span` bytes of a file (span >= block).
    // strided: the stride is rounded up to whole blocks.
    Offsets(const Pattern& p, std::uint64_t span, std::size_t block, std::uint64_t seed);
    // The offset of operation i (any i: past the last block, the pattern starts another pass).
    std::uint64_t operator()(std::uint64_t i) const;
    std::uint64_t blocks() const { return blocks_; }

private:
    std::uint64_t permute(std::uint64_t x, std::uint64_t pass) const;

    Pattern pattern_;
    std::size_t block_;
    std::uint64_t blocks_;
    std::uint64_t stride_blocks_ = 1;
    std::uint64_t seed_;
    unsigned half_bits_ = 1;  // random: the permutation works on 2 * half_bits_ bits
};

}  // namespace iolab
