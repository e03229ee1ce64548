#pragma once
// Where read strategies put what they read: full mode hashes every byte, sampled mode fingerprints
// one word of every 4 KiB page plus the byte count. docs/harness.md says what each mode proves.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "iolab/core/checksum.hpp"
#include "iolab/core/names.hpp"

namespace iolab {

enum class VerifyMode { sampled, full };
inline constexpr Named<VerifyMode> kVerifyModes[] = {{VerifyMode::sampled, "sampled"}, {VerifyMode::full, "full"}};
inline std::string_view to_string(VerifyMode m) { return name_of(kVerifyModes, m); }

// The sampled fingerprint of a stream, fed in chunks of any size.
class Fingerprint {
public:
    static constexpr std::uint64_t kPage = 4096;

    void update(const void* data, std::size_t n) {
        const auto* p = static_cast<const unsigned char*>(data);
        const std::uint64_t begin = bytes_, end = bytes_ + n;
        // Finish a word begun in an earlier chunk.
        if (pending_ > 0) {
            const std::uint64_t take = std::min<std::uint64_t>(8 - pending_, n);
            std::memcpy(word_ + pending_, p, take);
            pending_ += static_cast<unsigned>(take);
            if (pending_ == 8) add_word();
        }
        for (std::uint64_t page = next_page_; page * kPage < end; page = next_page_) {
            const std::uint64_t at = page * kPage + word_offset(page);
            if (at >= end) break;  // the sampled word of this page is in a later chunk
            ++next_page_;
            if (at < begin) continue;  // begun earlier (handled above)
            const std::uint64_t take = std::min<std::uint64_t>(8, end - at);
            std::memset(word_, 0, sizeof word_);
            std::memcpy(word_, p + (at - begin), take);
            page_ = page;
            pending_ = static_cast<unsigned>(take);
            if (pending_ == 8) add_word();
        }
        bytes_ = end;
    }
    // The fingerprint of everything so far (a word cut short by the end counts as it is).
    std::uint64_t digest() const {
        std::uint64_t acc = sum_;
        if (pending_ > 0) acc += term(page_, word_);
        return mix(acc ^ mix(bytes_ + 0x9e3779b97f4a7c15ull));
    }
    std::uint64_t bytes() const { return bytes_; }
    void reset() { *this = Fingerprint(); }

private:
    // Which word of the page is sampled: varies from page to page.
    static std::uint64_t word_offset(std::uint64_t page) { return ((page * 0x9e3779b1u) >> 7 & 511) * 8; }
    static std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
        x ^= x >> 30;
        x *= 0xbf58476d1ce4e5b9ull;
        x ^= x >> 27;
        x *= 0x94d049bb133111ebull;
        return x ^ (x >> 31);
    }
    static std::uint64_t term(std::uint64_t page, const unsigned char* w) {
        std::uint64_t v;
        std::memcpy(&v, w, 8);
        return mix(v ^ mix(page + 1));
    }
    void add_word() {
        sum_ += term(page_, word_);
        pending_ = 0;
    }

    std::uint64_t bytes_ = 0;
    std::uint64_t next_page_ = 0;  // the first page whose word has not been started
    std::uint64_t sum_ = 0;
    std::uint64_t page_ = 0;  // the page of the word being assembled
    unsigned pending_ = 0;    // bytes of it assembled so far
    unsigned char word_[8] = {};
};

// Position-weighted sums of a byte stream (Fletcher's, without the modulus): s1 adds every
// byte, s2 adds s1 after every byte, so a byte skipped, repeated or moved changes s2. Two adds a
// byte: what a byte-at-a-time reader pays in sampled mode.
struct ByteSums {
    std::uint64_t count = 0;
    std::uint64_t s1 = 0;
    std::uint64_t s2 = 0;
    void update(const void* p, std::size_t n);  // as n calls of add(), computed by blocks
    void add(unsigned char c) {
        s1 += c;
        s2 += s1;
        ++count;
    }
    std::uint64_t digest() const;
};

