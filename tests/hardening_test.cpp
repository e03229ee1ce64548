// Result paths checked as a set before a run, the space check with --input, and a suite file
// that is a FIFO: each refused up front, nothing written. Scratch folders that clean removes only
// when it can prove them iolab's; children that die with iolab; settings the machine cannot
// honour; inputs that fail whole.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "expect.hpp"
#include "iolab/core/checksum.hpp"
#include "iolab/core/interrupt.hpp"
#include "iolab/core/process.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/report/read/read.hpp"
#include "iolab/session/session.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/fault.hpp"
#include "iolab/sys/reserve.hpp"
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
    ScratchDir dir;
    const test::SmallTmpfs small(dir, "small", "size=8m");
    if (small.path.empty()) GTEST_SKIP() << small.why;
    const std::string input = dir.file("input");
    write_input_file(input, DataSpec{}, 12u << 20);
    EXPECT_TRUE(test::cli_refused("run -s copy.chunk --input " + input + " --quiet --dir " + small.path,
                                  "not enough free space"));
}

// --- scratch folders: only what iolab can prove its own is removed ---

// A scratch folder made in a child process that then ends without removing it, as a killed run
// leaves it (kept with --keep, when asked). Its path.
std::string left_by_a_child(const std::string& parent, bool kept) {
    int p[2];
    if (::pipe(p) != 0) return {};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(p[0]);
        std::string path;
        try {
            ScratchDir s(parent);
            s.keep(true);  // the destructor must not run; _exit below
            if (!kept) ::unlinkat(s.fd(), "kept", 0);
            path = s.path();
        } catch (...) {
        }
        [[maybe_unused]] auto n = ::write(p[1], path.data(), path.size());
        ::_exit(0);
    }
    ::close(p[1]);
    std::string path;
    char buf[512];
    for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) path.append(buf, static_cast<std::size_t>(n));
    ::close(p[0]);
    ::waitpid(pid, nullptr, 0);
    return path;
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

