#include "iolab/core/checksum.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <fstream>
#include <functional>
#include <memory>
#include <new>
#include <sstream>
#include <vector>

#include <xxhash.h>

#include "iolab/core/sink.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace iolab {

namespace {
constexpr std::size_t kChunk = 1 << 20;
}

Hasher::Hasher() : state_(XXH3_createState()) {
    if (!state_) throw std::bad_alloc();
    reset();
}

Hasher::~Hasher() { XXH3_freeState(state_); }

void Hasher::update(const void* p, std::size_t n) {
    XXH3_64bits_update(state_, p, n);
    bytes_ += n;
}

std::uint64_t Hasher::digest() const { return XXH3_64bits_digest(state_); }

void Hasher::reset() {
    XXH3_64bits_reset(state_);
    bytes_ = 0;
}

std::uint64_t checksum(std::span<const std::byte> data) { return XXH3_64bits(data.data(), data.size()); }

void read_blocks(const std::string& path, const std::function<void(const std::byte*, std::size_t)>& f) {
    sys::Fd fd = sys::open(path, O_RDONLY);
    std::vector<std::byte> buf(kChunk);
    for (;;) {
        const std::size_t n = sys::read_some(fd, buf.data(), buf.size());
        if (n == 0) break;
        f(buf.data(), n);
    }
}

void ReferenceDigests::update(const void* p, std::size_t n) {
    hash_.update(p, n);
    fingerprint_.update(p, n);
    sums_.update(p, n);
}

FileDigest ReferenceDigests::digests() const {
    return {hash_.digest(), hash_.bytes(), fingerprint_.digest(), sums_.digest()};
}

FileDigest checksum_file(const std::string& path) {
    Hasher h;
    read_blocks(path, [&](const std::byte* p, std::size_t n) { h.update(p, n); });
    return {h.digest(), h.bytes(), 0, 0};
}

FileDigest checksum_range(const std::string& path, std::uint64_t offset, std::uint64_t length) {
    const sys::Fd fd = sys::open(path, O_RDONLY);
    std::vector<std::byte> buf(kChunk);
    Hasher h;
    for (std::uint64_t left = length; left > 0;) {
        const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), left));
        const std::size_t n = sys::pread_some(fd, buf.data(), want, static_cast<off_t>(offset + (length - left)));
        if (n == 0) break;
        h.update(buf.data(), n);
        left -= n;
    }
    return {h.digest(), h.bytes(), 0, 0};
}

FileDigest reference_digests(const std::string& path) {
    ReferenceDigests d;
    read_blocks(path, [&](const std::byte* p, std::size_t n) { d.update(p, n); });
    return d.digests();
}

std::uint64_t reference_checksum(const DataSpec& spec, std::uint64_t size) {
    std::vector<std::byte> buf(kChunk);
    Hasher h;
    for (std::uint64_t off = 0; off < size;) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, size - off));
        fill(spec, off, std::span(buf.data(), n));
        h.update(buf.data(), n);
        off += n;
    }
    return h.digest();
}

void ByteSums::update(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    std::uint64_t a = s1, c = s2;
    for (std::size_t i = 0; i < n; ++i) {
        a += b[i];
        c += a;
    }
    s1 = a;
    s2 = c;
    count += n;
}

std::uint64_t ByteSums::digest() const {
    std::uint64_t x = s1 * 0x9e3779b97f4a7c15ull ^ (s2 + 0x632be59bd9b4e019ull) ^ (count << 1);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 29);
}

std::uint64_t Sink::touch(const void* p, std::size_t n) {
    // Four independent sums of 8-byte words: the compiler vectorises it, memory bounds it.
    const auto* b = static_cast<const unsigned char*>(p);
    std::uint64_t s[4] = {0, 0, 0, 0};
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; ++k) {
            std::uint64_t v;
            std::memcpy(&v, b + i + 8 * k, 8);
            s[k] += v;
        }
    for (; i < n; ++i) s[0] += b[i];
    return s[0] + s[1] + s[2] + s[3];
}

}  // namespace iolab
