// The files family's reads: every file of a tree read whole, in every way people do it, each
// file's bytes hashed into the job's order-free digest (the harness checks it against the tree's).
#include <dirent.h>
#include <sys/mman.h>

#include <filesystem>
#include <fstream>

#include "iolab/strategies/common.hpp"
#include "iolab/strategies/files_common.hpp"
#include "iolab/sys/uring.hpp"

namespace iolab {

namespace {

using detail::FileName;

// open(2) by full path, read(2), close(2): the loop everyone writes first.
void read_open_close(const Job& j) {
    AlignedBuffer buf(j.buffer, detail::kPage);
    Hasher h;
    detail::each_file_by_folder(j, [&](std::uint64_t i) {
        const sys::Fd in = sys::open(j.src + "/" + tree_file(tree_shape(j), i), O_RDONLY);
        detail::read_into_digest(j, in, i, buf, h);
    });
}

// openat(2) from each folder's descriptor: no path walked from the root for each file.
void read_openat(const Job& j) {
    const detail::TreeFolders t = detail::open_tree(j.src, j.tree_of().folders);
    AlignedBuffer buf(j.buffer, detail::kPage);
    Hasher h;
    detail::each_file_by_folder(j, [&](std::uint64_t i) {
        const sys::Fd in = sys::openat(t.of(i), FileName(i).c_str(), O_RDONLY | O_NOFOLLOW);
        detail::read_into_digest(j, in, i, buf, h);
    });
}

// mmap(2) each file and hash it in place.
void read_mmap(const Job& j) {
    const detail::TreeFolders t = detail::open_tree(j.src, j.tree_of().folders);
    Hasher h;
    detail::each_file_by_folder(j, [&](std::uint64_t i) {
        const sys::Fd in = sys::openat(t.of(i), FileName(i).c_str(), O_RDONLY | O_NOFOLLOW);
        h.reset();
        if (const std::uint64_t size = sys::file_size(in)) {
            const sys::Mapping m = sys::map(in, size, PROT_READ, MAP_SHARED);
            h.update(m.data(), m.size());
        }
        j.tree->add(i, h.digest(), h.bytes());
    });
}

// A pool of `queue` threads, each opening (openat) and reading the next file not yet taken.
void read_threads(const Job& j) {
    const detail::TreeFolders t = detail::open_tree(j.src, j.tree_of().folders);
    std::vector<AlignedBuffer> bufs;
    std::vector<Hasher> hashers(j.queue);
    for (unsigned k = 0; k < j.queue; ++k) bufs.emplace_back(j.buffer, detail::kPage);
    detail::on_threads(j, j.queue, [&](std::uint64_t i, unsigned k) {
        const sys::Fd in = sys::openat(t.of(i), FileName(i).c_str(), O_RDONLY | O_NOFOLLOW);
        detail::read_into_digest(j, in, i, bufs[k], hashers[k]);
    });
}

// The everyday way: std::filesystem walks the tree, std::ifstream reads each file.
void read_ifstream(const Job& j) {
    std::vector<char> buf(j.buffer);
    Hasher h;
    const detail::OpClock clock(j);
    for (const auto& e : std::filesystem::recursive_directory_iterator(j.src)) {
        const std::uint64_t began = clock.now();
        if (!e.is_regular_file()) continue;
        const std::uint64_t i = tree_index(e.path().filename().c_str());
        std::ifstream in(e.path(), std::ios::binary);
        if (!in) detail::stream_failed("open", e.path());
        h.reset();
        while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0)
            h.update(buf.data(), static_cast<std::size_t>(in.gcount()));
        if (in.bad()) detail::stream_failed("read", e.path());
        j.tree->add(i, h.digest(), h.bytes());
        clock.done(began);
    }
}

// A walk as find(1) makes it: getdents64(2) lists each folder, statx(2) tells files from the
// rest, and each file found is opened (openat) and read.
void read_getdents(const Job& j) {
    const detail::TreeFolders t = detail::open_tree(j.src, j.tree_of().folders);
    AlignedBuffer buf(j.buffer, detail::kPage), list(32 * 1024, 8);
    Hasher h;
    const detail::OpClock clock(j);
    for (const sys::Fd& folder : t.folder) {
        while (const std::size_t n = sys::getdents(folder, list.data(), list.size())) {
            for (std::size_t off = 0; off < n;) {
                const auto* e = reinterpret_cast<const dirent64*>(list.data() + off);
                off += e->d_reclen;
                const char* name = e->d_name;
                const std::uint64_t began = clock.now();
                if (name[0] == '.' || sys::statx_size(folder, name) < 0) continue;
                const sys::Fd in = sys::openat(folder, name, O_RDONLY | O_NOFOLLOW);
                detail::read_into_digest(j, in, tree_index(name), buf, h);
                clock.done(began);
            }
        }
    }
}

}  // namespace

// The io_uring reader (files_uring.cpp).
void read_files_uring(const Job& j);

namespace {

constexpr unsigned kTree = kParamTree | kParamBuffer;

// clang-format off
constexpr StrategyDef kFileReads[] = {
    {.name = "files.read-open-close", .params = kTree, .run = read_open_close,
     .description = "open(2) each file by its full path, read(2) it whole into an N-byte buffer, close(2)"},
    {.name = "files.read-openat", .params = kTree, .run = read_openat,
     .description = "openat(2) each file from its folder's descriptor, read(2), close(2)"},
    {.name = "files.read-mmap", .params = kTree, .run = read_mmap,
     .description = "openat(2) and mmap(2) each file, its bytes read in place"},
    {.name = "files.read-threads", .params = kTree | kParamQueue, .flags = kOwnThreads, .run = read_threads,
     .description = "Q threads, each openat(2), read(2), close(2) of the next file not yet taken"},
    {.name = "files.read-io-uring", .params = kTree | kParamQueue, .run = read_files_uring,
     .unavailable = [](const std::string&) { return sys::uring_unavailable(); },
     .description = "io_uring: openat, read and close linked per file into registered slots, Q files in flight"},
    {.name = "files.read-ifstream", .params = kTree | kParamBuffer, .flags = kUncounted, .run = read_ifstream,
     .description = "std::filesystem::recursive_directory_iterator finds each file, std::ifstream reads it"},
    {.name = "files.read-getdents", .params = kTree, .run = read_getdents,
     .description = "getdents64(2) lists each folder, statx(2) each entry, then openat(2) + read(2) each file"},
};
// clang-format on

}  // namespace

void register_file_reads(Registry& r) { r.add(kFileReads); }

}  // namespace iolab
