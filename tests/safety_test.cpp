// The safety promises of docs/safety.md, each proved against the real binary or library:
// symlinks, no clobbering, atomic result files, space and devices, concurrent runs, reading a
// user's file without touching it. Interruption is in interrupt_test.cpp.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <nlohmann/json.hpp>

#include "expect.hpp"
#include "iolab/core/checksum.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/sys/fault.hpp"
#include "process_support.hpp"
#include "support.hpp"

namespace iolab {
namespace {

using namespace test;

TEST(Symlinks, NothingOutsideTheScratchFolderIsTouched) {
    ScratchDir parent, outside;
    const std::string sentinel = outside.file("sentinel");
    std::ofstream(sentinel) << "keep me";
    // The parent holds links to a folder and a file outside it.
    ASSERT_EQ(::symlink(outside.path().c_str(), parent.file("link-to-folder").c_str()), 0);
    ASSERT_EQ(::symlink(sentinel.c_str(), parent.file("link-to-file").c_str()), 0);
    const auto r =
        test::run_cli("run -s read.chunk,copy.chunk --size 256K --iterations 2 --quiet --dir " + parent.path());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(test::slurp(sentinel), "keep me");
    struct stat st {};
    EXPECT_EQ(::lstat(parent.file("link-to-folder").c_str(), &st), 0);
    EXPECT_EQ(::lstat(parent.file("link-to-file").c_str(), &st), 0);
    EXPECT_TRUE(scratch_folders(parent.path()).empty());
    // --dir itself may not be a symlink.
    const auto refused = test::run_cli("run -s read.chunk --size 64K --dir " + parent.file("link-to-folder"));
    EXPECT_EQ(refused.status, 2);
    EXPECT_NE(refused.err.find("symbolic link"), std::string::npos) << refused.err;
}

// The scratch folder's parent is writable by anyone (no sticky bit): mid-run, the folder is
// renamed and a symbolic link to another folder put in its place. iolab works through the
// folder's descriptor, so the other folder is never touched, and the link is not removed.
TEST(Symlinks, SwappingTheScratchFolderMidRunReachesNothingOutside) {
    ScratchDir parent, victim, results;
    ASSERT_EQ(::chmod(parent.path().c_str(), 0777), 0);
    // The victim holds files with the names iolab uses inside its folder.
    for (const char* name :
         {"sentinel", "input-random-8388608-0.in", "lock", "copy_chunk-1.out", "write_record-syscall-0.out"})
        std::ofstream(victim.file(name)) << "keep " << name;
    const auto listing = [&] {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(victim.path()))
            out.push_back(e.path().filename().string() + "=" + test::slurp(e.path().string()));
        std::sort(out.begin(), out.end());
        return out;
    };
    const auto before = listing();
    const pid_t pid = spawn({"run", "-s", "write.record-syscall,copy.chunk,read.chunk", "--size", "8M", "--warmup", "0",
                             "--iterations", "300", "--dir", parent.path(), "--json", results.file("r.json")},
                            results.file("out"));
    ASSERT_TRUE(wait_until([&] { return writing_output(parent.path()); }, 60s)) << test::slurp(results.file("out"));
    const std::string scratch = scratch_folders(parent.path()).front();
    ASSERT_EQ(::rename(scratch.c_str(), (scratch + ".moved").c_str()), 0);
    ASSERT_EQ(::symlink(victim.path().c_str(), scratch.c_str()), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, WNOHANG), 0) << "the run ended before the swap: make it longer";
    EXPECT_EQ(wait_for(pid, 120s), 0) << test::slurp(results.file("out"));
    EXPECT_EQ(listing(), before) << "a file outside the scratch folder was created, changed or removed";
    struct stat st {};
    ASSERT_EQ(::lstat(scratch.c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link put in the folder's place was removed";
    // The renamed folder was emptied through its descriptor.
    EXPECT_TRUE(fs::is_empty(scratch + ".moved"));
    const auto j = nlohmann::json::parse(test::slurp(results.file("r.json")));
    for (const auto& c : j["cases"]) EXPECT_TRUE(c["verified"].get<bool>()) << c.dump();
    ::unlink(scratch.c_str());
    ::rmdir((scratch + ".moved").c_str());
}

TEST(NoClobber, EveryResultPathIsRefusedWhenItExists) {
    ScratchDir dir;
    for (const char* option : {"--json", "--csv", "--markdown", "--trace"}) {
        const std::string path = dir.file(std::string("existing") + option);
        std::ofstream(path) << "precious";
        const auto r = test::run_cli(std::string("run -s copy.pipelined-threads --size 64K --quiet --dir ") +
                                     dir.path() + " " + option + " " + path);
        EXPECT_EQ(r.status, 2) << option;
        EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
        EXPECT_EQ(test::slurp(path), "precious") << option;
        const auto forced =
            test::run_cli(std::string("run -s copy.pipelined-threads --size 64K --quiet --force --dir ") + dir.path() +
                          " " + option + " " + path);
        EXPECT_EQ(forced.status, 0) << forced.err;
        EXPECT_NE(test::slurp(path), "precious") << option;
    }
}

TEST(AtomicWrite, KilledBeforeTheRenameLeavesTheOldFileIntact) {
    ScratchDir dir;
    const std::string path = dir.file("result.json");
    write_file_atomically(path, "old result", false);
    const pid_t pid = ::fork();
    if (pid == 0) {
        // Die while the new content is written but not yet renamed into place.
        sys::FaultPlan plan = sys::fault_at(sys::call_bit(sys::Call::fsync), 1, 1, sys::Fault::hook);
        plan.hook = [] { ::raise(SIGKILL); };
        sys::arm_fault(plan);
        write_file_atomically(path, std::string(1 << 20, 'n'), true);
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(test::slurp(path), "old result");
}

TEST(Space, AWorkloadThatDoesNotFitIsRefusedBeforeAnythingIsCreated) {
    ScratchDir dir;
    const test::SmallTmpfs small(dir, "small", "size=4m");
    if (small.path.empty()) GTEST_SKIP() << small.why;
    const std::string& mnt = small.path;
    const auto r = test::run_cli("run -s copy.chunk --size 8M --dir " + mnt);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("not enough free space"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("is free"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_empty(mnt)) << "something was created";
}

TEST(Concurrency, TwoRunsInTheSameFolderDoNotCollide) {
    ScratchDir dir;
    const pid_t a = spawn({"run", "-s", "copy.chunk,write.record-buffered", "--size", "8M", "--iterations", "5",
                           "--dir", dir.path(), "--json", dir.file("a.json")},
                          dir.file("a.out"));
    const pid_t b = spawn({"run", "-s", "copy.chunk,write.record-buffered", "--size", "8M", "--iterations", "5",
                           "--dir", dir.path(), "--json", dir.file("b.json")},
                          dir.file("b.out"));
    EXPECT_EQ(wait_for(a, 120s), 0) << test::slurp(dir.file("a.out"));
    EXPECT_EQ(wait_for(b, 120s), 0) << test::slurp(dir.file("b.out"));
    for (const char* f : {"a.json", "b.json"}) {
        const auto j = nlohmann::json::parse(test::slurp(dir.file(f)));
        for (const auto& c : j["cases"]) EXPECT_TRUE(c["verified"].get<bool>()) << f;
    }
    EXPECT_TRUE(scratch_folders(dir.path()).empty());
}

TEST(Input, AUsersFileIsReadVerifiedAndNeverTouched) {
    ScratchDir dir;
    const std::string file = dir.file("users-data");
    write_input_file(file, parse_data_spec("text"), 3'000'001);
    struct stat before {
    }, after{};
    ASSERT_EQ(::stat(file.c_str(), &before), 0);
    const std::uint64_t sum = checksum_file(file).checksum;
    const std::string json = dir.file("r.json");
    const auto r = test::run_cli("run -s 'read.*chunk*,read.mmap-scan,read.io-uring,copy.auto,copy.chunk' --input " +
                                 file + " --cache cold --iterations 2 --quiet --dir " + dir.path() + " --json " + json);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto result = nlohmann::json::parse(test::slurp(json));  // (a range-for over a temporary's member dangles)
    for (const auto& c : result["cases"]) {
        EXPECT_EQ(c["status"], "ok") << c.dump();
        EXPECT_TRUE(c["verified"].get<bool>());
    }
    ASSERT_EQ(::stat(file.c_str(), &after), 0);
    EXPECT_EQ(checksum_file(file).checksum, sum);
    EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
    EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
    // Writes are refused, and so are devices without --allow-device.
    EXPECT_EQ(test::run_cli("run -s write.record-syscall --input " + file).status, 2);
    EXPECT_EQ(test::run_cli("run -s read.chunk --input /dev/null").status, 2);
    EXPECT_EQ(test::run_cli("run -s read.chunk --dir /dev/null").status, 2);
}

TEST(Limits, OverLargeBuffersAndQueuesAreRefusedWithTheLimit) {
    EXPECT_TRUE(test::cli_refused("run -s read.chunk --buffer 2G --size 4G", "from 1 byte to 1G"));
    EXPECT_TRUE(test::cli_refused("run -s copy.io-uring --queue 5000 --size 64M", "1 to 4096"));
    EXPECT_TRUE(test::cli_refused("run -s copy.pipelined-threads --buffer 1G --queue 4096 --size 1G",
                                  "half of this machine's memory"));
}

}  // namespace
}  // namespace iolab