// Every reference a read's verification may need, computed in one pass: the XXH3 hash, the
// sampled fingerprint and the byte sums (sink.hpp).
class ReferenceDigests {
public:
    void update(const void* p, std::size_t n);
    FileDigest digests() const;

private:
    Hasher hash_;
    Fingerprint fingerprint_;
    ByteSums sums_;
};

class Sink {
public:
    void set_mode(VerifyMode m) { mode_ = m; }
    VerifyMode mode() const { return mode_; }

    // Bytes the reader copied into its own memory (the kernel or a memcpy touched every one).
    void consume(const void* p, std::size_t n) {
        if (mode_ == VerifyMode::full)
            hasher_.update(p, n);
        else
            fingerprint_.update(p, n);
    }
    // Bytes the reader never copied (a mapping scanned in place): in sampled mode every byte is
    // still read once (a vectorised sum), or the run would time page-table work only.
    void consume_in_place(const void* p, std::size_t n) {
        if (mode_ == VerifyMode::sampled) touched_ = touched_ + touch(p, n);
        consume(p, n);
    }
    // The block of a patterned read's operation `index`, read from `offset` (in place, for a
    // mapping). Blocks may come in any order (io_uring completes them so): each adds a term made
    // of the operation's index, its offset and its bytes' digest (XXH3 in full mode, the sampled
    // fingerprint otherwise), and the sum of the terms replaces the stream's digest. A block read
    // from the wrong place, twice, not at all, or by another operation than the pattern's (a
    // pattern ignored) changes the sum.
    void consume_block(std::uint64_t index, std::uint64_t offset, const void* p, std::size_t n, bool in_place = false) {
        if (in_place && mode_ == VerifyMode::sampled) touched_ = touched_ + touch(p, n);
        ops_sum_ += block_term(index, offset, mode_ == VerifyMode::full ? full_digest(p, n) : sampled_digest(p, n));
        ops_bytes_ += n;
        has_ops_ = true;
    }
    // A patterned write's operation `index`, which wrote at `offset`: the same term without the
    // bytes (the output file is checked for them), so that the order is checked too.
    void note_op(std::uint64_t index, std::uint64_t offset) {
        ops_sum_ += block_term(index, offset, 0);
        has_ops_ = true;
    }
    std::uint64_t ops_digest() const { return ops_sum_; }
    static std::uint64_t full_digest(const void* p, std::size_t n) {
        return checksum(std::span(static_cast<const std::byte*>(p), n));
    }
    static std::uint64_t sampled_digest(const void* p, std::size_t n) {
        Fingerprint f;
        f.update(p, n);
        return f.digest();
    }
    static std::uint64_t block_term(std::uint64_t index, std::uint64_t offset, std::uint64_t digest) {
        std::uint64_t x = digest ^ (offset * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull);
        x ^= x >> 29;
        x *= 0x94d049bb133111ebull;
        x ^= index * 0xd6e8feb86659fd93ull + 0x2545f4914f6cdd1dull;
        x ^= x >> 31;
        x *= 0xbf58476d1ce4e5b9ull;
        return x ^ (x >> 29);
    }
    // A byte-at-a-time reader's sums (sampled mode): they replace the fingerprint.
    void consume_sums(const ByteSums& sums) {
        sums_.count += sums.count;
        sums_.s2 += sums.s2 + sums.count * sums_.s1;  // appending: earlier bytes count again
        sums_.s1 += sums.s1;
        has_sums_ = true;
    }
    // A tool that reports only how many bytes it read (dd, fio): the count is all it proves.
    void count_only(std::uint64_t n) {
        counted_ += n;
        count_only_ = true;
    }

