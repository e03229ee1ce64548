#pragma once
// iolab::io: a whole file mapped read-only, as LLFIO's mapped_file_handle or Boost.Iostreams'
// mapped_file_source do, with the kernel told how it will be read (madvise).
//
//     iolab::MappedFile f("index.bin", iolab::MappedFile::Access::random);
//     std::span<const std::byte> bytes = f.bytes();
//
// The mapping is MAP_SHARED and PROT_READ. If another process truncates the file while it is
// mapped, touching the lost pages raises SIGBUS: map only files nobody shrinks meanwhile.
#include <cstddef>
#include <span>
#include <string>

#include "iolab/io/syscalls.hpp"
#include "iolab/io/export.hpp"

namespace iolab {

class IOLAB_IO_API MappedFile {
public:
    // sequential: read ahead aggressively and drop pages behind (MADV_SEQUENTIAL); random: no read
    // ahead (MADV_RANDOM); normal: the kernel's default; willneed: start reading it all now.
    enum class Access { normal, sequential, random, willneed };

    // Maps the whole of path (an empty file maps to no bytes). Throws IoError.
    explicit MappedFile(const std::string& path, Access access = Access::sequential);

    std::span<const std::byte> bytes() const noexcept { return {map_.data(), map_.size()}; }
    std::size_t size() const noexcept { return map_.size(); }
    const std::string& path() const noexcept { return fd_.path(); }

private:
    sys::Fd fd_;
    sys::Mapping map_;
};

}  // namespace iolab
