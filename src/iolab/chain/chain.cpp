#include "iolab/chain/chain.hpp"

#include <fcntl.h>
#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "iolab/core/units.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

ChainError::ChainError(std::string_view chain, std::string why)
    : InputError(one_line(fmt::format("invalid chain '{}': {}", chain, why))), why_(one_line(why)) {}

namespace {

[[noreturn]] void bad_chain(std::string_view chain, std::string_view why) { throw ChainError(chain, std::string(why)); }

int parse_level(std::string_view chain, std::string_view layer, std::string_view arg, int lo, int hi) {
    int v = 0;
    const auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), v);
    if (ec != std::errc() || end != arg.data() + arg.size() || v < lo || v > hi)
        bad_chain(chain, fmt::format("level '{}' of {} is not a whole number from {} to {}", arg, layer, lo, hi));
    return v;
}

// ---- layers -------------------------------------------------------------------------------

class FileLayer : public Layer {
public:
    explicit FileLayer(const sys::Fd& fd) : fd_(fd) {}
    void write(const std::byte* p, std::size_t n) override { sys::write_all(fd_, p, n); }
    void finish() override {}

private:
    const sys::Fd& fd_;
};

class BufferLayer : public Layer {
public:
    BufferLayer(std::size_t size, std::unique_ptr<Layer> next) : buf_(size), next_(std::move(next)) {}
    void put(std::byte b) override {
        if (pos_ == buf_.size()) drain();
        buf_[pos_++] = b;
    }
    void write(const std::byte* p, std::size_t n) override {
        if (n >= buf_.size()) {  // as BufferedOutputStream: a large write bypasses the buffer
            drain();
            next_->write(p, n);
            return;
        }
        if (n > buf_.size() - pos_) drain();
        std::memcpy(buf_.data() + pos_, p, n);
        pos_ += n;
    }
    void finish() override {
        drain();
        next_->finish();
    }

private:
    void drain() {
        if (pos_ > 0) next_->write(buf_.data(), pos_);
        pos_ = 0;
    }
    std::vector<std::byte> buf_;
    std::size_t pos_ = 0;
    std::unique_ptr<Layer> next_;
};

// zlib deflate with a 512-byte output buffer, the default of DeflaterOutputStream.
class DeflateLayer : public Layer {
public:
    DeflateLayer(int level, std::unique_ptr<Layer> next) : next_(std::move(next)) {
        if (deflateInit(&z_, level) != Z_OK) throw std::runtime_error("zlib: deflateInit failed");
    }
    ~DeflateLayer() override { deflateEnd(&z_); }
    void write(const std::byte* p, std::size_t n) override {
        z_.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(p));
        z_.avail_in = static_cast<uInt>(n);
        while (z_.avail_in > 0) run(Z_NO_FLUSH);
    }
    void finish() override {
        while (run(Z_FINISH) != Z_STREAM_END) {
        }
        next_->finish();
    }

private:
    int run(int flush) {
        unsigned char out[512];
        z_.next_out = out;
        z_.avail_out = sizeof out;
        const int r = deflate(&z_, flush);
        if (r == Z_STREAM_ERROR) throw std::runtime_error("zlib: deflate failed");
        const std::size_t produced = sizeof out - z_.avail_out;
        if (produced > 0) next_->write(reinterpret_cast<std::byte*>(out), produced);
        return r;
    }
    z_stream z_{};
    std::unique_ptr<Layer> next_;
};

class ZstdLayer : public Layer {
public:
    ZstdLayer(int level, std::unique_ptr<Layer> next)
        : cctx_(ZSTD_createCCtx()), out_(ZSTD_CStreamOutSize()), next_(std::move(next)) {
        if (!cctx_) throw std::bad_alloc();
        ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level);
    }
    ~ZstdLayer() override { ZSTD_freeCCtx(cctx_); }
    void write(const std::byte* p, std::size_t n) override {
        ZSTD_inBuffer in{p, n, 0};
        while (in.pos < in.size) run(in, ZSTD_e_continue);
    }
    void finish() override {
        ZSTD_inBuffer in{nullptr, 0, 0};
        while (run(in, ZSTD_e_end) != 0) {
        }
        next_->finish();
    }

private:
    std::size_t run(ZSTD_inBuffer& in, ZSTD_EndDirective mode) {
        ZSTD_outBuffer out{out_.data(), out_.size(), 0};
        const std::size_t left = ZSTD_compressStream2(cctx_, &out, &in, mode);
        if (ZSTD_isError(left)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(left));
        if (out.pos > 0) next_->write(out_.data(), out.pos);
        return left;
    }
    ZSTD_CCtx* cctx_;
    std::vector<std::byte> out_;
    std::unique_ptr<Layer> next_;
};