    // A reader in another process (the JVM worker) that computed its proof itself, as this sink
    // would have: the CRC-32 of every byte it read (full mode: the worker's runtime has no XXH3)
    // or the sampled fingerprint, with the bytes it read. Its byte sums come by consume_sums.
    void take_crc32(std::uint32_t crc, std::uint64_t n) { take(crc, n, Taken::crc32); }
    void take_fingerprint(std::uint64_t digest, std::uint64_t n) { take(digest, n, Taken::fingerprint); }
    bool has_crc32() const { return taken_ == Taken::crc32; }

    // XXH3-64 of the stream (full mode), or its sampled fingerprint, or its byte sums (or what a
    // reader elsewhere computed of them: CRC-32 in place of XXH3).
    std::uint64_t digest() const {
        if (has_ops_) return ops_sum_;
        if (taken_ != Taken::none) return taken_digest_;
        if (mode_ == VerifyMode::full) return hasher_.digest();
        return has_sums_ ? sums_.digest() : fingerprint_.digest();
    }
    std::uint64_t bytes() const {
        if (count_only_) return counted_;
        if (has_ops_) return ops_bytes_;
        if (taken_ != Taken::none) return taken_bytes_;
        if (mode_ == VerifyMode::full) return hasher_.bytes();
        return has_sums_ ? sums_.count : fingerprint_.bytes();
    }
    bool count_only() const { return count_only_; }
    bool has_sums() const { return has_sums_; }
    void reset() {
        hasher_.reset();
        fingerprint_.reset();
        sums_ = ByteSums{};
        has_sums_ = false;
        counted_ = 0;
        count_only_ = false;
        ops_sum_ = ops_bytes_ = 0;
        has_ops_ = false;
        taken_ = Taken::none;
        taken_digest_ = taken_bytes_ = 0;
    }

private:
    enum class Taken { none, crc32, fingerprint };
    void take(std::uint64_t digest, std::uint64_t n, Taken kind) {
        taken_digest_ = digest;
        taken_bytes_ = n;
        taken_ = kind;
    }

    static std::uint64_t touch(const void* p, std::size_t n);

    VerifyMode mode_ = VerifyMode::full;
    Hasher hasher_;
    Fingerprint fingerprint_;
    ByteSums sums_;
    bool has_sums_ = false;
    std::uint64_t counted_ = 0;
    bool count_only_ = false;
    std::uint64_t ops_sum_ = 0, ops_bytes_ = 0;
    bool has_ops_ = false;
    Taken taken_ = Taken::none;
    std::uint64_t taken_digest_ = 0, taken_bytes_ = 0;
    volatile std::uint64_t touched_ = 0;
};

// What a byte-at-a-time reader does with each byte. Full mode: collects bytes into a block and
// hands full blocks to the sink's hash (one store a byte). Sampled mode: two adds a byte into
// position-weighted sums (ByteSums), kept in registers by the caller's loop.
class ByteStager {
public:
    explicit ByteStager(Sink& sink) : sink_(sink), full_(sink.mode() == VerifyMode::full) {}
    ~ByteStager() = default;
    // Runs `next` (returning the next byte, or -1 at the end) to the end of the stream.
    template <class Next>
    void drain(Next&& next) {
        if (full_) {
            for (int c; (c = next()) >= 0;) put(static_cast<unsigned char>(c));
            flush();
            return;
        }
        std::uint64_t s1 = 0, s2 = 0, count = 0;
        for (int c; (c = next()) >= 0; ++count) {
            s1 += static_cast<unsigned>(c);
            s2 += s1;
        }
        sink_.consume_sums(ByteSums{count, s1, s2});
    }

private:
    void put(unsigned char c) {
        buf_[n_++] = static_cast<char8_t>(c);
        if (n_ == sizeof buf_) [[unlikely]]
            flush();
    }
    void flush() {
        sink_.consume(buf_, n_);
        n_ = 0;
    }

    Sink& sink_;
    bool full_;
    std::size_t n_ = 0;
    // char8_t cannot alias n_ or a reader's state, so a store does not force their reload.
    char8_t buf_[64 * 1024];
};

}  // namespace iolab
