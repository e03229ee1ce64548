// The module of the replace family (strategies/kind.hpp): before each run, a folder of `count`
// files of `file_size` bytes holding the old content, written back to the device as a file about
// to be saved over has long been; afterwards, the check that every file holds its new content
// whole and nothing else is left in the folder (no temporary, no old file under another name).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "iolab/core/process.hpp"
#include "iolab/core/tree.hpp"
#include "iolab/core/units.hpp"
#include "iolab/strategies/files_common.hpp"
#include "iolab/strategies/kind.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

namespace {

using detail::FileName;

// The set's name in the scratch folder; nothing is made there (the records are in memory, read
// only): every job of a case shares them, as the jobs of a write share its records.
std::string set_input_name(const Workload& w, unsigned) {
    const SetValues& s = w.set_of();
    return fmt::format("set-{}-{}x{}", to_string(w.data), s.count, s.file_size);
}

// The new content: record i is file i's.
std::shared_ptr<const Input> make_set_input(const Workload& w, const std::string&) {
    auto in = std::make_shared<Input>();
    const SetValues& s = w.set_of();
    auto records = std::make_shared<const Records>(w.data, std::max<std::uint64_t>(1, s.file_size), s.count);
    in->digest = records->digest();
    in->records = std::move(records);
    in->files = s.count;
    in->remove = remove_folder_at;
    return in;
}

// The old files: each byte of file i the complement of its new one (so no old byte passes for a new
// one, whatever the data), all written back with one syncfs(2).
void lay_out_old(const Workload& w, const Input& in, Job& job) {
    const std::string& dst = job.dst;
    const sys::Fd parent = sys::open(dst.substr(0, dst.rfind('/')), O_RDONLY | O_DIRECTORY);
    const std::string name = dst.substr(dst.rfind('/') + 1);
    sys::mkdirat(parent, name.c_str());
    const sys::Fd dir = sys::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    std::vector<std::byte> old(in.records->record());
    for (std::uint64_t i = 0; i < w.set_of().count; ++i) {
        const auto b = in.records->at(i);
        for (std::size_t k = 0; k < b.size(); ++k) old[k] = ~b[k];
        sys::Fd f = sys::openat(dir, FileName(i).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW);
        sys::write_all(f, old.data(), b.size());
        f.close();
    }
    if (::syncfs(dir.get()) != 0) throw IoError(errno, "syncfs", dst);
}

// The names in the folder, but . and ..
std::vector<std::string> names_in(const sys::Fd& dir) {
    const int fd = ::fcntl(dir.get(), F_DUPFD_CLOEXEC, 0);
    if (fd < 0) throw IoError(errno, "list", dir.path());
    DIR* d = ::fdopendir(fd);
    if (!d) {
        const int e = errno;
        ::close(fd);
        throw IoError(e, "list", dir.path());
    }
    const std::unique_ptr<DIR, int (*)(DIR*)> closing(d, ::closedir);
    ::rewinddir(d);
    std::vector<std::string> out;
    for (;;) {
        errno = 0;
        const dirent* e = ::readdir(d);
        if (!e) {
            if (errno != 0) throw IoError(errno, "list", dir.path());
            return out;
        }
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) out.emplace_back(e->d_name);
    }
}

// What is wrong with file i (empty: it holds its new content whole).
std::string wrong_file(const sys::Fd& dir, std::uint64_t i, std::span<const std::byte> want,
                       std::vector<std::byte>& buf, std::uint64_t& bytes) {
    const FileName name(i);
    sys::Fd f;
    try {
        f = sys::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW);
    } catch (const IoError& e) {
        return fmt::format("{} cannot be opened: {}", name.c_str(), e.what());
    }
    buf.resize(want.size() + 1);
    const std::size_t n = sys::read_full(f, buf.data(), buf.size());
    bytes += n;
    if (n != want.size()) return fmt::format("{} holds {} bytes, not {}", name.c_str(), n, want.size());
    if (std::memcmp(buf.data(), want.data(), n) != 0) {
        bool old = true;  // the old content whole: the file was not replaced
        for (std::size_t k = 0; k < n && old; ++k) old = buf[k] == ~want[k];
        return fmt::format("{} {}", name.c_str(), old ? "still holds its old content" : "holds neither content whole");
    }
    return {};
}

