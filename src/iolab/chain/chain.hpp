#pragma once
// Output chains: layers named outermost first, ending in the file ("buffer:64K>deflate:6>file").
// A compressor passes its output on as soon as it has some, so the order of layers matters.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "iolab/core/checksum.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace iolab {

// A malformed chain: what() is "invalid chain 'TEXT': WHY", why() just the reason.
class ChainError : public InputError {
public:
    ChainError(std::string_view chain, std::string why);
    const std::string& why() const noexcept { return why_; }

private:
    std::string why_;
};

struct LayerSpec {
    enum class Kind { buffer, deflate, zstd, lz4, file } kind = Kind::file;
    std::size_t size = 8192;  // buffer: bytes (BufferedOutputStream's default, 8 KiB)
    int level = 0;            // compressors: deflate 0..9 (6), zstd 1..22 (3), lz4 0..12 (0)
};

// Throws InputError naming the chain and the bad layer or level.
std::vector<LayerSpec> parse_chain(std::string_view text);
std::string describe(const std::vector<LayerSpec>& chain);  // canonical text, e.g. buffer:8K>deflate:6>file

class Layer {
public:
    virtual ~Layer() = default;
    virtual void write(const std::byte* p, std::size_t n) = 0;
    virtual void put(std::byte b) { write(&b, 1); }
    // Flushes everything still held, through to the file.
    virtual void finish() = 0;
};

// The chain as layers writing to out. The returned layer is the outermost.
std::unique_ptr<Layer> build_chain(const std::vector<LayerSpec>& chain, const sys::Fd& out);

// The checksum and size of what a file written through the chain decodes to.
FileDigest decode_chain_file(const std::vector<LayerSpec>& chain, const std::string& path);

}  // namespace iolab
