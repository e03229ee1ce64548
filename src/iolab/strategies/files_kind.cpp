// The module of the files family (strategies/kind.hpp): a tree of files as the input (read, copy),
// as the reference only (write), or laid out afresh before each run at the output (remove), and
// the verification of what a run left. The trees laid out are written back before the clock.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "iolab/core/process.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/core/tree.hpp"
#include "iolab/core/units.hpp"
#include "iolab/strategies/files_common.hpp"
#include "iolab/strategies/kind.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

namespace {

// Reads and copies share a tree laid out; writes and removals keep its digests alone.
bool laid_out(const Workload& w) { return w.family == Family::files_read || w.family == Family::files_copy; }

std::string tree_input_name(const Workload& w, unsigned job) {
    const TreeValues& t = w.tree_of();
    return fmt::format("tree-{}{}-{}x{}-{}-{}", laid_out(w) ? "" : "digest-", to_string(w.data), t.files, t.file_size,
                       t.folders, job);
}

// Writes back every dirty page of the filesystem holding the folder `fd` (syncfs(2), before the
// clock): a tree as users have theirs, on the disk, not only in the page cache. On ext4 with delayed
// allocation a file never written back has no blocks yet, and removing it frees none.
void write_back(int fd, const std::string& path) {
    if (::syncfs(fd) != 0) throw IoError(errno, "syncfs", path);
}

std::shared_ptr<const Input> make_tree_input(const Workload& w, const std::string& path) {
    auto in = std::make_shared<Input>();
    in->remove = remove_folder_at;
    const TreeShape t = tree_shape(w);
    auto content = std::make_shared<const Records>(w.data, std::max<std::uint64_t>(1, t.file_size), t.files);
    TreeSum s;
    if (laid_out(w)) {
        const auto [fd, name] = place_of(path);
        s = lay_out_tree(fd, name, t, *content);
        write_back(fd, path);
        in->path = path;
        in->owned = true;
    } else {
        s = expected_tree(t, *content);
    }
    in->records = std::move(content);
    in->digest.checksum = s.sum;
    in->digest.size = s.bytes;
    in->files = s.files;
    return in;
}

void lay_out_for_removal(const Workload& w, const Input& in, Job& job) {
    if (w.family != Family::files_remove) return;
    const auto [fd, name] = place_of(job.dst);
    lay_out_tree(fd, name, tree_shape(w), *in.records);
    write_back(fd, job.dst);
}

Verdict verify_tree(const Workload& w, const Input& in, const Job& job, const RunCheck& c) {
    Verdict v;
    v.expected = in.digest.checksum;
    v.expected_bytes = in.digest.size;
    if (w.family == Family::files_remove) {
        // Nothing is left: not the tree, not a file of it.
        const auto [fd, name] = place_of(job.dst);
        struct stat st {};
        const bool gone = ::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
        v.expected = v.actual = 0;
        v.expected_bytes = 0;
        v.actual_bytes = gone ? 0 : 1;
        v.ok = gone;
        v.tree = gone ? "" : "the tree is still there";
        return v;
    }
    TreeSum s;
    std::uint64_t entries = in.files;
    if (w.family == Family::files_read) {
        if (job.sink && job.sink->count_only()) {  // a tool that says how many bytes it read (fio)
            v.count_only = true;
            v.actual_bytes = job.sink->bytes();
            v.ok = v.actual_bytes == v.expected_bytes;
            return v;
        }
        if (!c.checked || !job.tree) {  // a tool: nothing to check but that it ran
            v.ok = true;
            v.checked = false;
            return v;
        }
        s = job.tree->sum();
    } else {
        const auto [fd, name] = place_of(job.dst);
        try {
            s = digest_tree(fd, name, tree_shape(w), &entries);
        } catch (const IoError& e) {
            v.tree = fmt::format("the output tree cannot be read: {}", e.what());
            return v;
        }
    }
    v.actual = s.sum;
    v.actual_bytes = s.bytes;
    v.ok = s.sum == in.digest.checksum && s.bytes == in.digest.size && s.files == in.files && entries == in.files;
    if (!v.ok)
        v.tree = fmt::format("{} of {} files, {} entries, {} bytes (expected {}), digest {:#018x} (expected {:#018x})",
                             s.files, in.files, entries, s.bytes, in.digest.size, s.sum, in.digest.checksum);
    return v;
}

// A tree's blocks: each file's bytes rounded up to whole 4 KiB blocks, and a block a folder.
KindSpace tree_space(const Workload& w) {
    const TreeValues& t = w.tree_of();
    const std::uint64_t per_file = (t.file_size + 4095) / 4096 * 4096;
    const std::uint64_t bytes = saturating_add(saturating_mul(t.files, per_file), (t.folders + 1ull) * 4096);
    const std::uint64_t inodes = t.files + t.folders + 1;
    KindSpace k;
    if (laid_out(w)) {  // an input tree kept (reads, copies)
        k.input = tree_input_name(w, 0);
        k.input_bytes = bytes;
        k.input_inodes = inodes;
    }
    if (w.family != Family::files_read) {  // an output tree (all but reads)
        k.output_bytes = bytes;
        k.output_inodes = inodes;
    }
    return k;
}

// Its folders, each open once (a copy's on both sides), and the files in flight: a copy holds two for
// each (source and destination, both registered with an io_uring); fio holds kFioOpenFiles open.
std::uint64_t tree_descriptors(const Strategy& s, const Workload& w) {
    const std::uint64_t sides = w.family == Family::files_copy ? 2 : 1;
    const std::uint64_t open = saturating_add(sides * w.tree_of().folders, saturating_mul(sides, w.queue));
    return s.name == "files.read-fio" ? saturating_add(open, detail::kFioOpenFiles) : open;
}

std::string tree_what(const Workload& w, std::string_view items) {
    return fmt::format("{} files of {}", items, format_size(w.tree_of().file_size));
}

// The syncs a method claims for each file it writes (Strategy::syncs).
std::uint64_t tree_syncs(const Strategy& s, const Workload& w) { return saturating_mul(s.syncs, w.tree_of().files); }

}  // namespace

