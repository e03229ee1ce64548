#include "iolab/core/pattern.hpp"

#include <algorithm>
#include <bit>
#include <numeric>

#include <fmt/format.h>

#include "iolab/core/data.hpp"
#include "iolab/core/units.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

Pattern parse_pattern(std::string_view text) {
    const std::string_view expected = "sequential, random or strided:SIZE (such as strided:1M)";
    Pattern p;
    const auto colon = text.find(':');
    const std::string_view name = text.substr(0, colon);
    const auto kind = value_of(kPatternKinds, name);
    if (!kind) throw InputError(one_line(fmt::format("pattern '{}' is not {}", text, expected)));
    p.kind = *kind;
    if (p.kind == PatternKind::strided) {
        if (colon == std::string_view::npos)
            throw InputError(one_line(fmt::format("pattern '{}' has no stride: expected {}", text, expected)));
        try {
            p.stride = parse_size(text.substr(colon + 1));
        } catch (const InputError&) {
            throw InputError(one_line(fmt::format("pattern '{}' has no stride: expected {}", text, expected)));
        }
        if (p.stride == 0)
            throw InputError(one_line(fmt::format("pattern '{}': a stride of 0: expected {}", text, expected)));
    } else if (colon != std::string_view::npos) {
        throw InputError(one_line(fmt::format("pattern '{}' is not {}", text, expected)));
    }
    return p;
}

std::string to_string(const Pattern& p) {
    if (p.kind == PatternKind::strided) return "strided:" + format_compact(p.stride);
    return std::string(name_of(kPatternKinds, p.kind));
}

Offsets::Offsets(const Pattern& p, std::uint64_t span, std::size_t block, std::uint64_t seed)
    : pattern_(p),
      block_(std::max<std::size_t>(block, 1)),
      blocks_(std::max<std::uint64_t>(span / block_, 1)),
      seed_(splitmix64(seed)) {
    if (p.kind == PatternKind::strided)
        stride_blocks_ = std::clamp<std::uint64_t>((p.stride + block_ - 1) / block_, 1, blocks_);
    // A Feistel network permutes [0, 4^half_bits_); values past the last block walk the cycle
    // on, which takes fewer than four steps on average.
    const unsigned bits = static_cast<unsigned>(std::bit_width(blocks_ - 1));
    half_bits_ = std::max(1u, (bits + 1) / 2);
}

std::uint64_t Offsets::permute(std::uint64_t x, std::uint64_t pass) const {
    const std::uint64_t mask = (std::uint64_t{1} << half_bits_) - 1;
    do {
        std::uint64_t l = x >> half_bits_, r = x & mask;
        for (std::uint64_t round = 0; round < 4; ++round) {
            const std::uint64_t f = splitmix64(r ^ splitmix64(seed_ + pass * 4 + round)) & mask;
            const std::uint64_t t = l ^ f;
            l = r;
            r = t;
        }
        x = (l << half_bits_) | r;
    } while (x >= blocks_);
    return x;
}

std::uint64_t Offsets::operator()(std::uint64_t i) const {
    std::uint64_t b = 0;
    switch (pattern_.kind) {
        case PatternKind::sequential: b = i % blocks_; break;
        case PatternKind::random: b = permute(i % blocks_, i / blocks_); break;
        case PatternKind::strided: {
            // The blocks 0, s, 2s, ... (mod n) form g = gcd(s, n) cycles of n / g blocks each; a
            // pass goes round one cycle and the next pass starts one block further, so every
            // block is read once in g passes.
            const std::uint64_t g = std::gcd(stride_blocks_, blocks_), per = blocks_ / g;
            const unsigned __int128 at = static_cast<unsigned __int128>(i % per) * stride_blocks_;
            b = static_cast<std::uint64_t>((at + (i / per) % g) % blocks_);
            break;
        }
    }
    return b * block_;
}

}  // namespace iolab
