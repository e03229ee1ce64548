// The files family: trees of many files laid out, read, written, copied and removed, each checked by
// the order-free digest of its files with their indices.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "iolab/core/scratch.hpp"
#include "iolab/core/tree.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/strategies/kind.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/fault.hpp"
#include "iolab/sys/io.hpp"
#include "process_support.hpp"
#include "run_each.hpp"
#include "support.hpp"

namespace iolab {
namespace {

using namespace std::chrono_literals;

CaseSpec tree_case(const Strategy& s, std::uint64_t files = 37, std::uint64_t size = 1000, unsigned folders = 3) {
    CaseSpec c;
    c.strategy = &s;
    c.workload.family = s.family;
    c.workload.tree_of().files = files;
    c.workload.tree_of().file_size = size;
    c.workload.tree_of().folders = folders;
    c.workload.buffer = 512;  // files of 1000 bytes take two reads and a last one
    c.workload.queue = 4;
    return c;
}

// Every files method does the whole job on a small tree (37 files over 3 folders), in the harness.
TEST(Files, EveryMethodDoesTheWholeJobAndIsVerified) {
    const auto make = [](const Strategy& s) { return tree_case(s); };
    const int ran = test::run_each("files.*", make, [](const Strategy& s, const CaseResult& r) {
        ASSERT_EQ(r.status, Status::ok) << r.reason;
        EXPECT_EQ(r.verified, s.output_checked());
        // The tools' reads are held to their byte counts (tar's by its archive's size).
        if (s.name == "files.read-tar" || s.name == "files.read-fio") {
            EXPECT_EQ(r.checked, Checked::byte_count);
        }
        if (r.latency) {
            EXPECT_EQ(r.latency->count() % 37, 0u);  // a time for every file
        }
    });
    EXPECT_GE(ran, 18);
    // And nothing is left in the scratch folder but the group's inputs, removed with it.
}

// A tool's probe (its fixed cost) does the least work of its kind: for a tree, one file in one
// folder of the case's file size; a kind of one file leaves it to the harness's one page.
TEST(Files, TheLeastWorkOfATreeIsOneFile) {
    for (const Family f : {Family::files_read, Family::files_write, Family::files_copy, Family::files_remove}) {
        SCOPED_TRACE(to_string(f));
        const auto least = kind_module(f).least;
        ASSERT_NE(least, nullptr);
        Workload w;
        w.family = f;
        w.tree_of().files = 5000;
        w.tree_of().folders = 100;
        w.tree_of().file_size = 8192;
        least(w);
        EXPECT_EQ(w.tree_of().files, 1u);
        EXPECT_EQ(w.tree_of().folders, 1u);
        EXPECT_EQ(w.tree_of().file_size, 8192u);
    }
    EXPECT_EQ(kind_module(Family::read).least, nullptr);
}

// A reader of its own: every file read and reported, but for what `broken` changes.
enum class Broken { none, skip, swap, repeat };
Broken g_broken = Broken::none;

void partial_reader(const Job& j) {
    for (std::uint64_t i = 0; i < j.tree_of().files; ++i) {
        std::uint64_t at = i;
        if (g_broken == Broken::skip && i == 5) continue;
        if (g_broken == Broken::swap && (i == 3 || i == 4)) at = i == 3 ? 4 : 3;  // file 3's bytes said to be file 4's
        if (g_broken == Broken::repeat && i == 6) at = 5;
        const sys::Fd in = sys::open(
            j.src + "/" + tree_file(TreeShape{j.tree_of().files, j.tree_of().file_size, j.tree_of().folders}, at),
            O_RDONLY);
        std::vector<std::byte> buf(j.tree_of().file_size + 1);
        const std::size_t n = sys::read_full(in, buf.data(), buf.size());
        j.tree->add(i, checksum(std::span<const std::byte>(buf.data(), n)), n);
    }
}

TEST(Files, AReaderThatSkipsSwapsOrRepeatsAFileFails) {
    ScratchDir dir;
    Strategy s;
    s.name = "files.read-test";
    s.family = Family::files_read;
    s.params = kParamTree;
    s.run = partial_reader;
    const RunOptions opts = test::three_iterations();
    for (Broken b : {Broken::skip, Broken::swap, Broken::repeat}) {
        g_broken = b;
        const CaseResult r = run_case(tree_case(s), opts, dir);
        EXPECT_EQ(r.status, Status::failed) << static_cast<int>(b);
        EXPECT_NE(r.reason.find("files"), std::string::npos) << r.reason;
    }
    g_broken = Broken::none;
    EXPECT_EQ(run_case(tree_case(s), opts, dir).status, Status::ok);
}

// Two files of a tree swapped on disk: the digest of the tree read back changes, although every
// byte is there and the files are the same size.
TEST(Files, TheTreeDigestTellsTwoSwappedFilesApart) {
    ScratchDir dir;
    const TreeShape t{20, 300, 4};
    const Records content(DataSpec{}, t.file_size, t.files);
    const TreeSum made = lay_out_tree(dir.fd(), "t", t, content);
    EXPECT_EQ(made, expected_tree(t, content));
    std::uint64_t entries = 0;
    EXPECT_EQ(digest_tree(dir.fd(), "t", t, &entries), made);
    EXPECT_EQ(entries, 20u);
    // f1 is in d1, f5 in d1 too: swap them by renaming through a third name.
    const std::string d1 = dir.file("t/d1/");
    std::filesystem::rename(d1 + "f1", d1 + "tmp");
    std::filesystem::rename(d1 + "f5", d1 + "f1");
    std::filesystem::rename(d1 + "tmp", d1 + "f5");
    const TreeSum swapped = digest_tree(dir.fd(), "t", t);
    EXPECT_EQ(swapped.files, made.files);
    EXPECT_EQ(swapped.bytes, made.bytes);
    EXPECT_NE(swapped.sum, made.sum);
    // A file too many is counted among the entries.
    std::ofstream(dir.file("t/d2/extra")) << "x";
    digest_tree(dir.fd(), "t", t, &entries);
    EXPECT_EQ(entries, 21u);
    remove_tree(dir.fd(), "t");
    EXPECT_FALSE(std::filesystem::exists(dir.file("t")));
}

// A write that leaves one file out, or one too many, fails.
TEST(Files, AWriterThatLeavesAFileOutOrOneTooManyFails) {
    ScratchDir dir;
    const RunOptions opts = test::three_iterations();
    for (int extra : {-1, 1}) {
        Strategy s;
        s.name = "files.write-test";
        s.family = Family::files_write;
        s.params = kParamTree;
        s.run = [extra](const Job& j) {
            std::filesystem::create_directory(j.dst);
            for (unsigned d = 0; d < j.tree_of().folders; ++d)
                std::filesystem::create_directory(j.dst + "/d" + std::to_string(d));
            const TreeShape t{j.tree_of().files, j.tree_of().file_size, j.tree_of().folders};
            for (std::uint64_t i = 0; i < j.tree_of().files + (extra > 0 ? 1 : 0); ++i) {
                if (extra < 0 && i == 7) continue;
                const std::span<const std::byte> b = j.records->at(std::min(i, j.tree_of().files - 1));
                std::ofstream(j.dst + "/" + tree_file(t, i))
                    .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
            }
        };
        const CaseResult r = run_case(tree_case(s), opts, dir);
        EXPECT_EQ(r.status, Status::failed) << extra;
        EXPECT_NE(r.reason.find(extra < 0 ? "36 of 37 files" : "38 entries"), std::string::npos) << r.reason;
    }
}

// A writer that claims an fsync of each file and makes none fails, with the count; the real one
// (files.write-fsync-each) makes one a file and passes.
TEST(Files, AWriterThatClaimsAnFsyncEachAndSkipsItFails) {
    ScratchDir dir;
    const RunOptions opts = test::three_iterations();
    Strategy lazy = *Registry::builtin().find("files.write-create");
    lazy.syncs = 1;
    const CaseResult bad = run_case(tree_case(lazy), opts, dir);
    EXPECT_EQ(bad.status, Status::failed);
    EXPECT_NE(bad.reason.find("0 sync calls (fsync, fdatasync) for 37 files; 37 make each file durable"),
              std::string::npos)
        << bad.reason;
    const Strategy* real = Registry::builtin().find("files.write-fsync-each");
    ASSERT_NE(real, nullptr);
    EXPECT_EQ(real->syncs, 1u);
    const CaseResult good = run_case(tree_case(*real), opts, dir);
    EXPECT_EQ(good.status, Status::ok) << good.reason;
}

// Another process of the same user that can write the scratch folder puts a link in a destination:
// its first folder a link to a folder outside. No method that writes, copies or removes a tree
// follows it: each fails or works inside, and the folder outside keeps what it held and gains
// nothing (files.write-ofstream wrote its files there: 102-167 of them, in a race).
TEST(Files, NoMethodFollowsALinkInItsDestination) {
    ScratchDir dir, other;
    const std::string away = other.file("away");  // a user's folder, outside the scratch folder
    ASSERT_EQ(::mkdir(away.c_str(), 0700), 0);
    const std::string kept = away + "/kept";
    const TreeShape t{20, 100, 2};
    const Records content(DataSpec{}, t.file_size, t.files);
    lay_out_tree(dir.fd(), "src", t, content);
    int tried = 0;
    for (const Strategy* s : Registry::builtin().match("files.*")) {
        if (s->family == Family::files_read || s->skip_reason(dir.path())) continue;
        SCOPED_TRACE(s->name);
        std::ofstream(kept) << "a user's file";
        // The destination as the run would leave it (a tree, for a removal; a folder, else), with
        // d0 a link to the folder outside.
        if (s->family == Family::files_remove)
            lay_out_tree(dir.fd(), "dst", t, content);
        else
            ASSERT_EQ(::mkdirat(dir.fd(), "dst", 0700), 0);
        std::filesystem::remove_all(dir.file("dst/d0"));
        ASSERT_EQ(::symlinkat(away.c_str(), dir.fd(), "dst/d0"), 0);
        Job j;
        j.family = s->family;
        j.src = dir.at("src");
        j.dst = dir.at("dst");
        j.tree_of().files = t.files;
        j.tree_of().file_size = t.file_size;
        j.tree_of().folders = t.folders;
        j.records = &content;
        j.queue = 4;
        j.buffer = 512;
        try {
            s->run(j);
        } catch (const std::exception&) {  // refusing is right
        }
        EXPECT_EQ(test::slurp(kept), "a user's file");
        std::size_t there = 0;
        for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(away)) ++there;
        EXPECT_EQ(there, 1u) << "files made outside the scratch folder";
        for (const auto& e : std::filesystem::directory_iterator(away))
            if (e.path() != kept) std::filesystem::remove_all(e.path());
        std::filesystem::remove_all(dir.file("dst"));  // the link, not what it names
        ++tried;
    }
    EXPECT_GE(tried, 14);
}

// A read and a copy of the same tree in one group share its input (one layout, one name).
TEST(Files, AReadAndACopyOfOneTreeRunInOneGroup) {
    ScratchDir dir;
    const auto r = test::run_cli(
        "run -s files.read-openat,files.copy-threads,files.write-create --files 20 --smoke "
        "--quiet --dir " +
        dir.path() + " --json " + dir.file("r.json"));
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string json = test::slurp(dir.file("r.json"));
    EXPECT_EQ(json.find("\"status\": \"failed\""), std::string::npos) << json.substr(0, 2000);
    EXPECT_NE(json.find("files.copy-threads"), std::string::npos);
}

// A layout that fails half-way (the disk full at the 10th file) leaves nothing behind.
TEST(Files, AFailedLayoutLeavesNothing) {
    ScratchDir dir;
    const TreeShape t{30, 100, 3};
    const Records content(DataSpec{}, t.file_size, t.files);
    {
        const sys::ScopedFault full(sys::fault_at(sys::call_bit(sys::Call::write), 10, UINT64_MAX, sys::Fault::enospc));
        EXPECT_THROW(lay_out_tree(dir.fd(), "t", t, content), IoError);
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("t")));
    EXPECT_EQ(sys::faults_fired(), 1u);
}