Verdict verify_set(const Workload& w, const Input& in, const Job& job, const RunCheck&) {
    Verdict v;
    v.expected = in.digest.checksum;
    v.expected_bytes = in.digest.size;
    sys::Fd dir;
    try {
        dir = sys::open(job.dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (const IoError& e) {
        v.tree = fmt::format("the folder of files cannot be opened: {}", e.what());
        return v;
    }
    std::vector<std::byte> buf;
    std::uint64_t bytes = 0;
    const std::uint64_t count = w.set_of().count;
    for (std::uint64_t i = 0; i < count; ++i)
        if (std::string why = wrong_file(dir, i, in.records->at(i), buf, bytes); !why.empty()) {
            v.tree = why;
            return v;
        }
    const std::vector<std::string> names = names_in(dir);
    if (names.size() != count) {
        for (const auto& n : names)
            if (!n.starts_with('f') || n.find('.') != std::string::npos) {
                v.tree = fmt::format("'{}' is left in the folder ({} entries, expected {})", n, names.size(), count);
                return v;
            }
        v.tree = fmt::format("the folder holds {} entries, expected {}", names.size(), count);
        return v;
    }
    v.actual = v.expected;
    v.actual_bytes = bytes;
    v.ok = bytes == v.expected_bytes;
    return v;
}

// The old files, and a new one beside each in turn; nothing kept between runs.
KindSpace set_space(const Workload& w) {
    const SetValues& s = w.set_of();
    const std::uint64_t per_file = (s.file_size + 4095) / 4096 * 4096;
    KindSpace k;
    k.output_bytes = saturating_mul(s.count + 1, per_file);
    k.output_inodes = s.count + 2;
    return k;
}

// The new content, made in memory and shared by the jobs: a pool of one block and up to
// Records::kSpread bytes; and each job's buffers of a file (the old content laid out, a file read
// back to be checked).
std::uint64_t set_memory(const Workload& w) {
    const std::uint64_t each = w.set_of().file_size;
    const std::uint64_t shared = saturating_add(std::max<std::uint64_t>(each, Records::kMinBlock) + each,
                                                std::min<std::uint64_t>(w.bytes(), Records::kSpread));
    return saturating_add(shared, saturating_mul(saturating_mul(2, each + 1), w.jobs));
}

// The folder (twice: the library opens it again to sync it), the file being replaced, its temporary,
// and the library's look at the process's umask.
std::uint64_t set_descriptors(const Strategy&, const Workload&) { return 5; }

// Each replacement's own: the syncs its method claims (Strategy::syncs).
std::uint64_t set_syncs(const Strategy& s, const Workload& w) { return saturating_mul(s.syncs, w.set_of().count); }

std::string set_what(const Workload& w, std::string_view items) {
    return fmt::format("{} files of {}", items, format_size(w.set_of().file_size));
}

}  // namespace

const KindModule& replace_kind() {
    static const KindModule m{
        .space = set_space,
        .memory = set_memory,
        .descriptors = set_descriptors,
        .descriptors_are = "the folder twice, the file being replaced, its temporary and one to read the umask",
        .fewer_descriptors = "",
        .what = set_what,
        .input_name = set_input_name,
        .make_input = make_set_input,
        .before_run = lay_out_old,
        .verify = verify_set,
        .syncs = set_syncs,
        .sync_shortfall =
            "{made} sync calls (fsync, fdatasync) for {count} replacements; "
            "{needed} make each survive a crash",
        .items_key = "count",
        .remove = remove_folder_at};
    return m;
}

}  // namespace iolab
