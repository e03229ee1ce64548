#pragma once
// iolab::io: whole files in one call.
//
//     std::vector<std::byte> data = iolab::read_file("config.bin");
//     iolab::write_file_atomic("state.json", text);   // all of it, or the old file untouched
//
// Errors throw IoError naming the call and the path.
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>
#include "iolab/io/export.hpp"

namespace iolab {

struct Profile;

// The whole file in memory. By default one read(2) into a buffer of the size fstat gives (the
// fewest copies and calls for a cached file); where `iolab tune` measured another way faster for
// files of this size on this filesystem (profile.hpp), reads of its buffer size. Never a mapping:
// a file truncated meanwhile would kill the process with SIGBUS. Then reads until end of file, so a file that grows, or that reports no size
// (/proc, a pipe), is read whole too. A file at least as large as this machine's memory is refused
// (EFBIG) before any memory is taken, and one that grows to that size (or a device without end)
// once it does.
IOLAB_IO_API std::vector<std::byte> read_file(const std::string& path);
// The same with the given profile's choice (no_profile(): never tuned).
IOLAB_IO_API std::vector<std::byte> read_file(const std::string& path, const Profile& tuning);

struct IOLAB_IO_API AtomicWriteOptions {
    bool replace = true;  // false: refuse (EEXIST) when path exists, atomically (RENAME_NOREPLACE)
    // Called with the temporary file's name once it exists (made = true) and once it is gone
    // (false), so that a program's own signal handling can remove it if it must exit at once. If it
    // throws when made, the temporary file is removed and the exception goes on; when gone, it is
    // ignored.
    std::function<void(const std::string& temporary, bool made)> track_temporary;
};

// Writes data to path so that a reader (or a crash) sees the old file or the new one, whole,
// never a mix: a temporary file in the same folder, written and fsync'ed, renamed over path,
// then the folder fsync'ed so that the rename itself survives a power cut. A symbolic link at path
// is replaced by the file (its target is not written). A replaced file keeps its mode; a new one gets 0666 less the umask. On any failure before the rename the temporary
// file is removed and path is untouched; if only the folder's fsync fails, after the rename, path
// is the new file, whole, and the IoError says the rename may not survive a power cut.
IOLAB_IO_API void write_file_atomic(const std::string& path, std::span<const std::byte> data, const AtomicWriteOptions& options = {});
IOLAB_IO_API void write_file_atomic(const std::string& path, std::string_view text, const AtomicWriteOptions& options = {});

// The process's umask, read without changing it (from /proc/self/status).
IOLAB_IO_API mode_t process_umask();

}  // namespace iolab