// A signal while a large tree is laid out: the run stops, and its scratch folder (the tree in it)
// is gone.
TEST(Files, ASignalDuringTheLayoutLeavesNothing) {
    using namespace test;
    ScratchDir dir;
    const pid_t pid = spawn({"run", "-s", "files.read-openat", "--files", "200000", "--file-size", "1", "--dir",
                             dir.path(), "--json", dir.file("r.json")},
                            dir.file("out"));
    // The tree's last folder made in the run's scratch folder: the layout is under way (200,000 files
    // take a while). The probes before it (a small tree laid out and timed) come and go in scratch
    // folders of their own.
    ASSERT_TRUE(wait_until(
        [&] {
            for (const std::string& scratch : scratch_folders(dir.path())) {
                std::error_code ec;
                for (auto e = std::filesystem::directory_iterator(scratch, ec);
                     !ec && e != std::filesystem::directory_iterator(); e.increment(ec))
                    if (e->path().filename().string().starts_with("tree-") &&
                        std::filesystem::exists(e->path() / "d9", ec))
                        return true;
            }
            return false;
        },
        60s))
        << test::slurp(dir.file("out"));
    ASSERT_EQ(::kill(pid, SIGINT), 0);
    EXPECT_EQ(wait_for(pid, 60s), 130) << test::slurp(dir.file("out"));
    EXPECT_TRUE(scratch_folders(dir.path()).empty()) << "scratch folder left behind";
}

