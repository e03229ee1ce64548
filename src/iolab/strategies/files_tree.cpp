// The files family's writes, copies and removals of a tree of many files, and the tools people
// use for them (tar, cp -r, rm -r) in the same tables.
#include <ext/stdio_filebuf.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string_view>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "iolab/core/process.hpp"
#include "iolab/core/text_file.hpp"
#include "iolab/core/units.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/files_uring.hpp"

namespace iolab {

namespace {

using detail::FileName;

// ---- writes -----------------------------------------------------------------------------------

// Creates file i in its folder and writes its bytes; `sync`: fsync(2) it before close(2).
void create_file(const Job& j, const detail::TreeFolders& t, std::uint64_t i, bool sync) {
    sys::Fd out = sys::openat(t.of(i), FileName(i).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW);
    const std::span<const std::byte> b = detail::file_bytes(j, i);
    sys::write_all(out, b.data(), b.size());
    if (sync) sys::fsync(out);
    out.close();
}

template <bool kSyncFiles, bool kSyncFolders>
void write_create(const Job& j) {
    const detail::TreeFolders t = detail::make_tree(j.dst, j.tree_of().folders);
    detail::each_file_by_folder(j, [&](std::uint64_t i) { create_file(j, t, i, kSyncFiles); });
    if (kSyncFolders) {  // the names made durable: each folder once, then the root
        for (const sys::Fd& f : t.folder) sys::fsync(f);
        sys::fsync(t.root);
    }
}

void write_threads(const Job& j) {
    const detail::TreeFolders t = detail::make_tree(j.dst, j.tree_of().folders);
    detail::on_threads(j, j.queue, [&](std::uint64_t i, unsigned) { create_file(j, t, i, false); });
}

// The everyday way: std::filesystem::create_directory for the folders, then a C++ stream for each
// file. The stream is handed a descriptor opened through its folder's, never following a link
// (std::ofstream opens by path: a folder swapped for a link mid-run led it outside the scratch
// folder), so the root must be the one made here and each folder a folder.
void write_ofstream(const Job& j) {
    if (!std::filesystem::create_directory(j.dst))
        throw IoError(EEXIST, "create the folder", j.dst);  // a destination does not exist before
    for (unsigned d = 0; d < j.tree_of().folders; ++d)
        std::filesystem::create_directory(fmt::format("{}/d{}", j.dst, d));
    const detail::TreeFolders t = detail::open_tree(j.dst, j.tree_of().folders);
    const TreeShape shape = tree_shape(j);
    detail::each_file_by_folder(j, [&](std::uint64_t i) {
        sys::Fd fd = sys::openat(t.of(i), FileName(i).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW);
        __gnu_cxx::stdio_filebuf<char> file(fd.release(), std::ios::out);  // it closes the descriptor
        std::ostream out(&file);
        const std::span<const std::byte> b = detail::file_bytes(j, i);
        out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
        out.flush();
        if (!out || !file.close()) detail::stream_failed("write", j.dst + "/" + tree_file(shape, i));
    });
}

// ---- copies -----------------------------------------------------------------------------------

void copy_one(const detail::TreeFolders& from, const detail::TreeFolders& to, std::uint64_t i) {
    const FileName name(i);
    const sys::Fd in = sys::openat(from.of(i), name.c_str(), O_RDONLY | O_NOFOLLOW);
    sys::Fd out = sys::openat(to.of(i), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW);
    off_t a = 0, b = 0;
    while (sys::copy_file_range_some(in, &a, out, &b, std::size_t{1} << 30) > 0) {
    }
    out.close();
}

void copy_range(const Job& j) {
    const detail::TreeFolders from = detail::open_tree(j.src, j.tree_of().folders),
                              to = detail::make_tree(j.dst, j.tree_of().folders);
    detail::each_file_by_folder(j, [&](std::uint64_t i) { copy_one(from, to, i); });
}

void copy_threads(const Job& j) {
    const detail::TreeFolders from = detail::open_tree(j.src, j.tree_of().folders),
                              to = detail::make_tree(j.dst, j.tree_of().folders);
    detail::on_threads(j, j.queue, [&](std::uint64_t i, unsigned) { copy_one(from, to, i); });
}

// The everyday way: std::filesystem::copy with copy_options::recursive, into a destination it
// makes (one that was there already, or a link, is refused: copy would merge into it).
void copy_std_filesystem(const Job& j) {
    if (!std::filesystem::create_directory(j.dst)) throw IoError(EEXIST, "create the folder", j.dst);
    std::filesystem::copy(j.src, j.dst, std::filesystem::copy_options::recursive);
}

// ---- removals ---------------------------------------------------------------------------------

// The tree's folders, then its root, once their files are gone.
void remove_folders(const Job& j, const detail::TreeFolders& t) {
    for (unsigned d = 0; d < j.tree_of().folders; ++d)
        sys::unlinkat(t.root, fmt::format("d{}", d).c_str(), AT_REMOVEDIR);
    const auto slash = j.dst.rfind('/');
    const sys::Fd parent = sys::open(j.dst.substr(0, slash), O_RDONLY | O_DIRECTORY);
    sys::unlinkat(parent, j.dst.c_str() + slash + 1, AT_REMOVEDIR);
}

void remove_unlinkat(const Job& j) {
    const detail::TreeFolders t = detail::open_tree(j.dst, j.tree_of().folders);
    detail::each_file_by_folder(j, [&](std::uint64_t i) { sys::unlinkat(t.of(i), FileName(i).c_str()); });
    remove_folders(j, t);
}

void remove_threads(const Job& j) {
    const detail::TreeFolders t = detail::open_tree(j.dst, j.tree_of().folders);
    detail::on_threads(j, j.queue, [&](std::uint64_t i, unsigned) { sys::unlinkat(t.of(i), FileName(i).c_str()); });
    remove_folders(j, t);
}

// io_uring unlinkat, Q names in flight (each names its buffer while it is).
void remove_uring(const Job& j) {
    const detail::TreeFolders t = detail::open_tree(j.dst, j.tree_of().folders);
    const unsigned q = detail::files_in_flight(j);
    const std::uint64_t files = j.tree_of().files;
    std::vector<FileName> names(q, FileName(0));
    std::vector<std::uint64_t> file(q);
    sys::Ring ring(q, j.dst);
    std::uint64_t next = 0;
    const auto start = [&](unsigned k) {
        file[k] = next++;
        names[k] = FileName(file[k]);
        ring.unlink(t.of(file[k]), names[k].c_str(), k);
    };
    for (unsigned k = 0; k < q && next < files; ++k) start(k);
    while (ring.in_flight() > 0) {
        const sys::Completion c = ring.next();
        const auto k = static_cast<unsigned>(c.tag);
        if (c.res == -EAGAIN || c.res == -EINTR) {
            ring.unlink(t.of(file[k]), names[k].c_str(), k);
            continue;
        }
        if (c.res < 0) throw IoError(-c.res, "remove", fmt::format("{}/{}", j.dst, names[k].c_str()));
        if (next < files) start(k);
    }
    remove_folders(j, t);
}

void remove_std_filesystem(const Job& j) { std::filesystem::remove_all(j.dst); }

// ---- tools ------------------------------------------------------------------------------------

// Runs a tool in the scratch folder (by descriptor), on names relative to it.
void run_tree_tool(const std::vector<std::string>& argv, int cwd_fd) {
    const ProcessResult r = run_process(argv, "/dev/null", cwd_fd);
    if (r.status != 0)
        throw std::runtime_error(
            fmt::format("{} exited with status {}: {}", argv[0], r.status, r.errors.substr(0, r.errors.find('\n'))));
}

std::pair<int, std::string> here(const std::string& path) {
    const auto split = split_fd_path(path);
    if (!split) throw std::logic_error("a tree outside the scratch folder: " + path);
    return {split->first, "./" + split->second};
}

// wc -c's count: a whole number, blanks around it.
bool parse_count(std::string_view text, std::uint64_t& n) {
    const std::size_t at = text.find_first_not_of(" \t");
    if (at == std::string_view::npos) return false;
    const auto [end, err] = std::from_chars(text.data() + at, text.data() + text.size(), n);
    return err == std::errc{} &&
           std::string_view(end, text.data() + text.size()).find_first_not_of(" \t\n") == std::string_view::npos;
}

// tar reads every file and writes the archive into a pipe (GNU tar reads nothing it would write
// to /dev/null), whose bytes wc counts into the job's output. pipefail: tar's failure is the
// pipeline's. In GNU format with records of 20 blocks (both given) the archive of the tree is a
// 512-byte header for its root, each folder and each file, each file's bytes in whole 512-byte
// blocks and two empty blocks, in records of 10,240 bytes: an archive of that size held every
// byte of every file (its byte count checked, as dd's and fio's are).
void read_tar(const Job& j) {
    const auto [fd, src] = here(j.src);
    // The format and record size said, not taken from a build's defaults or TAR_OPTIONS.
    run_tree_tool({"bash", "-c",
                   "set -o pipefail; TAR_OPTIONS= tar --format=gnu --blocking-factor=20 -cf - \"$0\" | wc -c > \"$1\"",
                   src, here(j.dst).second},
                  fd);
    constexpr std::uint64_t kBlock = 512, kRecord = 20 * kBlock;
    const std::uint64_t blocks =
        1 + j.tree_of().folders + j.tree_of().files * (1 + (j.tree_of().file_size + kBlock - 1) / kBlock) + 2;
    const std::uint64_t expected = (blocks * kBlock + kRecord - 1) / kRecord * kRecord;
    const std::optional<std::string> said = read_text_file(j.dst);
    std::uint64_t archive = 0;
    if (!said || !parse_count(*said, archive) || archive != expected)
        throw std::runtime_error(fmt::format("tar's archive held {} bytes, where the {} files of {} bytes make {}",
                                             said ? one_line(said->substr(0, 40)) : std::string("no count of"),
                                             j.tree_of().files, j.tree_of().file_size, expected));
    j.sink->count_only(j.tree_of().files * j.tree_of().file_size);
}

// fio on every file below the tree (--opendir), a block of the file's size each, each file whole
// before the next (sequential), at most kFioOpenFiles open at once; its JSON report goes to the
// job's output path (a read writes nothing else there), and the bytes it says it read are checked.
void read_fio(const Job& j) {
    if (j.tree_of().file_size > (1u << 20))
        throw CannotRun(fmt::format("fio reads each file in one block here; files of {} bytes are over 1 MiB",
                                    j.tree_of().file_size));
    const auto [fd, src] = here(j.src);
    run_tree_tool(
        {"fio", "--name=iolab", "--opendir=" + src, "--rw=read", "--bs=" + std::to_string(j.tree_of().file_size),
         "--invalidate=0", "--ioengine=psync", "--openfiles=" + std::to_string(detail::kFioOpenFiles),
         "--file_service_type=sequential", "--output-format=json", "--output=" + here(j.dst).second},
        fd);
    const auto text = read_text_file(j.dst);
    const auto report = nlohmann::json::parse(text ? *text : std::string(), nullptr, false);
    std::uint64_t bytes = 0;
    try {
        bytes = report.at("jobs").at(0).at("read").at("io_bytes").get<std::uint64_t>();
    } catch (const nlohmann::json::exception&) {
        bytes = 0;  // no report: nothing read, which fails the check
    }
    j.sink->count_only(bytes);
}

void copy_cp(const Job& j) {
    const auto [fd, src] = here(j.src);
    run_tree_tool({"cp", "-r", "--", src, here(j.dst).second}, fd);
}

void remove_rm(const Job& j) {
    const auto [fd, dst] = here(j.dst);
    run_tree_tool({"rm", "-r", "--", dst}, fd);
}

constexpr unsigned kTree = kParamTree;

}  // namespace

// The io_uring writes and copies (files_uring.cpp).
void write_files_uring(const Job& j);
void copy_files_uring(const Job& j);

namespace {

std::optional<std::string> no_uring(const std::string&) { return sys::uring_unavailable(); }

// clang-format off
constexpr StrategyDef kFileOps[] = {
    {.name = "files.read-tar", .params = kTree, .flags = kTool | kOnlyReads, .run = read_tar,
     .description = "tar --format=gnu --blocking-factor=20 -cf - TREE | wc -c (its failure fails the case: "
                    "pipefail; the archive's size checked)",
     .program = "tar", .package = "tar"},
    {.name = "files.read-fio", .params = kTree, .flags = kTool | kOnlyReads, .run = read_fio,
     .description = "fio --opendir=TREE --rw=read --openfiles=16, a block of the file's size (its byte count checked)",
     .program = "fio", .package = "fio"},
    {.name = "files.write-create", .params = kTree, .run = write_create<false, false>,
     .description = "openat(2) O_CREAT|O_EXCL each file in its folder, write(2) it, close(2)"},
    {.name = "files.write-fsync-each", .params = kTree, .syncs = 1, .run = write_create<true, false>,
     .description = "as write-create, with fsync(2) of each file before it is closed"},
    {.name = "files.write-fsync-folders", .params = kTree, .run = write_create<false, true>,
     .description = "as write-create, then one fsync(2) of each folder and of the root"},
    {.name = "files.write-threads", .params = kTree | kParamQueue, .flags = kOwnThreads, .run = write_threads,
     .description = "Q threads, each creating and writing the next file not yet taken"},
    {.name = "files.write-io-uring", .params = kTree | kParamQueue, .run = write_files_uring, .unavailable = no_uring,
     .description = "io_uring: each file created into a registered slot, written, closed; Q files in flight"},
    {.name = "files.write-ofstream", .params = kTree, .flags = kUncounted, .run = write_ofstream,
     .description = "std::filesystem::create_directory for the folders, a C++ stream for each file (on a "
                    "descriptor opened through its folder's)"},
    {.name = "files.copy-copy-file-range", .params = kTree, .run = copy_range,
     .description = "openat(2) both, copy_file_range(2) each file"},
    {.name = "files.copy-threads", .params = kTree | kParamQueue, .flags = kOwnThreads, .run = copy_threads,
     .description = "Q threads, each copying (copy_file_range) the next file not yet taken"},
    {.name = "files.copy-io-uring", .params = kTree | kParamQueue | kParamBuffer, .run = copy_files_uring,
     .unavailable = no_uring,
     .description = "io_uring: source and copy opened into registered slots, read and written through an N-byte "
                    "buffer, closed; Q files in flight"},
    {.name = "files.copy-std-filesystem", .params = kTree, .flags = kUncounted, .run = copy_std_filesystem,
     .description = "std::filesystem::copy(src, dst, copy_options::recursive)"},
    {.name = "files.copy-cp", .params = kTree, .flags = kTool, .run = copy_cp,
     .description = "cp -r SRC DST", .program = "cp", .package = "coreutils"},
    {.name = "files.remove-unlinkat", .params = kTree, .run = remove_unlinkat,
     .description = "unlinkat(2) each file from its folder's descriptor, then the folders"},
    {.name = "files.remove-threads", .params = kTree | kParamQueue, .flags = kOwnThreads, .run = remove_threads,
     .description = "Q threads, each unlinking the next file not yet taken, then the folders"},
    {.name = "files.remove-io-uring", .params = kTree | kParamQueue, .run = remove_uring, .unavailable = no_uring,
     .description = "io_uring unlinkat, Q names in flight, then the folders"},
    {.name = "files.remove-std-filesystem", .params = kTree, .flags = kUncounted, .run = remove_std_filesystem,
     .description = "std::filesystem::remove_all(tree)"},
    {.name = "files.remove-rm", .params = kTree, .flags = kTool, .run = remove_rm,
     .description = "rm -r TREE", .program = "rm", .package = "coreutils"},
};
// clang-format on

}  // namespace

void register_file_reads(Registry& r);

void register_files_strategies(Registry& r) {
    register_file_reads(r);
    r.add(kFileOps);
}

}  // namespace iolab