// The probe of the issue: a folder of the user's named like iolab's, old, unlocked.
TEST(Clean, OnlyFoldersProvenIolabsAreRemovedAndTheOthersAreNamed) {
    ScratchDir dir;
    const std::string backup = dir.file("iolab.backup");  // mode 0755 (umask 022), data inside
    ASSERT_EQ(::mkdir(backup.c_str(), 0755), 0);
    ASSERT_EQ(::chmod(backup.c_str(), 0755), 0);
    std::ofstream(backup + "/f") << "data";
    const std::string bare = dir.file("iolab.abc123");  // mode 0700, but no marker
    ASSERT_EQ(::mkdir(bare.c_str(), 0700), 0);
    std::ofstream(bare + "/f") << "data";
    const std::string forged = dir.file("iolab.def456");  // a marker and a lock that disagree
    ASSERT_EQ(::mkdir(forged.c_str(), 0700), 0);
    std::ofstream(forged + "/.iolab-scratch") << "iolab scratch folder\nid " << std::string(32, 'a') << "\n";
    std::ofstream(forged + "/lock") << "pid 1 started 2000-01-01T00:00:00Z\nid " << std::string(32, 'b') << "\n";
    const std::string stale = left_by_a_child(dir.path(), false);
    ASSERT_FALSE(stale.empty());
    ScratchDir live(dir.path());
    for (const char* name : {"iolab.backup", "iolab.abc123", "iolab.def456"}) {
        const std::string path = dir.file(name);
        ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
        const timespec old[2] = {{::time(nullptr) - 7200, 0}, {::time(nullptr) - 7200, 0}};
        ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), old, 0), 0);
    }
    // A run names only the stale one.
    auto r = run_cli("run -s read.chunk --size 64K --iterations 2 --quiet --dir " + dir.path());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("1 scratch folder(s)"), std::string::npos) << r.err;
    r = run_cli("clean --dir " + dir.path());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("removed " + stale), std::string::npos) << r.out;
    EXPECT_FALSE(exists(stale));
    EXPECT_NE(r.out.find("not iolab's, not touched: " + backup + ": its mode is 0755, not 0700"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("not iolab's, not touched: " + bare + ": it has no .iolab-scratch"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("not iolab's, not touched: " + forged + ": its lock does not name"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("in use  " + live.path()), std::string::npos) << r.out;
    for (const auto& kept : {backup, bare, forged})
        EXPECT_EQ(test::slurp(kept + "/f").substr(0, 4), kept == forged ? "" : "data");
    EXPECT_TRUE(exists(live.file("lock")));
}

// A folder clean cannot empty (here a mount point inside it, as root) keeps its proof: the next
// clean still knows it for iolab's, and removes it once it can.
TEST(Clean, AFolderThatCannotBeEmptiedStaysProven) {
    if (::geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
    ScratchDir dir;
    const std::string stale = left_by_a_child(dir.path(), false);
    ASSERT_FALSE(stale.empty());
    const std::string busy = stale + "/mounted";
    ASSERT_EQ(::mkdir(busy.c_str(), 0700), 0);
    if (::mount("tmpfs", busy.c_str(), "tmpfs", 0, "size=1m") != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
    std::ofstream(stale + "/data") << "x";
    // What the mount holds is not clean's: a bind mount of a folder elsewhere would be that folder.
    std::ofstream(busy + "/elsewhere") << "keep";
    auto r = run_cli("clean --dir " + dir.path());
    EXPECT_EQ(test::slurp(busy + "/elsewhere"), "keep");
    EXPECT_EQ(r.status, 1) << "a folder left is a failure of clean";
    EXPECT_EQ(r.out.find("nothing to remove"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("left    " + stale), std::string::npos) << r.out;
    EXPECT_TRUE(exists(stale + "/.iolab-scratch"));
    EXPECT_FALSE(exists(stale + "/data"));
    ::umount(busy.c_str());
    r = run_cli("clean --dir " + dir.path());
    EXPECT_NE(r.out.find("removed " + stale), std::string::npos) << r.out;
    EXPECT_FALSE(exists(stale));
}

// A filesystem mounted inside a run's scratch folder while it runs: the run removes the rest, keeps
// the folder's marker and lock (it stays proven iolab's), and says what stayed; clean names it, and
// once it is unmounted removes the folder.
TEST(Clean, AMountMadeInARunsFolderIsNamedAndTheFolderStaysProven) {
    if (::geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
    ScratchDir parent;
    const Session session(
        parse_suite("name = \"m\"\ndescription = \"m\"\n[defaults]\nsize = \"64K\"\niterations = \"2\"\n[[group]]\n"
                    "id = \"g\"\nstrategies = [\"read.chunk\"]\n",
                    "m.toml"));
    SessionSettings settings;
    settings.scratch_parent = parent.path();
    settings.limits = settings.peers = false;
    std::string folder, mnt;
    bool mounted = false;
    settings.on_case = [&](std::size_t, std::size_t, const CaseSpec&, double) {
        if (!folder.empty()) return;
        for (const auto& e : std::filesystem::directory_iterator(parent.path()))
            if (e.path().filename().string().starts_with("iolab.")) folder = e.path().string();
        mnt = folder + "/mnt";
        mounted = ::mkdir(mnt.c_str(), 0700) == 0 && ::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=1m") == 0;
    };
    const iolab::Run run = session.run(settings);
    ASSERT_FALSE(folder.empty()) << "no case was measured";
    if (!mounted) GTEST_SKIP() << "cannot mount a tmpfs here";
    EXPECT_EQ(run.scratch_left, folder);
    EXPECT_EQ(run.left, std::vector<std::string>{"'mnt' is a mount point"});
    EXPECT_TRUE(run.left_proven);
    EXPECT_TRUE(exists(folder + "/.iolab-scratch"));
    EXPECT_TRUE(exists(folder + "/lock"));
    std::vector<std::string> inside;
    for (const auto& e : std::filesystem::directory_iterator(folder)) inside.push_back(e.path().filename());
    std::sort(inside.begin(), inside.end());
    EXPECT_EQ(inside, (std::vector<std::string>{".iolab-scratch", "lock", "mnt"}));
    auto r = run_cli("clean --dir " + parent.path());
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("left    " + folder), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("could not be removed whole: 'mnt' is a mount point"), std::string::npos) << r.out;
    ::umount(mnt.c_str());
    r = run_cli("clean --dir " + parent.path());
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("removed " + folder), std::string::npos) << r.out;
    EXPECT_FALSE(exists(folder));
}

// A tree keeps a descriptor for each folder: the soft limit is raised to the hard one, and a case
// that needs more than the hard one is refused before anything is made (a run of 1,100 folders
// under the usual 1,024 failed 24 cases with EMFILE after 57 s).
TEST(Limits, ATreeOfMoreFoldersThanTheProcessMayOpenIsRefusedUpFront) {
    struct rlimit rl {};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 1024) GTEST_SKIP() << "the hard limit is " << rl.rlim_max;
    ScratchDir dir;
    const std::string run = std::string(IOLAB_BINARY) +
                            " run -s files.read-openat --files 200 --folders 100 --iterations 2 --quiet --dir " +
                            dir.path();
    const std::string raised = dir.file("raised"), refused = dir.file("refused");
    int status = std::system(("sh -c 'ulimit -Sn 64 && exec " + run + "' >" + raised + " 2>&1").c_str());
    EXPECT_EQ(status, 0) << test::slurp(raised);
    status = std::system(("sh -c 'ulimit -n 64 && exec " + run + "' >" + refused + " 2>&1").c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2) << test::slurp(refused);
    // 100 folders, a queue of 8, 8 of the strategy's own and 64 of the process's.
    EXPECT_EQ(test::slurp(refused),
              "iolab: files.read-openat buffer=64K files=200 file_size=4K folders=100 would hold about 180 files open "
              "at once (a descriptor for each of its "
              "folders, twice for a copy, for each job); this process may open 64 (ulimit -n, hard limit 64): "
              "fewer --folders or --jobs, or a higher limit\n");
    // A copy holds two files for each in flight.
    const std::string copy = "sh -c 'ulimit -n 100 && exec " + std::string(IOLAB_BINARY) +
                             " run -s files.copy-io-uring --files 100 --folders 1 --queue 20 --iterations 2 --quiet "
                             "--dir " +
                             dir.path() + "' >" + refused + " 2>&1";
    status = std::system(copy.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2) << test::slurp(refused);
    EXPECT_NE(test::slurp(refused).find("this process may open 100"), std::string::npos) << test::slurp(refused);
}

// A kind says what its descriptors are and what makes them fewer: a replacement holds a few whatever
// its settings, so only fewer jobs help.
TEST(Limits, ReplacementsOfMoreJobsThanTheProcessMayOpenAreRefusedInTheirKindsWords) {
    struct rlimit rl {};
    ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 1024) GTEST_SKIP() << "the hard limit is " << rl.rlim_max;
    ScratchDir dir;
    const std::string refused = dir.file("refused");
    const int status = std::system(("sh -c 'ulimit -n 100 && exec " + std::string(IOLAB_BINARY) +
                                    " run -s replace.rename-fsync --count 4 --jobs 4 --iterations 1 --quiet --dir " +
                                    dir.path() + "' >" + refused + " 2>&1")
                                       .c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2) << test::slurp(refused);
    // 4 jobs of 5, 8 of the strategy's own and 64 of the process's.
    EXPECT_EQ(test::slurp(refused),
              "iolab: replace.rename-fsync jobs=4 file_size=4K would hold about 116 files open at once (the folder "
              "twice, the file being replaced, its temporary and one to read the umask, for each job); this process "
              "may open 100 (ulimit -n, hard limit 100): fewer --jobs, or a higher limit\n");
}

// fio holds a few files of the tree open at once (--openfiles), not every file: a tree of more files
// than the process may open is read whole (by default fio opened all 20,000 and stopped at 19,989).
TEST(Limits, FioReadsATreeOfMoreFilesThanTheProcessMayOpen) {
    if (std::system("command -v fio >/dev/null 2>&1") != 0) GTEST_SKIP() << "fio is not installed";
    ScratchDir dir;
    const std::string out = dir.file("out"), json = dir.file("run.json");
    const std::string cmd = "sh -c 'ulimit -n 100 && exec " + std::string(IOLAB_BINARY) +
                            " run -s files.read-fio --files 300 --folders 2 --iterations 2 --quiet --json " + json +
                            " --dir " + dir.path() + "' >" + out + " 2>&1";
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << test::slurp(out);
    const auto j = nlohmann::json::parse(test::slurp(json));
    ASSERT_EQ(j["cases"].size(), 1u) << j.dump();
    // Its byte count checked: every byte of the 300 files read (a short count fails the case).
    EXPECT_EQ(j["cases"][0]["status"], "ok") << j.dump();
    EXPECT_EQ(j["cases"][0]["verification"], "byte count") << j.dump();
    EXPECT_EQ(j["cases"][0]["samples"].size(), 2u) << j.dump();
}

// A filesystem short of inodes: the refusal says the trees' need and the margin besides it.
TEST(Limits, TooFewInodesAreRefusedSayingTheWholeNeed) {
    if (::geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
    ScratchDir dir;
    const std::string mnt = dir.file("few-inodes");
    ASSERT_EQ(::mkdir(mnt.c_str(), 0700), 0);
    if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=64m,nr_inodes=500") != 0)
        GTEST_SKIP() << "cannot mount a tmpfs here";
    const auto r = run_cli("run -s files.read-openat --files 200 --dir " + mnt);
    ::umount(mnt.c_str());
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(
        r.err.find("the files of its cases need 211 and the run 1000 more besides (1211 in all), and 499 are free"),
        std::string::npos)
        << r.err;
}

// One iteration is measured whatever the budget: a durable case of a billion synced writes is named
// before the run waits hours for it, with the estimate; an ordinary one is not.
TEST(Limits, AnIterationOfHoursIsNamedBeforeTheRunWaits) {
    ScratchDir dir;
    const auto plan_of = [](const char* record, const char* size) {
        return Session(parse_suite(fmt::format("name = \"d\"\ndescription = \"d\"\n[defaults]\nrecord = \"{}\"\n"
                                               "size = \"{}\"\n[[group]]\nid = \"g\"\nstrategies = "
                                               "[\"durable.fsync\"]\n",
                                               record, size),
                                   "d.toml"))
            .plan();
    };
    const auto notes = long_iterations(plan_of("1", "1G"), dir.path());
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_TRUE(notes[0].starts_with("durable.fsync record=1: one iteration makes 1073741824 synced writes, about "))
        << notes[0];
    EXPECT_TRUE(long_iterations(plan_of("4K", "64K"), dir.path()).empty());
}

// A count not given is sized by time: with a synced write of 1 ms, one iteration of 0.1 s is 100
// commits (not 16,384: 64M of 4K records); a count given, a case that syncs nothing and a write slower
// than the target keep theirs or the floor; the probe runs only when a case syncs.
TEST(Limits, ACountNotGivenIsSizedByTime) {
    const auto session_of = [](const std::string& extra, const char* strategies) {
        return Session(parse_suite(fmt::format("name = \"d\"\ndescription = \"d\"\n[defaults]\n{}"
                                               "[[group]]\nid = \"g\"\nstrategies = [{}]\n",
                                               extra, strategies),
                                   "d.toml"));
    };
    int probes = 0;
    const auto ms = [&] {
        ++probes;
        return 0.001;
    };
    Session sized = session_of("record = \"4K\"\n", "\"durable.fsync\", \"write.record-syscall\"");
    const auto said = sized.size_by_time(ms);
    EXPECT_EQ(probes, 1);
    ASSERT_EQ(said.size(), 1u);
    EXPECT_NE(said[0].find("at most 100 commits an iteration, not 16384"), std::string::npos) << said[0];
    for (const CaseSpec& c : sized.plan()[0]) {
        if (c.strategy->name == "durable.fsync") {
            EXPECT_EQ(c.workload.records_of().count, 100u);
            EXPECT_EQ(c.workload.bytes(), 100u * 4096);
        } else {
            EXPECT_EQ(c.workload.records_of().count, 16384u) << c.label();  // no syncs
        }
    }
    // A sweep of sizes given is the user's: each size keeps its count (both were cut to one).
    Session sweep(
        parse_suite("name = \"d\"\ndescription = \"d\"\n[defaults]\nsize = \"1M,64M\"\nrecord = \"4K\"\n"
                    "[[group]]\nid = \"g\"\nstrategies = [\"durable.fsync\"]\n",
                    "d.toml"));
    EXPECT_TRUE(sweep.size_by_time(ms).empty());
    ASSERT_EQ(sweep.plan()[0].size(), 2u);
    EXPECT_NE(sweep.plan()[0][0].workload.records_of().count, sweep.plan()[0][1].workload.records_of().count);
    Session given = session_of("record = \"4K\"\ncount = 20000\n", "\"durable.fsync\"");
    EXPECT_TRUE(given.size_by_time(ms).empty());
    EXPECT_EQ(given.plan()[0][0].workload.records_of().count, 20000u);
    Session slow = session_of("record = \"4K\"\n", "\"durable.fsync\"");
    EXPECT_EQ(slow.size_by_time([] { return 1.0; }).size(), 1u);
    EXPECT_EQ(slow.plan()[0][0].workload.records_of().count, kSizedCountFloor);
    probes = 0;
    Session reads = session_of("", "\"read.chunk\"");
    EXPECT_TRUE(reads.size_by_time(ms).empty());
    EXPECT_EQ(probes, 0);
}

// A number of files not given is sized by time like a count: with a synced write of 1 ms, a tree
// written with an fsync a file holds 100 files (not 1000); the others keep 1000, and a number of
// files given, in a group or in the suite's defaults, is kept.
TEST(Limits, ANumberOfFilesNotGivenIsSizedByTime) {
    const auto session_of = [](const std::string& defaults, const std::string& group) {
        return Session(
            parse_suite(fmt::format("name = \"f\"\ndescription = \"f\"\n[defaults]\n{}[[group]]\nid = \"g\"\n"
                                    "strategies = [\"files.write-fsync-each\", \"files.write-create\"]\n{}",
                                    defaults, group),
                        "f.toml"));
    };
    const auto ms = [] { return 0.001; };
    Session sized = session_of("", "");
    const auto said = sized.size_by_time(ms);
    ASSERT_EQ(said.size(), 1u);
    EXPECT_NE(said[0].find("at most 100 files an iteration, not 1000"), std::string::npos) << said[0];
    EXPECT_NE(said[0].find("--files sets it"), std::string::npos) << said[0];
    for (const CaseSpec& c : sized.plan()[0]) {
        const bool syncs = c.strategy->name == "files.write-fsync-each";
        EXPECT_EQ(c.workload.tree_of().files, syncs ? 100u : 1000u) << c.label();
        EXPECT_EQ(c.sized, syncs) << c.label();
    }
    // Records and files in one group: a line for each, in its own words and setting.
    Session mixed(
        parse_suite("name = \"m\"\ndescription = \"m\"\n[defaults]\nrecord = \"4K\"\n"
                    "[[group]]\nid = \"g\"\nstrategies = [\"durable.fsync\", \"files.write-fsync-each\"]\n",
                    "m.toml"));
    const auto lines = mixed.size_by_time(ms);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_NE(lines[0].find("at most 100 commits an iteration, not 16384"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("--count sets it"), std::string::npos) << lines[0];
    EXPECT_NE(lines[1].find("at most 100 files an iteration, not 1000"), std::string::npos) << lines[1];
    EXPECT_NE(lines[1].find("--files sets it"), std::string::npos) << lines[1];
    for (const auto& [defaults, group] : {std::pair<std::string, std::string>{"files = 1000\n", ""},
                                          std::pair<std::string, std::string>{"", "files = 1000\n"}}) {
        Session given = session_of(defaults, group);
        EXPECT_TRUE(given.size_by_time(ms).empty()) << defaults << group;
        for (const CaseSpec& c : given.plan()[0]) EXPECT_EQ(c.workload.tree_of().files, 1000u) << c.label();
    }
}

// A setup that cannot fit is refused before anything is made, with its estimate: a billion synced
// writes at 1 ms (a warm-up run and the first measured one, 27.8 hours each), or a tree of a
// million files at 10 ms a file (laid out, read to warm up and read once). A small plan, a time
// budget as long, or a count of iterations given (not racing: the user's wait) passes; no warm-up
// leaves the first run, a warm-up by time is at least that time, and each fork sets up again. The
// probes are asked only for what the plan holds, once.
TEST(Limits, ASetupThatCannotFitIsRefusedUpFront) {
    const auto session_of = [](const std::string& settings, const char* strategy) {
        return Session(
            parse_suite(fmt::format("name = \"s\"\ndescription = \"s\"\n[defaults]\n{}[[group]]\nid = \"g\"\n"
                                    "strategies = [\"{}\"]\n",
                                    settings, strategy),
                        "s.toml"));
    };
    int syncs = 0, files = 0;
    const SetupProbes probes{[&] {
                                 ++syncs;
                                 return 0.001;
                             },
                             [&](std::uint64_t) {
                                 ++files;
                                 return 0.01;
                             }};
    const auto refusal = [](const SetupEstimate& e, double budget) {
        try {
            check_setup(e, budget);
        } catch (const InputError& x) {
            return std::string(x.what());
        }
        return std::string();
    };
    const std::string billion = "record = \"1\"\ncount = 100000000\n";
    const SetupEstimate synced = session_of(billion, "durable.fsync").setup_estimate(probes);
    EXPECT_NEAR(synced.seconds, 2e5, 1);
    EXPECT_EQ(syncs, 1);
    EXPECT_EQ(files, 0);
    std::string why = refusal(synced, 60);
    EXPECT_NE(why.find("about 55.6 hours here beyond its time budget"), std::string::npos) << why;
    EXPECT_NE(why.find("(the longest, durable.fsync record=1, about 27.8 hours a run)"), std::string::npos) << why;
    // 55.6 hours: past the longest --time-budget (a day), which is then no way out.
    EXPECT_NE(why.find("A smaller --count or fewer cases makes it fit"), std::string::npos) << why;
    EXPECT_EQ(refusal(synced, 3e5), "");  // a budget as long
    const SetupEstimate cold = session_of(billion + "warmup = \"0\"\n", "durable.fsync").setup_estimate(probes);
    EXPECT_NEAR(cold.seconds, 1e5, 1);
    why = refusal(cold, 60);
    EXPECT_NE(why.find("beyond its time budget: the first run of each case (the longest"), std::string::npos) << why;
    EXPECT_NEAR(session_of("record = \"1\"\ncount = 1000000\nwarmup = \"5000s\"\n", "durable.fsync")
                    .setup_estimate(probes)
                    .seconds,
                6000, 1);  // 5000 s of warm-up, then a run of 1000 s
    EXPECT_NEAR(session_of(billion + "forks = 2\n", "durable.fsync").setup_estimate(probes).seconds, 4e5, 1);
    EXPECT_EQ(session_of(billion + "iterations = \"3\"\n", "durable.fsync").setup_estimate(probes).seconds, 0);

    const SetupEstimate tree = session_of("files = 1000000\n", "files.read-openat").setup_estimate(probes);
    EXPECT_EQ(files, 1);
    EXPECT_EQ(tree.files, 1000000u);
    EXPECT_NEAR(tree.seconds, 3e4, 1);
    why = refusal(tree, 60);
    EXPECT_NE(why.find("laying out 1000000 files, and the warm-ups and first run of each case"), std::string::npos)
        << why;
    EXPECT_NE(why.find("A smaller --files, fewer cases or a --time-budget as long makes it fit"), std::string::npos)
        << why;

    const SetupEstimate small = session_of("files = 100\n", "files.read-openat").setup_estimate(probes);
    EXPECT_NEAR(small.seconds, 3.0, 1e-9);
    EXPECT_EQ(refusal(small, 60), "");
}

// The probe of a tree's layout makes a small tree in its own scratch folder, times it and leaves
// nothing behind.
TEST(Limits, TheLayoutProbeLeavesNothing) {
    ScratchDir dir;
    EXPECT_GT(file_layout_seconds(dir.path(), 4096), 0);
    EXPECT_GT(file_layout_seconds(dir.path(), 1 << 20), 0);
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))  // its own marker and lock only
        EXPECT_TRUE(e.path().filename() == ".iolab-scratch" || e.path().filename() == "lock") << e.path();
}

// A scratch folder that is itself a mount (a bind mount of a folder elsewhere) is not clean's.
TEST(Clean, AFolderThatIsAMountIsNotTouched) {
    if (::geteuid() != 0) GTEST_SKIP() << "bind mounts need root";
    ScratchDir dir, elsewhere;
    const std::string stale = left_by_a_child(elsewhere.path(), false);
    const std::string name = stale.substr(stale.rfind('/') + 1), target = dir.file(name);
    ASSERT_EQ(::mkdir(target.c_str(), 0700), 0);
    if (::mount(stale.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0) GTEST_SKIP() << "cannot bind mount";
    std::ofstream(stale + "/data") << "keep";
    const auto r = run_cli("clean --dir " + dir.path());
    ::umount(target.c_str());
    EXPECT_NE(r.out.find("not iolab's, not touched: " + target + ": it is a mount point"), std::string::npos) << r.out;
    EXPECT_EQ(test::slurp(stale + "/data"), "keep");
    EXPECT_TRUE(exists(stale + "/.iolab-scratch"));
}

// A folder kept by --keep is neither called a killed run's nor removed, unless asked.
TEST(Clean, KeptFoldersAreMarkedAndRemovedOnlyWithKept) {
    ScratchDir dir;
    auto r = run_cli("run -s read.chunk --size 64K --iterations 2 --quiet --keep --dir " + dir.path());
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string kept = left_by_a_child(dir.path(), true);
    std::vector<std::string> folders;
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        if (e.path().filename().string().starts_with("iolab.")) folders.push_back(e.path().string());
    ASSERT_EQ(folders.size(), 2u);
    for (const auto& f : folders) EXPECT_TRUE(exists(f + "/kept")) << f;
    r = run_cli("run -s read.chunk --size 64K --iterations 2 --quiet --dir " + dir.path());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("killed"), std::string::npos) << r.err;
    r = run_cli("clean --dir " + dir.path());
    EXPECT_EQ(r.out.find("removed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("kept    " + kept), std::string::npos) << r.out;
    for (const auto& f : folders) EXPECT_TRUE(exists(f)) << f;
    r = run_cli("clean --kept --dir " + dir.path());
    for (const auto& f : folders) {
        EXPECT_NE(r.out.find("removed " + f), std::string::npos) << r.out;
        EXPECT_FALSE(exists(f)) << f;
    }
}

// The lock is in place only once it is held, and the marker only after it: at every step of
// making a folder, what clean does finds nothing to remove.
std::string g_parent;
std::vector<std::string> g_seen;
TEST(Clean, NoStepOfMakingAFolderLeavesItForCleanToTake) {
    ScratchDir dir;
    g_parent = dir.path();
    g_seen.clear();
    ScratchDir::on_step = [](const std::string& path) {
        for (const ScratchFolder& f : survey_scratch(g_parent, true, true)) {
            if (f.path != path) continue;
            g_seen.push_back(f.state == ScratchFolder::State::in_use    ? "in use"
                             : f.state == ScratchFolder::State::foreign ? "foreign"
                                                                        : "takeable");
            // Whatever clean can open as the lock must already be held.
            const int lock = ::open((path + "/lock").c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
            if (lock >= 0) {
                if (::flock(lock, LOCK_EX | LOCK_NB) == 0) g_seen.back() += ", lock free";
                ::close(lock);
            }
        }
    };
    {
        ScratchDir made(dir.path());
        ScratchDir::on_step = nullptr;
        EXPECT_TRUE(exists(made.file("lock")));
    }
    ScratchDir::on_step = nullptr;
    EXPECT_EQ(g_seen, (std::vector<std::string>{"foreign", "foreign", "in use"}));
}

// A FIFO named lock must not stop clean or a run.
TEST(Clean, AFifoForALockBlocksNothing) {
    ScratchDir dir;
    const std::string stale = left_by_a_child(dir.path(), false);
    ASSERT_EQ(::unlink((stale + "/lock").c_str()), 0);
    ASSERT_EQ(::mkfifo((stale + "/lock").c_str(), 0600), 0);
    // In a child with an alarm: a clean that waits on the FIFO is ended, not waited for.
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::alarm(30);
        const auto all = survey_scratch(dir.path(), true, true);
        const bool named = all.size() == 1 && all[0].path == stale && all[0].state == ScratchFolder::State::foreign &&
                           all[0].why == "its lock is not a small regular file";
        ::_exit(named ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    EXPECT_TRUE(exists(stale));
}

// --- children die with iolab ---

// Runs `check` in a child process made a subreaper, so that orphans of the processes it starts
// come back to it to be waited for; at most 60 s. Its exit status: what check returns.
template <class Check>
int in_subreaper(Check check) {
    const pid_t reaper = ::fork();
    if (reaper == 0) {
        ::alarm(60);
        ::prctl(PR_SET_CHILD_SUBREAPER, 1);
        ::_exit(check());
    }
    int status = 0;
    if (::waitpid(reaper, &status, 0) != reaper) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A tool run by a process that is then killed with SIGKILL dies with it.
TEST(Children, AToolDiesWithTheProcessThatRanIt) {
    ScratchDir dir;
    const std::string pid_file = dir.file("pid");
    const int ended = in_subreaper([&] {
        const pid_t runner = ::fork();
        if (runner == 0) {
            run_process({"sh", "-c", "echo $$; exec sleep 1000"}, pid_file);
            ::_exit(0);
        }
        while (test::slurp(pid_file).find('\n') == std::string::npos) ::usleep(10000);
        const pid_t tool = static_cast<pid_t>(std::stol(test::slurp(pid_file)));
        ::kill(runner, SIGKILL);
        ::waitpid(runner, nullptr, 0);
        int status = 0;
        if (::waitpid(tool, &status, 0) != tool) return 2;  // the orphan comes back here
        return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 1;
    });
    EXPECT_EQ(ended, 0) << "the tool outlived the process that ran it";
}

// The race where the parent is gone before the child asks to die with it: the child ends then.
TEST(Children, AChildWhoseParentIsAlreadyGoneEnds) {
    const int ended = in_subreaper([] {
        const pid_t parent = ::fork();
        if (parent == 0) {
            const pid_t me = ::getpid();
            if (::fork() == 0) {
                while (::getppid() == me) ::usleep(1000);  // until the parent is gone
                interrupt::prepare_child(me);
                ::_exit(0);  // not reached when prepare_child sees the parent gone
            }
            ::_exit(0);
        }
        ::waitpid(parent, nullptr, 0);
        int status = 0;
        const pid_t orphan = ::waitpid(-1, &status, 0);
        return orphan > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGKILL ? 0 : 1;
    });
    EXPECT_EQ(ended, 0);
}

// A memory cgroup a killed run left is removed by clean (where this process may make cgroups).
// Every iolab that makes a cgroup removes dead runs' ones beside its own, so clean runs here in a
// cgroup of the test's own, where no other process looks.
TEST(Clean, CgroupsOfRunsThatAreGoneAreRemoved) {
    std::string root, own;
    std::ifstream mounts("/proc/self/mounts");
    for (std::string dev, where, type, rest; mounts >> dev >> where >> type && std::getline(mounts, rest);)
        if (type == "cgroup2" && root.empty()) root = where;
    std::ifstream self("/proc/self/cgroup");
    for (std::string line; std::getline(self, line);)
        if (line.rfind("0::", 0) == 0) own = line.substr(3) == "/" ? "" : line.substr(3);
    const std::string mine = root + own + "/iolab-test-" + std::to_string(::getpid());
    if (root.empty() || ::mkdir(mine.c_str(), 0700) != 0) GTEST_SKIP() << "cannot make a cgroup here";
    const pid_t gone = ::fork();
    if (gone == 0) ::_exit(0);
    ::waitpid(gone, nullptr, 0);
    const std::string cg = mine + "/iolab-budget-" + std::to_string(gone) + "-1";
    ASSERT_EQ(::mkdir(cg.c_str(), 0700), 0);
    ScratchDir dir;
    const std::string out = dir.file("out");
    const pid_t cleaner = ::fork();
    if (cleaner == 0) {
        std::ofstream(mine + "/cgroup.procs") << ::getpid() << std::flush;
        if (test::slurp("/proc/self/cgroup").find("/iolab-test-") == std::string::npos) ::_exit(77);
        const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ::dup2(fd, 1);
        ::execl(IOLAB_BINARY, IOLAB_BINARY, "clean", "--dir", dir.path().c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(cleaner, &status, 0), cleaner);
    const std::string said = test::slurp(out);
    const bool removed = !exists(cg);
    ::rmdir(cg.c_str());
    ::rmdir(mine.c_str());
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) GTEST_SKIP() << "cannot move a process into a cgroup here";
    EXPECT_NE(said.find("removed cgroup " + cg), std::string::npos) << said;
    EXPECT_TRUE(removed);
}

// --- settings the machine cannot honour, paths that hide a link ---

TEST(Settings, ACacheBudgetAboveTheMachinesMemoryIsRefused) {
    const std::uint64_t memory = sys::memory_total();
    ASSERT_GT(memory, 0u);
    PlanRequest plan;
    RunOptions o;
    o.cache_budget = 2 * memory;
    try {
        check_settings(plan, o, Syntax::command_line);
        ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("more than this machine's memory, " + format_size(memory)),
                  std::string::npos)
            << e.what();
    }
    // Just above it, both figures in bytes (their short forms would read the same).
    o.cache_budget = memory + 4096;
    try {
        check_settings(plan, o, Syntax::command_line);
        ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(
                      fmt::format("{} bytes: more than this machine's memory, {} bytes", memory + 4096, memory)),
                  std::string::npos)
            << e.what();
    }
    o.cache_budget = memory / 2;
    EXPECT_NO_THROW(check_settings(plan, o, Syntax::command_line));
    ScratchDir dir;
    const auto r = run_cli("run -s read.chunk --size 64K --cache-budget 8191P --dir " + dir.path());
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("more than this machine's memory"), std::string::npos) << r.err;
}

TEST(Dir, ATrailingSlashOrDotDoesNotGetALinkPastTheCheck) {
    ScratchDir dir;
    const std::string real = dir.file("real"), link = dir.file("link");
    ASSERT_EQ(::mkdir(real.c_str(), 0700), 0);
    ASSERT_EQ(::mkdir((real + "/sub").c_str(), 0700), 0);
    ASSERT_EQ(::symlink(real.c_str(), link.c_str()), 0);
    for (const std::string& d : {link, link + "/", link + "//", link + "/.", link + "/./", link + "/sub/.."}) {
        const auto r = run_cli("run -s read.chunk --size 64K --iterations 1 --quiet --dir " + d);
        EXPECT_EQ(r.status, 2) << d << ": " << r.err;
        EXPECT_NE(r.err.find("is a symbolic link"), std::string::npos) << d << ": " << r.err;
    }
    const auto r = run_cli("run -s read.chunk --size 64K --iterations 1 --quiet --dir " + real + "/./");
    EXPECT_EQ(r.status, 0) << r.err;
    const auto nl = run_cli("run -s read.chunk --size 64K --iterations 1 --quiet --dir '" + real + "\nx'");
    EXPECT_EQ(nl.status, 2) << nl.err;
    // A C1 control, a bidi override or a byte that is not UTF-8 would reach the terminal in every
    // line that names the folder: refused like a line break.
    for (const std::string odd : {"c1\xc2\x9b", "bidi\xe2\x80\xae", "bad\xff"}) {
        ASSERT_EQ(::mkdir(dir.file(odd).c_str(), 0700), 0);
        const auto r = run_cli("run -s read.chunk --size 64K --iterations 1 --quiet --dir '" + dir.file(odd) + "'");
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_NE(r.err.find("not UTF-8"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find(odd), std::string::npos) << "shown raw: " << r.err;
    }
    // Without --dir, TMPDIR gets the same checks.
    ::setenv("TMPDIR", link.c_str(), 1);
    const auto env = run_cli("run -s read.chunk --size 64K --iterations 1 --quiet");
    ::unsetenv("TMPDIR");
    EXPECT_EQ(env.status, 2) << env.err;
    EXPECT_NE(env.err.find("invalid TMPDIR '" + link + "': it is a symbolic link"), std::string::npos) << env.err;
    EXPECT_TRUE(std::filesystem::is_empty(real + "/sub"));
}

// A reader that has gone away (iolab run | head -1) ends the run with its scratch folder
// removed: here no reader at all, so the first line iolab writes fails (before: killed by
// SIGPIPE there, its folder left, status 141).
TEST(Dir, ARunWhoseReaderGoesAwayLeavesNothing) {
    ScratchDir dir;
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    ::close(p[0]);  // nobody will ever read
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(p[1], 1);
        ::dup2(p[1], 2);
        ::execl(IOLAB_BINARY, IOLAB_BINARY, "run", "quick", "--smoke", "--dir", dir.path().c_str(),
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(p[1]);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 1) << "a write error is an error, told without a second one";
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        EXPECT_FALSE(e.path().filename().string().starts_with("iolab.")) << e.path() << " left behind";
}

// An error that quotes a huge value stays a readable line.
TEST(Errors, AnErrorQuotingAHugeValueIsCut) {
    ScratchDir dir;
    const auto r = run_cli("run -s read." + std::string(100000, 'x') + " --dir " + dir.path());
    EXPECT_EQ(r.status, 2);
    EXPECT_LT(r.err.size(), 2000u) << r.err.size();
    EXPECT_NE(r.err.find("bytes in all)"), std::string::npos) << r.err.substr(0, 300);
}

// An input that fails half-written is removed before the error: the next case that needs it
// makes it anew instead of failing with "File exists".
TEST(Inputs, AnInputThatFailsHalfWrittenIsRemoved) {
    ScratchDir dir;
    InputPool pool(dir);
    Workload w;
    w.family = Family::read;
    w.size = 3u << 20;
    {
        const sys::ScopedFault full(sys::fault_at(sys::write_calls_mask(), 2, UINT64_MAX, sys::Fault::enospc));
        try {
            pool.get(w);
            ADD_FAILURE() << "no error";
        } catch (const IoError& e) {
            EXPECT_EQ(e.code(), ENOSPC);
        }
    }
    EXPECT_FALSE(exists(dir.file(input_name(w, 0))));
    const auto in = pool.get(w);
    EXPECT_EQ(in->digest.size, w.size);
}

// --- result files: bounded in size and in the memory reading them takes ---

// The peak memory of `iolab report FILE`, in bytes (its own process, so nothing else counts), and
// its exit status in *status.
[[maybe_unused]] std::uint64_t report_peak(const std::string& file, int* exit_status = nullptr) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, 1);
        ::dup2(null, 2);
        ::execl(IOLAB_BINARY, IOLAB_BINARY, "report", file.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    rusage use{};
    if (::wait4(pid, &status, 0, &use) != pid || !WIFEXITED(status)) return 0;
    if (exit_status) *exit_status = WEXITSTATUS(status);
    if (!exit_status && WEXITSTATUS(status) != 0) return 0;
    return static_cast<std::uint64_t>(use.ru_maxrss) * 1024;
}

TEST(ResultFiles, ReadingOneTakesAtMostFourTimesItsSize) {
    ScratchDir dir;
    const std::string small = dir.file("small.json"), big = dir.file("big.json");
    ASSERT_EQ(
        run_cli("run -s read.chunk --size 64K --iterations 3 --quiet --dir " + dir.path() + " --json " + small).status,
        0);
    // Four cases of 10,000 samples each (a run at --iterations 10000): about 9 MB, made in a child
    // process so that this one stays small (a child's peak starts from its parent's size).
    const pid_t maker = ::fork();
    if (maker == 0) {
        const std::string text = test::slurp(small);
        const auto open = text.find('[', text.find("\"samples\""));
        const auto one_end = text.find('}', open);
        const std::string sample = text.substr(open + 1, one_end - open);
        std::string many = "[";
        for (int i = 0; i < 10000; ++i) many += (i ? "," : "") + sample;
        many += "]";
        const std::string with = text.substr(0, open) + many + text.substr(text.find(']', one_end) + 1);
        // The first case, four times over.
        const auto first = with.find('{', with.find("\"cases\""));
        std::size_t end = first;
        for (int depth = 0; end < with.size(); ++end) {
            depth += with[end] == '{' ? 1 : with[end] == '}' ? -1 : 0;
            if (depth == 0) break;
        }
        const std::string one = with.substr(first, end + 1 - first);
        std::string body = with.substr(0, first) + one;
        for (int i = 0; i < 3; ++i) body += "," + one;
        body += with.substr(with.find(']', end));
        std::ofstream(big) << body;
        ::_exit(0);
    }
    ASSERT_EQ(::waitpid(maker, nullptr, 0), maker);
    struct stat st {};
    ASSERT_EQ(::stat(big.c_str(), &st), 0);
    const auto size = static_cast<std::uint64_t>(st.st_size);
    ASSERT_GT(size, 8u << 20);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "a sanitizer's own memory would be counted";
#else
    const std::uint64_t base = report_peak(small), peak = report_peak(big);
    ASSERT_GT(base, 0u);
    ASSERT_GT(peak, base) << "the file of " << size << " bytes was not read";
    // The text itself is held while it is read: a measurement that does not see it sees nothing.
    EXPECT_GE(peak - base, size / 2) << "the peak does not see the file's text: " << peak << " vs " << base;
    EXPECT_LE(peak - base, 4 * size) << "reading " << size << " bytes took " << (peak - base) << " bytes";
#endif
}

// What a hostile file holds outside the samples is bounded too (at nine times its size: a replicate's
// own file, latency buckets and all, is counted at about four): a long list where none belongs,
// deep nesting, a latency in every sample.
TEST(ResultFiles, AFileThatWouldTakeMoreThanNineTimesItsSizeIsRefused) {
    ScratchDir dir;
    const std::string small = dir.file("small.json"), junk = dir.file("junk.json"), deep = dir.file("deep.json");
    ASSERT_EQ(
        run_cli("run -s read.chunk --size 64K --iterations 3 --quiet --dir " + dir.path() + " --json " + small).status,
        0);
    const std::string text = test::slurp(small);
    const auto end = text.rfind('}');
    const pid_t maker = ::fork();
    if (maker == 0) {
        std::string zeros;
        for (int i = 0; i < 8'000'000; ++i) zeros += i ? ",0" : "0";
        std::ofstream(junk) << text.substr(0, end) << ",\"junk\":[" << zeros << "]}";
        std::ofstream(deep) << text.substr(0, end) << ",\"junk\":" << std::string(100, '[') << std::string(100, ']')
                            << "}";
        ::_exit(0);
    }
    ASSERT_EQ(::waitpid(maker, nullptr, 0), maker);
    auto r = run_cli("report " + junk);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("more than nine times its size"), std::string::npos) << r.err;
    r = run_cli("report " + deep);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("nested more than 64 deep"), std::string::npos) << r.err;
    // A latency in a sample (a result file keeps the case's) is not read.
    auto j = nlohmann::json::parse(text);
    for (auto& smp : j["cases"][0]["samples"])
        smp["latency"] = {{"counts", nlohmann::json::array()}, {"max_ns", 0}, {"slices", nlohmann::json::array()}};
    EXPECT_NO_THROW(read_report_json(j.dump(), "r.json"));
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    struct stat st {};
    ASSERT_EQ(::stat(junk.c_str(), &st), 0);
    int status = -1;
    const std::uint64_t base = report_peak(small), peak = report_peak(junk, &status);
    EXPECT_EQ(status, 2);
    EXPECT_LE(peak - std::min(peak, base), 9 * static_cast<std::uint64_t>(st.st_size))
        << "refusing " << st.st_size << " bytes took " << (peak - base) << " bytes";
#endif
}

TEST(ResultFiles, AFileOver256MiBIsRefused) {
    ScratchDir dir;
    const std::string huge = dir.file("huge.json");
    std::ofstream(huge).close();
    ASSERT_EQ(::truncate(huge.c_str(), (256 << 20) + 1), 0);
    const auto r = run_cli("report " + huge);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("larger than 256 MiB"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace iolab
