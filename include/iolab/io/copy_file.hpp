#pragma once
// iolab::io's copy_file (iolab's strategy copy.auto): reflink, else copy_file_range, else
// sendfile, else a read/write loop; copies to end of file and keeps holes (as Rust's
// std::fs::copy, which also tries copy_file_range first). docs/design.md says when it moves on.
//
//     iolab::copy_file("big.iso", "backup/big.iso");                 // refuses to replace
//     iolab::copy_file("a", "b", {.overwrite = true});                // replaces b atomically
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "iolab/io/syscalls.hpp"
#include "iolab/io/export.hpp"

namespace iolab {

struct Profile;

struct IOLAB_IO_API CopyOptions {
    bool overwrite = false;        // replace an existing destination: written to a temporary file,
                                   // fsync'ed, renamed over it (a crash leaves one or the other)
    bool keep_holes = true;        // copy only the data extents of a sparse source
    std::size_t buffer = 1 << 20;  // for the read/write fallback
    std::size_t chunk = 1u << 30;  // bytes asked of one copy_file_range or sendfile call
    // Where `iolab tune` found another method (and size per call) faster for files of this size on
    // this filesystem, start with it (after a reflink, which is instant where it works):
    // nullptr: the process's profile(); &no_profile(): never.
    const Profile* profile = nullptr;
};

// The ways copy_file moves data, in the order it tries them.
enum class CopyMethod { reflink, copy_file_range, sendfile, read_write };
IOLAB_IO_API std::string_view to_string(CopyMethod m);

struct IOLAB_IO_API CopyResult {
    std::uint64_t bytes = 0;          // bytes of data copied (holes excluded)
    std::vector<CopyMethod> methods;  // every method that moved data, in order
};

// Copies the file src to dst, which gets src's permission bits less the umask (as cp without -p:
// never setuid or setgid). Refuses to copy a file onto itself; never truncates an
// existing destination unless options.overwrite; removes its own partial destination on
// failure. Throws IoError.
IOLAB_IO_API CopyResult copy_file(const std::string& src, const std::string& dst, const CopyOptions& options = {});

// The engine: copies everything readable from in (from offset 0) into out, which is empty.
IOLAB_IO_API CopyResult copy_contents(const sys::Fd& in, const sys::Fd& out, const CopyOptions& options = {});

}  // namespace iolab
