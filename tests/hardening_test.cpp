// Result paths checked as a set before a run, the space check with --input, and a suite file
// that is a FIFO: each refused up front, nothing written.
#include <gtest/gtest.h>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "iolab/core/checksum.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/sys/error.hpp"
#include "support.hpp"

namespace iolab {
namespace {

using test::run_cli;

TEST(ResultPaths, TheInputAndTwinResultsAreRefusedBeforeTheRun) {
    ScratchDir dir;
    const std::string input = dir.file("input");
    write_input_file(input, DataSpec{}, 256 * 1024);
    const std::uint64_t sum = checksum_file(input).checksum;
    // The input as a result, directly, or by another spelling; through a symbolic link it is
    // refused as a link (no link is ever replaced).
    ASSERT_EQ(::symlink(input.c_str(), dir.file("link.json").c_str()), 0);
    for (const std::string& result : {input, dir.file("link.json"), dir.path() + "/./input"}) {
        const auto r = run_cli("run -s read.chunk --input " + input + " --quiet --force --dir " + dir.path() +
                               " --json " + result);
        EXPECT_EQ(r.status, 2) << result;
        EXPECT_NE(r.err.find(result == dir.file("link.json") ? "it is a symbolic link" : "it is the input file"),
                  std::string::npos)
            << r.err;
    }
    EXPECT_EQ(checksum_file(input).checksum, sum);
    // Two results naming one file: refused before anything runs, with or without --force.
    for (const char* force : {"", " --force"}) {
        const auto r =
            run_cli("run -s read.chunk --size 64K --quiet --dir " + dir.path() + " --json " + dir.file("same") +
                    " --csv " + dir.path() + "/../" + dir.path().substr(dir.path().rfind('/') + 1) + "/same" + force);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find("name the same file"), std::string::npos) << r.err;
        struct stat st {};
        EXPECT_NE(::lstat(dir.file("same").c_str(), &st), 0) << "a result was written";
    }
}

TEST(ResultPaths, AReplacedFileKeepsItsModeAndOnlyRegularFilesAreReplaced) {
    ScratchDir dir;
    const std::string json = dir.file("r.json");
    std::ofstream(json) << "old";
    ASSERT_EQ(::chmod(json.c_str(), 0640), 0);
    write_file_atomically(json, "new", true);
    struct stat st {};
    ASSERT_EQ(::stat(json.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_EQ(test::slurp(json), "new");
    // A FIFO (or a device, or a folder) in its place is never replaced, even with force.
    const std::string fifo = dir.file("fifo.json");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_THROW(write_file_atomically(fifo, "x", true), IoError);
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    EXPECT_THROW(check_output_paths({{"--json", fifo}}, true), std::invalid_argument);
    // Nor is a symbolic link, to a file or to a device: the link and its target stay as they are.
    const std::string target = dir.file("target");
    std::ofstream(target) << "keep";
    ASSERT_EQ(::symlink(target.c_str(), dir.file("l.json").c_str()), 0);
    EXPECT_THROW(write_file_atomically(dir.file("l.json"), "result", true), IoError);
    ASSERT_EQ(::lstat(dir.file("l.json").c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
    EXPECT_EQ(test::slurp(target), "keep");
    EXPECT_THROW(check_output_paths({{"--json", dir.file("l.json")}}, true), std::invalid_argument);
}

// A result path that is a link to /dev/null (as /dev/stdout is a link to /proc/self/fd/1) is
// refused before the run, --force or not, and left a link; so is a file on a kernel filesystem.
TEST(ResultPaths, ALinkOrAKernelFileIsRefusedBeforeTheRun) {
    ScratchDir dir;
    const std::string link = dir.file("out.json");
    ASSERT_EQ(::symlink("/dev/null", link.c_str()), 0);
    for (const char* force : {"", " --force"}) {
        const auto r = run_cli("run -s read.chunk --size 64K --quiet --dir " + dir.path() + " --json " + link + force);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find("it is a symbolic link"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("measured"), std::string::npos) << "refused only after the run: " << r.err;
        struct stat st {};
        ASSERT_EQ(::lstat(link.c_str(), &st), 0);
        EXPECT_TRUE(S_ISLNK(st.st_mode));
    }
    // The same through `iolab report`.
    const std::string json = dir.file("r.json");
    ASSERT_EQ(
        run_cli("run -s read.chunk --size 64K --iterations 1 --quiet --dir " + dir.path() + " --json " + json).status,
        0);
    const auto r = run_cli("report " + json + " --html " + link + " --force");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("it is a symbolic link"), std::string::npos) << r.err;
    // A file of sysfs, in a folder the caller may write (root): refused for the filesystem it is on.
    const std::string knob = "/sys/kernel/mm/transparent_hugepage/enabled";
    if (::access("/sys/kernel/mm/transparent_hugepage", W_OK) != 0) GTEST_SKIP() << "no writable sysfs folder here";
    try {
        check_output_paths({{"--json", knob}}, true);
        ADD_FAILURE() << knob << " was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("sysfs"), std::string::npos) << e.what();
    }
}

TEST(SuiteFile, AFifoIsRefusedWithoutWaiting) {
    ScratchDir dir;
    const std::string fifo = dir.file("suite.toml");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto r = run_cli("run --suite-file " + fifo + " --dir " + dir.path());
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
}

// Copies from --input need room for a copy: checked before the run, on a small tmpfs.
TEST(Space, CopiesOfTheInputAreCountedUpFront) {
    if (::geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
    ScratchDir dir;
    const std::string small = dir.file("small");
    ASSERT_EQ(::mkdir(small.c_str(), 0700), 0);
    if (::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=8m") != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
    const std::string input = dir.file("input");
    write_input_file(input, DataSpec{}, 12u << 20);
    const auto r = run_cli("run -s copy.chunk --input " + input + " --quiet --dir " + small);
    ::umount(small.c_str());
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("not enough free space"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace iolab
