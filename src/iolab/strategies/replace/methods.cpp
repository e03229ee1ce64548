// Saving a file safely: the new content written and made to replace the old one, so that a reader
// (or a crash) finds the old file or the new one, whole. Each method replaces the files f0 … fN-1
// of the job's folder in turn with their records (Job::records, one per file), each replacement
// timed into Job::latency. The syncs a method needs to survive a crash are counted by the harness
// (StrategyDef::syncs); the methods without them are in the table to show what they save and risk.
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "iolab/io/whole_file.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/files_common.hpp"
#include "iolab/strategies/strategy.hpp"

namespace iolab {

namespace {

using detail::FileName;
using detail::OpClock;

// "f12.tmp": the temporary beside file i.
struct TempName {
    explicit TempName(std::uint64_t i) : text(fmt::format("{}.tmp", FileName(i).c_str())) {}
    std::string text;
    const char* c_str() const { return text.c_str(); }
};

// Each file of the job's folder replaced by `one(folder, i, new bytes)`, each timed.
template <class One>
void each_replacement(const Job& j, One&& one) {
    const sys::Fd dir = sys::open(j.dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    const OpClock clock(j);
    const std::uint64_t count = j.set_of().count;
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t began = clock.now();
        one(dir, i, j.records->at(i));
        clock.done(began);
    }
}

// The new content into a new temporary beside file i; fsync'ed when `sync`.
void write_temporary(const sys::Fd& dir, std::uint64_t i, std::span<const std::byte> b, bool sync) {
    sys::Fd tmp = sys::openat(dir, TempName(i).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW);
    sys::write_all(tmp, b.data(), b.size());
    if (sync) sys::fsync(tmp);
    tmp.close();
}

// kSyncFile: the temporary fsync'ed before the rename; kSyncFolder: the folder after it, so that
// the rename itself survives a power cut.
template <bool kSyncFile, bool kSyncFolder>
void rename_over(const Job& j) {
    each_replacement(j, [](const sys::Fd& dir, std::uint64_t i, std::span<const std::byte> b) {
        write_temporary(dir, i, b, kSyncFile);
        sys::renameat(dir, TempName(i).c_str(), FileName(i).c_str());
        if (kSyncFolder) sys::fsync(dir);
    });
}

// An unnamed file in the folder (O_TMPFILE), written and fsync'ed, given a name only once whole
// (linkat through /proc/self/fd, which needs no capability), then renamed over.
void tmpfile_linkat(const Job& j) {
    each_replacement(j, [](const sys::Fd& dir, std::uint64_t i, std::span<const std::byte> b) {
        sys::Fd tmp = sys::openat(dir, ".", O_TMPFILE | O_WRONLY);
        sys::write_all(tmp, b.data(), b.size());
        sys::fsync(tmp);
        const std::string self = fmt::format("/proc/self/fd/{}", tmp.get());
        const TempName name(i);
        sys::linkat(self.c_str(), dir, name.c_str());
        tmp.close();
        sys::renameat(dir, name.c_str(), FileName(i).c_str());
        sys::fsync(dir);
    });
}

// The new file and the old swapped in one call (RENAME_EXCHANGE), the old then removed.
void exchange(const Job& j) {
    each_replacement(j, [](const sys::Fd& dir, std::uint64_t i, std::span<const std::byte> b) {
        write_temporary(dir, i, b, true);
        sys::renameat(dir, TempName(i).c_str(), FileName(i).c_str(), RENAME_EXCHANGE);
        sys::fsync(dir);
        sys::unlinkat(dir, TempName(i).c_str());
    });
}

// Over the old bytes, then fsync: durable, but a crash or a reader midway sees a mix.
void in_place(const Job& j) {
    each_replacement(j, [](const sys::Fd& dir, std::uint64_t i, std::span<const std::byte> b) {
        sys::Fd f = sys::openat(dir, FileName(i).c_str(), O_WRONLY | O_NOFOLLOW);
        sys::pwrite_all(f, b.data(), b.size(), 0);
        sys::ftruncate(f, static_cast<off_t>(b.size()));
        sys::fsync(f);
        f.close();
    });
}

// iolab::write_file_atomic, the library's safe save (include/iolab/io/whole_file.hpp).
void library(const Job& j) {
    each_replacement(j, [&](const sys::Fd&, std::uint64_t i, std::span<const std::byte> b) {
        write_file_atomic(fmt::format("{}/{}", j.dst, FileName(i).c_str()), b);
    });
}

// Whether the folder's filesystem makes unnamed files (O_TMPFILE), or swaps names.
std::optional<std::string> no_tmpfile(const std::string& dir) {
    // The name is given through /proc/self/fd (linkat with AT_EMPTY_PATH needs a capability).
    if (::access("/proc/self/fd", X_OK) != 0)
        return fmt::format("/proc/self/fd, through which an unnamed file is given its name, is not there ({})",
                           std::strerror(errno));
    const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ::close(fd);
        return std::nullopt;
    }
    return fmt::format("this filesystem makes no unnamed files (open O_TMPFILE: {})", std::strerror(errno));
}

std::optional<std::string> no_exchange(const std::string& dir) {
    // Two names that do not exist: ENOENT says the call and flag are known, EINVAL that they are not.
    const std::string a = dir + "/.iolab-exchange-a", b = dir + "/.iolab-exchange-b";
    if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0) {
        // Both were there (not iolab's probe): swapped back as they were.
        ::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE);
        return std::nullopt;
    }
    if (errno == ENOENT) return std::nullopt;
    return fmt::format("this filesystem does not exchange names (renameat2 RENAME_EXCHANGE: {})", std::strerror(errno));
}

