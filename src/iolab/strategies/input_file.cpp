// A generated input file: written once, in 1 MiB blocks, with the digests of its bytes.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "iolab/core/checksum.hpp"
#include "iolab/core/sink.hpp"
#include "iolab/strategies/kind.hpp"
#include "iolab/sys/io.hpp"

namespace iolab {

FileDigest write_input_file(const std::string& path, const DataSpec& spec, std::uint64_t size) {
    sys::Fd fd = sys::open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    try {
        std::vector<std::byte> buf(1 << 20);
        ReferenceDigests d;
        for (std::uint64_t off = 0; off < size;) {
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size - off));
            fill(spec, off, std::span(buf.data(), n));
            d.update(buf.data(), n);
            sys::write_all(fd, buf.data(), n);
            off += n;
        }
        return d.digests();
    } catch (...) {
        // Half an input is no input: removed before the error is told, so that the next case
        // that needs it makes it anew (and fails for the same reason, not "File exists").
        fd = sys::Fd();
        ::unlink(path.c_str());
        throw;
    }
}

}  // namespace iolab
