#include "iolab/core/data.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "iolab/core/units.hpp"

namespace iolab {

namespace {

constexpr std::size_t kBlock = 64 * 1024;
// Compressible data: in every 4 KiB unit the first 4096/R bytes are random, the rest zeros
// (the same shape fio's buffer_compress_percentage produces).
constexpr std::size_t kUnit = 4096;
constexpr std::size_t kLine = 72;  // text: 71 printable characters then '\n'

// xoshiro256+ (Blackman & Vigna): fast, and good enough for bytes that must not compress.
struct Xoshiro {
    std::array<std::uint64_t, 4> s;
    explicit Xoshiro(std::uint64_t seed) {
        for (auto& v : s) v = seed = splitmix64(seed);
    }
    std::uint64_t next() {
        const std::uint64_t r = s[0] + s[3];
        const std::uint64_t t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = (s[3] << 45) | (s[3] >> 19);
        return r;
    }
};

void random_bytes(Xoshiro& rng, std::byte* p, std::size_t n) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const std::uint64_t v = rng.next();
        std::memcpy(p + i, &v, 8);
    }
    if (i < n) {
        const std::uint64_t v = rng.next();
        std::memcpy(p + i, &v, n - i);
    }
}

// One whole block of the stream (block index b) into out (kBlock bytes).
void fill_block(const DataSpec& spec, std::uint64_t b, std::byte* out) {
    Xoshiro rng(spec.seed ^ splitmix64(b));
    switch (spec.kind) {
        case DataKind::zeros: std::memset(out, 0, kBlock); break;
        case DataKind::random: random_bytes(rng, out, kBlock); break;
        case DataKind::compressible: {
            const auto live =
                std::clamp<std::size_t>(static_cast<std::size_t>(static_cast<double>(kUnit) / spec.ratio), 1, kUnit);
            for (std::size_t u = 0; u < kBlock; u += kUnit) {
                random_bytes(rng, out + u, live);
                std::memset(out + u + live, 0, kUnit - live);
            }
            break;
        }
        case DataKind::text: {
            static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .";
            const std::uint64_t base = b * kBlock;
            std::uint64_t bits = 0;
            int left = 0;
            for (std::size_t i = 0; i < kBlock; ++i) {
                if ((base + i) % kLine == kLine - 1) {
                    out[i] = std::byte{'\n'};
                    continue;
                }
                if (left == 0) {
                    bits = rng.next();
                    left = 10;
                }
                out[i] = static_cast<std::byte>(alphabet[bits & 63]);
                bits >>= 6;
                --left;
            }
            break;
        }
    }
}

}  // namespace

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

DataSpec parse_data_spec(std::string_view text) {
    DataSpec spec;
    constexpr std::string_view prefix = "compressible:";
    if (const auto kind = value_of(kDataKinds, text); kind && *kind != DataKind::compressible) {
        spec.kind = *kind;
        return spec;
    }
    if (text.starts_with(prefix)) {
        const std::string_view num = text.substr(prefix.size());
        double r = 0;
        const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), r);
        if (ec == std::errc() && end == num.data() + num.size() && r >= 1 && r <= 4096) {
            spec.kind = DataKind::compressible;
            spec.ratio = r;
            return spec;
        }
    }
    throw InputError(one_line(fmt::format(
        "invalid data kind '{}': expected random, text, zeros or compressible:R with 1 <= R <= 4096", text)));
}

std::string to_string(const DataSpec& spec) {
    if (spec.kind == DataKind::compressible) return fmt::format("compressible:{:g}", spec.ratio);
    return std::string(name_of(kDataKinds, spec.kind));
}

void fill(const DataSpec& spec, std::uint64_t offset, std::span<std::byte> out) {
    std::byte* p = out.data();
    std::size_t left = out.size();
    thread_local std::array<std::byte, kBlock> partial;
    while (left > 0) {
        const std::uint64_t b = offset / kBlock;
        const std::size_t in_block = static_cast<std::size_t>(offset % kBlock);
        const std::size_t n = std::min(left, kBlock - in_block);
        if (n == kBlock) {
            fill_block(spec, b, p);
        } else {
            fill_block(spec, b, partial.data());
            std::memcpy(p, partial.data() + in_block, n);
        }
        p += n;
        offset += n;
        left -= n;
    }
}

}  // namespace iolab