constexpr unsigned kSet = kParamCount | kParamFileSize;

// clang-format off
constexpr StrategyDef kReplace[] = {
    {.name = "replace.rename-fsync", .params = kSet, .syncs = 2, .run = rename_over<true, true>,
     .description = "a temporary beside it written, fsync(2), renameat(2) over the file, fsync(2) of the folder: "
                    "the textbook safe save"},
    {.name = "replace.rename-fsync-file", .params = kSet, .syncs = 1, .run = rename_over<true, false>,
     .description = "as rename-fsync without the folder's fsync: the new file whole or the old one, but after a "
                    "crash the old one may come back"},
    {.name = "replace.unsafe-rename", .params = kSet, .run = rename_over<false, false>,
     .description = "as rename-fsync without either fsync: atomic for readers, but a crash can leave the old file, "
                    "or a new one empty or partly written"},
    {.name = "replace.tmpfile-linkat", .params = kSet, .syncs = 2, .run = tmpfile_linkat, .unavailable = no_tmpfile,
     .description = "open(2) O_TMPFILE in the folder, write, fsync(2), linkat(2) a name, renameat(2) over, fsync(2) "
                    "of the folder: no partial temporary is ever visible"},
    {.name = "replace.exchange", .params = kSet, .syncs = 2, .run = exchange, .unavailable = no_exchange,
     .description = "a temporary written and fsync'ed, renameat2(2) RENAME_EXCHANGE with the file, fsync(2) of the "
                    "folder, the old content (now the temporary) unlinked"},
    {.name = "replace.unsafe-in-place", .params = kSet, .syncs = 1, .run = in_place,
     .description = "pwrite(2) over the old bytes, ftruncate(2), fsync(2): durable, not atomic: a crash or a "
                    "reader midway sees old and new mixed"},
    {.name = "replace.library", .params = kSet, .syncs = 2, .run = library,
     .description = "iolab::write_file_atomic (the library): a temporary, fsync, rename over, fsync of the folder"},
};
// clang-format on

}  // namespace

void register_replace_strategies(Registry& r) { r.add(kReplace); }

}  // namespace iolab