// Whether a file has an extent the filesystem has not yet allocated (delayed allocation: its data
// only in the page cache); nullopt where FIEMAP is not supported.
std::optional<bool> delayed(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    alignas(struct fiemap) char buf[sizeof(struct fiemap) + 8 * sizeof(struct fiemap_extent)] = {};
    auto* fm = reinterpret_cast<struct fiemap*>(buf);
    fm->fm_length = FIEMAP_MAX_OFFSET;
    fm->fm_extent_count = 8;
    const int r = ::ioctl(fd, FS_IOC_FIEMAP, fm);
    ::close(fd);
    if (r != 0 || fm->fm_mapped_extents == 0) return std::nullopt;
    bool any = false;
    for (unsigned i = 0; i < fm->fm_mapped_extents; ++i)
        any = any || (fm->fm_extents[i].fe_flags & FIEMAP_EXTENT_DELALLOC);
    return any;
}

// A tree laid out is on the disk before the clock, as users' trees are: no file of it waits for
// delayed allocation (removing such a file frees no blocks). A file written alone is, here, where
// the filesystem delays allocation (ext4; else the test has nothing to tell and is skipped).
TEST(Files, ATreeLaidOutIsWrittenBack) {
    ScratchDir dir;
    {
        std::ofstream(dir.file("alone")) << std::string(8192, 'x');
        const auto d = delayed(dir.file("alone"));
        if (!d || !*d) GTEST_SKIP() << "the scratch filesystem does not delay allocation here";
    }
    Workload w;
    w.family = Family::files_read;
    w.tree_of().files = 20;
    w.tree_of().file_size = 8192;
    w.tree_of().folders = 2;
    const std::string path = dir.at("tree");
    const auto in = files_kind().make_input(w, path);
    for (const char* f : {"d0/f0", "d1/f1", "d1/f19"}) {
        const auto d = delayed(path + "/" + f);
        ASSERT_TRUE(d.has_value()) << f;
        EXPECT_FALSE(*d) << f << " waits for delayed allocation";
    }
    in->remove(in->path);
}