class Lz4Layer : public Layer {
public:
    Lz4Layer(int level, std::unique_ptr<Layer> next) : next_(std::move(next)) {
        if (LZ4F_isError(LZ4F_createCompressionContext(&ctx_, LZ4F_VERSION))) throw std::bad_alloc();
        prefs_.compressionLevel = level;
        out_.resize(LZ4F_compressBound(kPiece, &prefs_) + LZ4F_HEADER_SIZE_MAX);
        emit(LZ4F_compressBegin(ctx_, out_.data(), out_.size(), &prefs_));
    }
    ~Lz4Layer() override { LZ4F_freeCompressionContext(ctx_); }
    void write(const std::byte* p, std::size_t n) override {
        for (std::size_t off = 0; off < n; off += kPiece) {
            const std::size_t k = std::min(kPiece, n - off);
            emit(LZ4F_compressUpdate(ctx_, out_.data(), out_.size(), p + off, k, nullptr));
        }
    }
    void finish() override {
        emit(LZ4F_compressEnd(ctx_, out_.data(), out_.size(), nullptr));
        next_->finish();
    }

private:
    static constexpr std::size_t kPiece = 64 * 1024;
    void emit(std::size_t r) {
        if (LZ4F_isError(r)) throw std::runtime_error(std::string("lz4: ") + LZ4F_getErrorName(r));
        if (r > 0) next_->write(out_.data(), r);
    }
    LZ4F_cctx* ctx_ = nullptr;
    LZ4F_preferences_t prefs_{};
    std::vector<std::byte> out_;
    std::unique_ptr<Layer> next_;
};

// ---- decoders for verification ------------------------------------------------------------

std::vector<std::byte> inflate_all(const std::vector<std::byte>& in) {
    z_stream z{};
    if (inflateInit(&z) != Z_OK) throw std::runtime_error("zlib: inflateInit failed");
    std::vector<std::byte> out;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    int r = Z_OK;
    while (r != Z_STREAM_END) {
        const std::size_t had = out.size();
        out.resize(had + 65536);
        z.next_out = reinterpret_cast<Bytef*>(out.data() + had);
        z.avail_out = 65536;
        r = inflate(&z, Z_NO_FLUSH);
        out.resize(had + 65536 - z.avail_out);
        if (r != Z_OK && r != Z_STREAM_END) {
            inflateEnd(&z);
            throw std::runtime_error("zlib: the output does not inflate");
        }
    }
    inflateEnd(&z);
    return out;
}

std::vector<std::byte> unzstd_all(const std::vector<std::byte>& in) {
    ZSTD_DCtx* d = ZSTD_createDCtx();
    std::vector<std::byte> out;
    ZSTD_inBuffer ib{in.data(), in.size(), 0};
    std::size_t r = 1;
    while (ib.pos < ib.size || r != 0) {
        const std::size_t had = out.size();
        out.resize(had + 65536);
        ZSTD_outBuffer ob{out.data() + had, 65536, 0};
        r = ZSTD_decompressStream(d, &ob, &ib);
        out.resize(had + ob.pos);
        if (ZSTD_isError(r)) {
            ZSTD_freeDCtx(d);
            throw std::runtime_error("zstd: the output does not decompress");
        }
        if (ob.pos == 0 && ib.pos == ib.size && r != 0) {
            ZSTD_freeDCtx(d);
            throw std::runtime_error("zstd: the output is truncated");
        }
    }
    ZSTD_freeDCtx(d);
    return out;
}

std::vector<std::byte> unlz4_all(const std::vector<std::byte>& in) {
    LZ4F_dctx* d = nullptr;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION))) throw std::bad_alloc();
    std::vector<std::byte> out;
    std::size_t pos = 0, hint = 1;
    while (hint != 0) {
        const std::size_t had = out.size();
        out.resize(had + 65536);
        std::size_t out_size = 65536, in_size = in.size() - pos;
        hint = LZ4F_decompress(d, out.data() + had, &out_size, in.data() + pos, &in_size, nullptr);
        out.resize(had + out_size);
        pos += in_size;
        if (LZ4F_isError(hint) || (in_size == 0 && out_size == 0 && hint != 0)) {
            LZ4F_freeDecompressionContext(d);
            throw std::runtime_error("lz4: the output does not decompress");
        }
    }
    LZ4F_freeDecompressionContext(d);
    return out;
}

}  // namespace