// The size of each file of a case whose kind has files of one size (a tree, a set).
template <class T>
T* of_each_file(T* size) {
    if (!size) throw std::logic_error("file_size: the case's kind has no files of a size");
    return size;
}

// The tree's shape. file_size is also the replace kind's (the size of each file it replaces).
constexpr KindParam kTreeParams[] = {
    {.key = "files",
     .help = "Files in the tree of the files family (default 1000; a list sweeps)",
     .expected = "numbers of files from 1 to 100000000 such as 50000 or 1000,50000",
     .takes = kParamFiles,
     .max = 100'000'000,
     .get = [](const Workload& w) { return w.tree_of().files; },
     .set = [](Workload& w, std::uint64_t v) { w.tree_of().files = v; },
     .smoke_max = 40},
    {.key = "file_size",
     .help = "Bytes in each file of the tree, or of the set replaced (default 4K)",
     .expected = "file sizes from 1 byte to 1G such as 4K or 1K,64K",
     .takes = kParamFileSize,
     .max = 1ull << 30,
     .size = true,
     .get = [](const Workload& w) { return *of_each_file(w.each_file_size()); },
     .set = [](Workload& w, std::uint64_t v) { *of_each_file(w.each_file_size()) = v; }},
    {.key = "folders",
     .help = "Folders the tree's files are spread over (default 10)",
     .expected = "numbers of folders from 1 to 1000000 such as 10 or 1,100",
     .takes = kParamFolders,
     .max = 1'000'000,
     .get = [](const Workload& w) -> std::uint64_t { return w.tree_of().folders; },
     .set = [](Workload& w, std::uint64_t v) { w.tree_of().folders = static_cast<unsigned>(v); },
     .smoke_max = 4},
};

const KindModule& files_kind() {
    static const KindModule m{.params = kTreeParams,
                              .space = tree_space,
                              .descriptors = tree_descriptors,
                              .descriptors_are = "a descriptor for each of its folders, twice for a copy",
                              .fewer_descriptors = "folders",
                              .what = tree_what,
                              .input_name = tree_input_name,
                              .make_input = make_tree_input,
                              .least = [](Workload& w) { w.tree_of().files = w.tree_of().folders = 1; },
                              .before_run = lay_out_for_removal,
                              .verify = verify_tree,
                              .syncs = tree_syncs,
                              .sync_shortfall =
                                  "{made} sync calls (fsync, fdatasync) for {count} files; {needed} make "
                                  "each file durable before it is closed",
                              .items_key = "files",
                              .files_each_run = [](const Workload& w) { return w.tree_of().files; },
                              .remove = remove_folder_at};
    return m;
}

}  // namespace iolab