// Laying out a large tree takes seconds before the first sample: a log says what is being made,
// and, racing, that it is outside the time budget; a small tree's run says nothing of it.
TEST(Files, LayingOutALargeTreeIsSaidBeforeItsWait) {
    ScratchDir dir;
    // What a run of files.read-openat over `files` files of 1 KiB says on stderr (a log, not a terminal).
    const auto said = [&](int files, const std::string& how) {
        const auto r = test::run_cli("run -s files.read-openat --files " + std::to_string(files) +
                                     " --file-size 1K --folders 5 --warmup 0 " + how + " --dir " + dir.path());
        EXPECT_EQ(r.status, 0) << r.err;
        return r.err;
    };
    const std::string large = said(5000, "--time-budget 1s");
    EXPECT_NE(large.find("iolab: group 1 of 1: laying out a tree of 5000 files of 1 KiB, outside the time budget\n"),
              std::string::npos)
        << large;
    // Not racing: no budget to be outside of.
    const std::string counted = said(5000, "--iterations 1");
    EXPECT_NE(counted.find("iolab: group 1 of 1: laying out a tree of 5000 files of 1 KiB\n"), std::string::npos)
        << counted;
    const std::string small = said(100, "--iterations 1");
    EXPECT_EQ(small.find("laying out"), std::string::npos) << small;
}

}  // namespace
}  // namespace iolab
