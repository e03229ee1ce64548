// Every strategy that goes through the syscall layer, with faults injected at its first, a
// middle and its last data call: transient faults must not change the output; hard faults
// must end in an IoError that names the call and the path, never in a claimed success.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "iolab/core/checksum.hpp"
#include "iolab/core/copy_file.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/fault.hpp"
#include "support.hpp"

namespace iolab {
namespace {

using sys::Fault;

Workload small_workload(const Strategy& s) {
    Workload w;
    w.family = s.family;
    w.size = 20000;
    w.buffer = 4096;
    if (writes_records(s.family)) {  // 20 records of 1000 bytes
        w.records_of().record = 1000;
        w.records_of().count = 20;
    }
    if (shape_of(s.family) == Shape::set) w.set_of().count = 20;  // 20 files of 4 KiB replaced
    if (is_tree(s.family)) {                                      // a tree of 20 files of 1000 bytes over 3 folders
        w.tree_of().files = 20;
        w.tree_of().file_size = 1000;
        w.tree_of().folders = 3;
    }
    if (s.family == Family::durable) {  // records O_DIRECT can write, each synced
        w.records_of().record = 4096;
        w.records_of().count = 5;
    }
    if (s.honours(kParamPattern)) {  // random 4 KiB blocks over the file, twice
        w.patterned = true;
        w.pattern = parse_pattern("random");
        w.block = 4096;
        w.ops = 10;
    }
    return w;
}

struct Tally {
    int cells = 0, correct = 0, errors = 0, skipped = 0;
    int reaimed = 0;  // cells aimed again at a run's own last call (io_uring's wait count varies)
};

// Runs the strategy with one fault at each of its first, middle and last targeted calls.
// Transient faults must leave the output correct; hard ones must end in an IoError that names
// the file, never in a claimed success.
void run_cells(const Strategy& s, Fault fault, Tally& tally, const std::string& parent = {}) {
    ScratchDir dir(parent);
    if (s.skip_reason(dir.path())) {
        tally.cells += 3;
        tally.skipped += 3;
        return;
    }
    Fixture fx(small_workload(s), dir);
    Sink sink;
    // A clean run tells how many calls there are to aim at.
    Job job = fx.job(s, sink);
    if (s.prepare) s.prepare(job);  // before the clock: a durable log laid out
    const sys::Counters before = sys::thread_counters();
    s.run(job);
    const sys::Counters made = sys::thread_counters() - before;
    ASSERT_TRUE(fx.verify(job).ok) << s.name;
    // Strategies that move data through a mapping make no data calls: aim at every call but
    // close and munmap, which run in destructors and are never faulted.
    std::uint64_t mask = sys::data_calls_mask();
    std::uint64_t calls = made.data_calls();
    if (calls == 0) {
        mask = ~(sys::call_bit(sys::Call::close) | sys::call_bit(sys::Call::munmap));
        for (std::size_t c = 0; c < sys::kCallKinds; ++c)
            if (mask & (std::uint64_t{1} << c)) calls += made.calls[c];
    }
    ASSERT_GT(calls, 0u) << s.name;

    const bool transient = fault == Fault::short_count || fault == Fault::eintr || fault == Fault::eagain;
    // The calls of the kinds aimed at, in a run's counters.
    const auto aimed = [&](const sys::Counters& c) {
        std::uint64_t n = 0;
        for (std::size_t k = 0; k < sys::kCallKinds; ++k)
            if (mask & (std::uint64_t{1} << k)) n += c.calls[k];
        return n;
    };
    for (std::uint64_t at : {std::uint64_t{1}, (calls + 1) / 2, calls}) {
        SCOPED_TRACE(s.name + " " + std::string(sys::fault_name(fault)) + " at call " + std::to_string(at) + " of " +
                     std::to_string(calls));
        ++tally.cells;
        job = fx.job(s, sink);
        if (s.prepare) s.prepare(job);
        try {
            std::uint64_t fired = 0;
            // An io_uring method makes a wait for each batch of completions, and how many are
            // ready at once is the kernel's timing: a run can make fewer calls than the clean one,
            // and never reach the call aimed at. Then the cell aims again, at that run's own last
            // call, on a fresh job (a few times at most).
            for (int attempt = 0;; ++attempt) {
                const sys::Counters start = sys::thread_counters();
                {
                    sys::ScopedFault armed(sys::fault_at(mask, at, 1, fault));
                    s.run(job);
                    fired = sys::faults_fired();
                }
                const std::uint64_t made_now = aimed(sys::thread_counters() - start);
                if (fired > 0 || made_now >= at || made_now == 0 || attempt == 5) break;
                at = made_now;
                ++tally.reaimed;
                job = fx.job(s, sink);
                if (s.prepare) s.prepare(job);
            }
            // A short count on a 1-byte or 0-byte request changes nothing; every other
            // injected fault must have been hit.
            if (fault != Fault::short_count) {
                EXPECT_EQ(fired, 1u);
            }
            EXPECT_TRUE(transient) << "the run claimed success despite " << sys::fault_name(fault);
            EXPECT_TRUE(fx.verify(job).ok) << fx.verify(job).describe();
            ++tally.correct;
        } catch (const IoError& e) {
            EXPECT_FALSE(transient) << "transient fault not absorbed: " << e.what();
            EXPECT_EQ(e.code(), fault == Fault::enospc ? ENOSPC : EIO);
            const std::string msg = e.what();
            EXPECT_TRUE(msg.starts_with("cannot ")) << msg;
            EXPECT_TRUE(msg.find(job.src) != std::string::npos || msg.find(job.dst) != std::string::npos)
                << "error does not name the file: " << msg;
            ++tally.errors;
        }
    }
}

TEST(FaultMatrix, EveryStrategyEveryFaultFirstMiddleLast) {
    Tally tally;
    int strategies = 0, outside = 0;
    for (const auto& s : Registry::builtin().all()) {
        if (!s.in_syscall_layer()) {
            ++outside;  // libstdc++ and other programs do their own calls: nothing to inject into
            continue;
        }
        ++strategies;
        for (Fault f : {Fault::short_count, Fault::eintr, Fault::eagain, Fault::enospc, Fault::eio})
            run_cells(s, f, tally);
    }
    std::printf(
        "fault matrix: %d strategies x 5 faults x 3 positions = %d cells: %d correct output, %d clear error, "
        "%d skipped (strategy unavailable here); %d strategies outside the syscall layer not faulted; %d cell(s) "
        "aimed again at a shorter run's last call\n",
        strategies, tally.cells, tally.correct, tally.errors, tally.skipped, outside, tally.reaimed);
    EXPECT_EQ(tally.cells, strategies * 15);
    EXPECT_EQ(tally.correct + tally.errors + tally.skipped, tally.cells);
    EXPECT_GT(tally.correct, 0);
    EXPECT_GT(tally.errors, 0);
}

// A copy-on-write filesystem (XFS, reflink on by default) in a loop image, mounted for the test:
// where copy.reflink runs for real. Skipped, with the reason, without root, mkfs.xfs or mount.
class CowFilesystem : public testing::Test {
protected:
    void SetUp() override {
        if (::geteuid() != 0) GTEST_SKIP() << "mounting a loop image needs root";
        if (std::system("command -v mkfs.xfs >/dev/null 2>&1") != 0)
            GTEST_SKIP() << "mkfs.xfs is not installed (Debian package xfsprogs)";
        // A mount namespace of this test process's own: should it die mid-test, the mount goes
        // with it and the loop device clears itself.
        if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
            GTEST_SKIP() << "no private mount namespace: " << std::strerror(errno);
        const std::string image = dir_.file("xfs.img");
        mount_point_ = dir_.file("xfs");
        ASSERT_EQ(::mkdir(mount_point_.c_str(), 0700), 0);
        const std::string log = dir_.file("log");
        const std::string make =
            "truncate -s 300M '" + image + "' && mkfs.xfs -q -m reflink=1 '" + image + "' >'" + log + "' 2>&1";
        if (std::system(make.c_str()) != 0) GTEST_SKIP() << "mkfs.xfs failed: " << test::slurp(log);
        const std::string mount = "mount -o loop '" + image + "' '" + mount_point_ + "' >'" + log + "' 2>&1";
        if (std::system(mount.c_str()) != 0) GTEST_SKIP() << "cannot mount the XFS image here: " << test::slurp(log);
        mounted_ = true;
    }
    void TearDown() override {
        if (mounted_) ::umount2(mount_point_.c_str(), MNT_DETACH);  // the loop device clears itself
    }
    ScratchDir dir_;
    std::string mount_point_;
    bool mounted_ = false;
};

// Whether every extent of the file is shared with another file (FIEMAP_EXTENT_SHARED); nullopt
// when FIEMAP cannot say (it failed, or the file has no extent).
std::optional<bool> all_extents_shared(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    constexpr unsigned kMax = 64;
    std::vector<char> buf(sizeof(fiemap) + kMax * sizeof(fiemap_extent));
    auto* fm = reinterpret_cast<fiemap*>(buf.data());
    fm->fm_length = FIEMAP_MAX_OFFSET;
    fm->fm_flags = FIEMAP_FLAG_SYNC;
    fm->fm_extent_count = kMax;
    const bool ok = ::ioctl(fd, FS_IOC_FIEMAP, fm) == 0 && fm->fm_mapped_extents > 0;
    ::close(fd);
    if (!ok) return std::nullopt;
    if (!(fm->fm_extents[fm->fm_mapped_extents - 1].fe_flags & FIEMAP_EXTENT_LAST)) return std::nullopt;  // > kMax
    for (unsigned i = 0; i < fm->fm_mapped_extents; ++i)
        if (!(fm->fm_extents[i].fe_flags & FIEMAP_EXTENT_SHARED)) return false;
    return true;
}

TEST_F(CowFilesystem, ReflinkAndCopyAutoShareExtentsAndVerify) {
    ScratchDir dir(mount_point_);
    for (const char* name : {"copy.reflink", "copy.auto"}) {
        const Strategy& s = *Registry::builtin().find(name);
        ASSERT_EQ(s.skip_reason(dir.path()), std::nullopt) << name;
        for (std::uint64_t size : {0u, 1u, 4095u, 4097u, (1u << 20) + 13}) {
            Workload w;
            w.family = Family::copy;
            w.size = size;
            Fixture fx(w, dir, std::string(name).substr(5) + std::to_string(size));
            Sink sink;
            const Job job = fx.job(s, sink);
            s.run(job);
            EXPECT_TRUE(fx.verify(job).ok) << name << " " << size << ": " << fx.verify(job).describe();
            // The copy shares the source's blocks: no data was copied.
            if (size > 0) {
                EXPECT_EQ(all_extents_shared(job.dst), true) << name << " " << size;
            }
            fx.remove_output();
        }
    }
    write_input_file(dir.file("src"), DataSpec{}, 1 << 20);
    const CopyResult r = copy_file(dir.file("src"), dir.file("dst"));
    EXPECT_EQ(r.methods, std::vector<CopyMethod>{CopyMethod::reflink});
    EXPECT_EQ(checksum_file(dir.file("dst")).checksum, checksum_file(dir.file("src")).checksum);
    EXPECT_EQ(all_extents_shared(dir.file("dst")), true);
    // A file written, not cloned, shares nothing: the check can fail.
    write_input_file(dir.file("other"), DataSpec{}, 1 << 20);
    EXPECT_EQ(all_extents_shared(dir.file("other")), false);
}

TEST_F(CowFilesystem, ReflinkThroughTheFaultMatrix) {
    Tally tally;
    for (Fault f : {Fault::short_count, Fault::eintr, Fault::eagain, Fault::enospc, Fault::eio})
        run_cells(*Registry::builtin().find("copy.reflink"), f, tally, mount_point_);
    EXPECT_EQ(tally.cells, 15);
    EXPECT_EQ(tally.skipped, 0);  // on ext4 all 15 are skipped
    EXPECT_EQ(tally.correct + tally.errors, 15);
    EXPECT_GT(tally.correct, 0);
    EXPECT_GT(tally.errors, 0);
}

// The calls a clean run of the strategy makes (its output verified).
sys::Counters clean_run(const Strategy& s, Fixture& fx, Sink& sink) {
    const Job job = fx.job(s, sink);
    if (s.prepare) s.prepare(job);
    const sys::Counters before = sys::thread_counters();
    s.run(job);
    const sys::Counters made = sys::thread_counters() - before;
    EXPECT_TRUE(fx.verify(job).ok) << s.name;
    return made;
}

// Calls f(strategy, fixture, sink, calls of a clean run) for every available strategy whose I/O
// goes through the syscall layer.
template <class F>
void for_each_layer_strategy(F&& f) {
    for (const auto& s : Registry::builtin().all()) {
        if (!s.in_syscall_layer()) continue;
        ScratchDir dir;
        if (s.skip_reason(dir.path())) continue;
        Fixture fx(small_workload(s), dir);
        Sink sink;
        const sys::Counters made = clean_run(s, fx, sink);
        f(s, fx, sink, made);
    }
}

// Hard faults that persist (every targeted call from the middle one on fails, as a dying disk
// would) end in an error naming the file: no hang, no retry loop, no claimed success.
TEST(FaultMatrix, PersistentHardFaultsEndInAnError) {
    int cells = 0;
    for_each_layer_strategy([&](const Strategy& s, Fixture& fx, Sink& sink, const sys::Counters& made) {
        const std::uint64_t calls = made.data_calls();
        if (calls == 0) return;  // mappings: no data calls to fail
        for (Fault f : {Fault::enospc, Fault::eio}) {
            SCOPED_TRACE(s.name + " persistent " + std::string(sys::fault_name(f)));
            ++cells;
            const Job job = fx.job(s, sink);
            if (s.prepare) s.prepare(job);
            const sys::ScopedFault armed(sys::fault_at(sys::data_calls_mask(), (calls + 1) / 2, UINT64_MAX, f));
            EXPECT_THROW(s.run(job), IoError);
        }
    });
    EXPECT_GT(cells, 20);
}

// The calls around the data: open, fsync/fdatasync, ftruncate, fallocate and an explicit close
// (destructors never fail), and io_uring's opens, closes and unlinks of a tree's files, failing
// with EIO at their first call in a strategy that makes them: an error naming the file (a close's
// naming the close), or (for a call the strategy can do without) a correct output, never a wrong
// one.
TEST(FaultMatrix, FaultsInOpenSyncTruncateAllocateAndClose) {
    using sys::Call;
    int cells = 0, errors = 0, ring_cells = 0, ring_trees = 0;
    for_each_layer_strategy([&](const Strategy& s, Fixture& fx, Sink& sink, const sys::Counters& made) {
        ring_trees += is_tree(s.family) && s.name.ends_with("-io-uring");
        for (Call c : {Call::open, Call::fsync, Call::fdatasync, Call::ftruncate, Call::fallocate, Call::close,
                       Call::uring_open, Call::uring_close, Call::uring_unlink}) {
            if (made.calls[static_cast<std::size_t>(c)] == 0) continue;
            SCOPED_TRACE(s.name + " EIO in " + std::string(sys::call_name(c)));
            ++cells;
            const bool ring = c == Call::uring_open || c == Call::uring_close || c == Call::uring_unlink;
            ring_cells += ring;
            const Job job = fx.job(s, sink);
            if (s.prepare) s.prepare(job);
            try {
                const sys::ScopedFault armed(sys::fault_at(sys::call_bit(c), 1, 1, Fault::eio));
                s.run(job);
                EXPECT_TRUE(fx.verify(job).ok) << "claimed success with a wrong output";
            } catch (const IoError& e) {
                ++errors;
                EXPECT_EQ(e.code(), EIO) << e.what();
                const std::string msg = e.what();
                EXPECT_TRUE(msg.find(job.src) != std::string::npos || msg.find(job.dst) != std::string::npos)
                    << "error does not name the file: " << msg;
                if (c == Call::close || c == Call::uring_close) {
                    EXPECT_EQ(e.op(), "close") << msg;
                }
            }
        }
    });
    std::printf("open/sync/truncate/allocate/close faults: %d cells (%d of io_uring's), %d clear errors\n", cells,
                ring_cells, errors);
    EXPECT_GT(cells, 20);
    EXPECT_GT(errors, 20);
    // Each files.*-io-uring method that ran here opens and closes (reads, writes, copies) or unlinks.
    EXPECT_GE(ring_cells, ring_trees);
}

// The result writer: a full disk or an I/O error while writing leaves the old file as it was
// and no temporary file behind.
TEST(FaultMatrix, TheResultWriterUnderEnospcAndEio) {
    for (Fault f : {Fault::enospc, Fault::eio})
        for (sys::Call c : {sys::Call::write, sys::Call::fsync}) {
            ScratchDir dir;
            const std::string path = dir.file("r.json");
            write_file_atomically(path, "old", false);
            {
                const sys::ScopedFault armed(sys::fault_at(sys::call_bit(c), 1, 1, f));
                EXPECT_THROW(write_file_atomically(path, std::string(100000, 'x'), true), IoError);
            }
            EXPECT_EQ(test::slurp(path), "old");
            int entries = 0;
            for (const auto& e : std::filesystem::directory_iterator(dir.path()))
                entries += !ScratchDir::bookkeeping(e.path().filename().string());
            EXPECT_EQ(entries, 1) << "a temporary file was left behind";
        }
}

// The iostream readers, whose calls iolab cannot fault, against a real read error: reading
// /proc/self/mem from offset 0 fails with EIO (the page at address 0 is never mapped).
TEST(IostreamReads, ARealReadErrorIsReportedNotTakenForTheEnd) {
    for (const char* name : {"read.iostream-chunk", "read.byte-iostream"}) {
        const Strategy* s = Registry::builtin().find(name);
        Sink sink;
        sink.set_mode(VerifyMode::full);
        Job job;
        job.family = Family::read;
        job.src = "/proc/self/mem";
        job.buffer = 4096;
        job.sink = &sink;
        EXPECT_THROW(s->run(job), IoError) << name << " read " << sink.bytes() << " bytes and claimed success";
    }
}

// A real full filesystem: an 8 MiB tmpfs holding the input, the rest filled with ballast but
// for 1 MiB, and a write or copy of several MiB into it.
class RealEnospc : public testing::Test {
protected:
    void SetUp() override {
        if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
        mount_point_ = dir_.file("full");
        ASSERT_EQ(::mkdir(mount_point_.c_str(), 0700), 0);
        if (::mount("tmpfs", mount_point_.c_str(), "tmpfs", 0, "size=8m") != 0)
            GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
        mounted_ = true;
    }
    void TearDown() override {
        if (mounted_) ::umount2(mount_point_.c_str(), MNT_DETACH);
    }
    // Leaves `left` bytes free on the tmpfs.
    void fill_up(const ScratchDir& d, std::uint64_t left) {
        struct statvfs st {};
        ASSERT_EQ(::statvfs(d.path().c_str(), &st), 0);
        const std::uint64_t free_bytes = st.f_bavail * st.f_frsize;
        ASSERT_GT(free_bytes, left);
        write_input_file(d.file("ballast"), DataSpec{DataKind::zeros}, free_bytes - left);
    }
    ScratchDir dir_;
    std::string mount_point_;
    bool mounted_ = false;
};

// The old files laid out, then the disk filled: every method that writes a new file before it lets
// the old one go says ENOSPC and names the file; writing in place needs no new block and succeeds.
TEST_F(RealEnospc, AReplacementThatFindsNoRoomSaysSo) {
    int checked = 0;
    for (const Strategy* s : Registry::builtin().match("replace.*")) {
        ScratchDir tmpfs(mount_point_);
        if (s->skip_reason(tmpfs.path())) continue;
        SCOPED_TRACE(s->name);
        Workload w;
        w.family = Family::replace;
        w.set_of().count = 8;
        w.set_of().file_size = 64 * 1024;
        Fixture fx(w, tmpfs);
        Sink sink;
        const Job job = fx.job(*s, sink);
        fill_up(tmpfs, 0);
        if (s->name == "replace.unsafe-in-place") {
            EXPECT_NO_THROW(s->run(job));
            EXPECT_TRUE(fx.verify(job).ok);
        } else {
            try {
                s->run(job);
                ADD_FAILURE() << "no error although the filesystem is full";
            } catch (const IoError& e) {
                EXPECT_EQ(e.code(), ENOSPC) << e.what();
                EXPECT_NE(std::string(e.what()).find(job.dst), std::string::npos) << e.what();
            }
        }
        ++checked;
    }
    EXPECT_GE(checked, 5);
}

TEST_F(RealEnospc, EveryWriteAndCopyStrategyReportsIt) {
    int checked = 0;
    for (const auto& s : Registry::builtin().all()) {
        // Reads write nothing; a removal frees space.
        if (s.family == Family::read || s.family == Family::files_read || s.family == Family::files_remove) continue;
        ScratchDir tmpfs(mount_point_);
        // A published bug writes a byte per chunk: it never fills the disk.
        if (s.skip_reason(tmpfs.path()) || !s.bug.empty()) continue;
        SCOPED_TRACE(s.name);
        Workload w;
        w.family = s.family;
        w.size = 3u << 20;
        if (writes_records(s.family)) {
            w.records_of().record = 64 * 1024;
            w.records_of().count = 48;
        }
        // Byte at a time would take long on 3 MiB under the sanitizers; 1.5 MiB still overflows.
        if (s.byte_at_a_time()) {
            w.size = 1536 * 1024;
            if (writes_records(s.family)) {
                w.records_of().record = 1024;
                w.records_of().count = 1536;
            }
        }
        if (s.honours(kParamPattern)) {  // random blocks into a laid-out file of 3 MiB
            w.patterned = true;
            w.pattern = parse_pattern("random");
            w.block = 4096;
        }
        // The old files of a set, laid out before the clock, fill the disk there: 2.3 MiB
        // (replace.* on a full disk: RealEnospc.AReplacementThatFindsNoRoomSaysSo).
        if (shape_of(s.family) == Shape::set) w.set_of().count = 600;
        if (is_tree(s.family)) {  // a tree of 600 files of 4 KiB: 2.3 MiB
            w.tree_of().files = 600;
            w.tree_of().file_size = 4096;
            w.tree_of().folders = 3;
        }
        Fixture fx(w, tmpfs);
        fill_up(tmpfs, 1u << 20);
        Sink sink;
        Job job;
        job.dst = tmpfs.at("case.out");
        try {
            // A patterned write's file is laid out before the clock: the space runs out there.
            job = fx.job(s, sink);
            if (s.prepare) s.prepare(job);
            s.run(job);
            ADD_FAILURE() << "no error although the filesystem is full";
        } catch (const IoError& e) {
            // libstdc++'s own copy reports what it likes (EIO for std::filesystem::copy_file);
            // iolab's layer must keep the kernel's errno.
            if (s.in_syscall_layer()) {
                EXPECT_EQ(e.code(), ENOSPC) << e.what();
            }
            EXPECT_NE(std::string(e.what()).find(job.dst), std::string::npos) << e.what();
        } catch (const std::runtime_error& e) {
            // An external tool's failure is its exit status and its own message; a JVM method's, the
            // exception it threw; libstdc++'s std::filesystem, its filesystem_error.
            EXPECT_FALSE(s.in_syscall_layer()) << e.what();
            EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
        }
        ++checked;
    }
    EXPECT_GT(checked, 20);
}

}  // namespace
}  // namespace iolab