std::vector<LayerSpec> parse_chain(std::string_view text) {
    std::vector<LayerSpec> chain;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('>', start), text.size());
        const std::string_view item = text.substr(start, end - start);
        const std::size_t colon = item.find(':');
        const std::string_view name = item.substr(0, colon);
        const std::string_view arg = colon == std::string_view::npos ? std::string_view() : item.substr(colon + 1);
        const bool has_arg = colon != std::string_view::npos;
        LayerSpec l;
        if (name == "buffer") {
            l.kind = LayerSpec::Kind::buffer;
            if (has_arg) {
                try {
                    l.size = parse_size(arg);
                } catch (const InputError&) {
                    bad_chain(text, fmt::format("buffer size '{}' is not a size such as 64K", arg));
                }
                if (l.size == 0) bad_chain(text, "a buffer needs at least 1 byte");
                // As every buffer of iolab's (docs/safety.md).
                if (l.size > (1ull << 30)) bad_chain(text, fmt::format("buffer '{}' is over the limit of 1G", arg));
            }
        } else if (name == "deflate") {
            l.kind = LayerSpec::Kind::deflate;
            l.level = has_arg ? parse_level(text, name, arg, 0, 9) : 6;
        } else if (name == "zstd") {
            l.kind = LayerSpec::Kind::zstd;
            l.level = has_arg ? parse_level(text, name, arg, 1, ZSTD_maxCLevel()) : 3;
        } else if (name == "lz4") {
            l.kind = LayerSpec::Kind::lz4;
            l.level = has_arg ? parse_level(text, name, arg, 0, 12) : 0;
        } else if (name == "file") {
            if (has_arg) bad_chain(text, "file takes no argument");
            l.kind = LayerSpec::Kind::file;
        } else {
            bad_chain(text, fmt::format("unknown layer '{}'; expected buffer[:SIZE], deflate[:LEVEL], "
                                        "zstd[:LEVEL], lz4[:LEVEL] or file",
                                        name));
        }
        chain.push_back(l);
        start = end + 1;
    }
    if (chain.empty() || chain.back().kind != LayerSpec::Kind::file) bad_chain(text, "a chain must end in 'file'");
    for (std::size_t i = 0; i + 1 < chain.size(); ++i)
        if (chain[i].kind == LayerSpec::Kind::file) bad_chain(text, "'file' must be the last layer");
    return chain;
}

std::string describe(const std::vector<LayerSpec>& chain) {
    std::vector<std::string> parts;
    for (const auto& l : chain) {
        switch (l.kind) {
            case LayerSpec::Kind::buffer: parts.push_back("buffer:" + format_compact(l.size)); break;
            case LayerSpec::Kind::deflate: parts.push_back(fmt::format("deflate:{}", l.level)); break;
            case LayerSpec::Kind::zstd: parts.push_back(fmt::format("zstd:{}", l.level)); break;
            case LayerSpec::Kind::lz4: parts.push_back(fmt::format("lz4:{}", l.level)); break;
            case LayerSpec::Kind::file: parts.push_back("file"); break;
        }
    }
    return fmt::format("{}", fmt::join(parts, ">"));
}

std::unique_ptr<Layer> build_chain(const std::vector<LayerSpec>& chain, const sys::Fd& out) {
    std::unique_ptr<Layer> next;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        switch (it->kind) {
            case LayerSpec::Kind::file: next = std::make_unique<FileLayer>(out); break;
            case LayerSpec::Kind::buffer: next = std::make_unique<BufferLayer>(it->size, std::move(next)); break;
            case LayerSpec::Kind::deflate: next = std::make_unique<DeflateLayer>(it->level, std::move(next)); break;
            case LayerSpec::Kind::zstd: next = std::make_unique<ZstdLayer>(it->level, std::move(next)); break;
            case LayerSpec::Kind::lz4: next = std::make_unique<Lz4Layer>(it->level, std::move(next)); break;
        }
    }
    return next;
}

FileDigest decode_chain_file(const std::vector<LayerSpec>& chain, const std::string& path) {
    const sys::Fd fd = sys::open(path, O_RDONLY);
    std::vector<std::byte> data(sys::file_size(fd));
    data.resize(sys::read_full(fd, data.data(), data.size()));
    // The file holds the innermost compressor's output: undo the compressors from the file
    // outwards.
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        switch (it->kind) {
            case LayerSpec::Kind::deflate: data = inflate_all(data); break;
            case LayerSpec::Kind::zstd: data = unzstd_all(data); break;
            case LayerSpec::Kind::lz4: data = unlz4_all(data); break;
            default: break;
        }
    }
    return {checksum(data), data.size()};
}

}  // namespace iolab
