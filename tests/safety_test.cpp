// The safety promises of docs/safety.md, each proved against the real binary or library:
// interruption, symlinks, no clobbering, atomic result files, space and devices, concurrent
// runs, reading a user's file without touching it.
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

#include "iolab/core/checksum.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/sys/fault.hpp"
#include "support.hpp"

namespace iolab {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// Starts `iolab ARGS...` without a shell and returns its pid.
pid_t spawn(const std::vector<std::string>& args, const std::string& out) {
    std::vector<std::string> argv = {IOLAB_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        std::vector<char*> a;
        for (auto& s : argv) a.push_back(s.data());
        a.push_back(nullptr);
        ::execv(a[0], a.data());
        ::_exit(127);
    }
    return pid;
}

// Waits up to `limit` for the process; returns its exit status (128 + signal if killed), or -1.
int wait_for(pid_t pid, std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        std::this_thread::sleep_for(20ms);
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return -1;
}

std::vector<std::string> scratch_folders(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().rfind("iolab.", 0) == 0) out.push_back(e.path().string());
    return out;
}

// Processes whose command line contains text. Processes come and go while /proc is read: one
// that is gone (its cmdline unreadable) simply does not count.
int processes_mentioning(const std::string& text) {
    int n = 0;
    std::error_code ec;
    for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const int fd = ::open((it->path() / "cmdline").c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        std::string cmd;
        char buf[4096];
        for (ssize_t r; (r = ::read(fd, buf, sizeof buf)) > 0;) cmd.append(buf, static_cast<std::size_t>(r));
        ::close(fd);
        for (char& c : cmd)
            if (c == '\0') c = ' ';
        // External tools run inside the scratch folder with relative names: their working
        // folder counts as a mention.
        char cwd[4096];
        const ssize_t len = ::readlink((it->path() / "cwd").c_str(), cwd, sizeof cwd - 1);
        const std::string where = len > 0 ? std::string(cwd, static_cast<std::size_t>(len)) : std::string();
        if (cmd.find(text) != std::string::npos || (!where.empty() && where.find(text) == 0)) ++n;
    }
    return n;
}

// Whether dir holds `folders` scratch folders, each with its lock written: set up far enough to
// be registered for removal and to name its owner.
bool scratch_locked(const std::string& dir, std::size_t folders) {
    const auto f = scratch_folders(dir);
    std::size_t with_lock = 0;
    for (const auto& p : f) with_lock += !test::slurp(p + "/lock").empty();
    return f.size() == folders && with_lock == folders;
}

// Whether a strategy in a scratch folder under dir has begun writing its output.
bool writing_output(const std::string& dir) {
    for (const auto& f : scratch_folders(dir)) {
        std::error_code ec;
        for (fs::directory_iterator it(f, ec), end; !ec && it != end; it.increment(ec))
            if (it->path().extension() == ".out" && fs::file_size(it->path(), ec) > 0) return true;
    }
    return false;
}

// A run whose iterations the syscall layer cannot cut short (libstdc++ writes 512 MiB one byte at
// a time, for seconds), in a scratch folder under dir; its output goes to dir/out.
pid_t long_write(const ScratchDir& dir, const char* out) {
    return spawn({"run", "-s", "write.byte-iostream", "--size", "512M", "--byte-slice", "0", "--iterations", "3",
                  "--warmup", "0", "--quiet", "--dir", dir.path(), "--json", dir.file("r.json")},
                 dir.file(out));
}

bool wait_until(const std::function<bool()>& cond, std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (cond()) return true;
        std::this_thread::sleep_for(20ms);
    }
    return false;
}

// A run whose first group ends quickly and whose second keeps dd busy for a long time: a
// signal then arrives while a child process is running.
const char* kLongSuite = R"(
name = "long"
description = "a quick case, then dd copying one byte per call"
[[group]]
id = "quick"
strategies = ["read.chunk"]
size = "1M"
iterations = "2"
[[group]]
id = "slow"
strategies = ["copy.dd"]
size = "32M"
buffer = "1"
warmup = "0"
iterations = "50"
)";

void interrupt_with(int sig, int expected_status) {
    ScratchDir dir;
    const std::string suite = dir.file("long.toml");
    std::ofstream(suite) << kLongSuite;
    const std::string json = dir.file("r.json");
    const pid_t pid = spawn({"run", "--suite-file", suite, "--dir", dir.path(), "--json", json}, dir.file("out"));
    // Wait for dd to be running on a file of iolab's scratch folder.
    ASSERT_TRUE(wait_until([&] { return scratch_folders(dir.path()).size() == 1; }, 20s));
    const std::string scratch = scratch_folders(dir.path()).front();
    ASSERT_TRUE(wait_until([&] { return processes_mentioning(scratch) > 0; }, 180s)) << test::slurp(dir.file("out"));
    ASSERT_EQ(::kill(pid, sig), 0);
    const int status = wait_for(pid, 30s);
    EXPECT_EQ(status, expected_status) << test::slurp(dir.file("out"));
    EXPECT_TRUE(scratch_folders(dir.path()).empty()) << "scratch folder left behind";
    EXPECT_EQ(processes_mentioning(scratch), 0) << "a child process outlived the run";
    const auto j = nlohmann::json::parse(test::slurp(json));
    EXPECT_TRUE(j["partial"].get<bool>());
    ASSERT_EQ(j["cases"].size(), 1u);  // the quick case completed; the cut one is dropped
    EXPECT_EQ(j["cases"][0]["strategy"], "read.chunk");
}

TEST(Interrupt, SigintStopsChildrenRemovesScratchWritesPartialJson) { interrupt_with(SIGINT, 130); }
TEST(Interrupt, SigtermLikewiseWithItsOwnStatus) { interrupt_with(SIGTERM, 143); }

TEST(Interrupt, SecondSigintExitsAtOnceAndStillRemovesTheScratchFolder) {
    ScratchDir dir;
    // One long iteration that the syscall layer cannot cut short: libstdc++ writes 512 MiB one
    // byte at a time.
    const pid_t pid = long_write(dir, "out");
    ASSERT_TRUE(wait_until([&] { return writing_output(dir.path()); }, 180s)) << test::slurp(dir.file("out"));
    ::kill(pid, SIGINT);
    std::this_thread::sleep_for(200ms);
    const auto t0 = std::chrono::steady_clock::now();
    ::kill(pid, SIGINT);
    const int status = wait_for(pid, 10s);
    EXPECT_EQ(status, 130);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
    EXPECT_TRUE(scratch_folders(dir.path()).empty());
    EXPECT_NE(test::slurp(dir.file("out")).find("second signal: stopped at once"), std::string::npos)
        << test::slurp(dir.file("out"));
}

// One signal ends iolab in every phase. Each run below would take minutes or never end on its
// own: the limits only tell a stopped run from one that ignored the signal.

TEST(Interrupt, ARunWithoutASafePointWithinASecondStopsAnyway) {
    ScratchDir dir;
    const pid_t pid = long_write(dir, "out");
    ASSERT_TRUE(wait_until([&] { return writing_output(dir.path()); }, 180s)) << test::slurp(dir.file("out"));
    ASSERT_EQ(::kill(pid, SIGINT), 0);
    EXPECT_EQ(wait_for(pid, 20s), 130);
    EXPECT_TRUE(scratch_folders(dir.path()).empty());
    EXPECT_NE(test::slurp(dir.file("out")).find("no safe point within a second"), std::string::npos)
        << test::slurp(dir.file("out"));
}

// SIGKILL cannot be caught: the folder it leaves is named by the next run and removed by
// iolab clean, which never touches a folder a live run holds.
TEST(StaleScratch, KilledRunsAreNamedAndCleanedLiveOnesAreLeftAlone) {
    ScratchDir dir;
    const auto long_run = [&](const char* out) { return long_write(dir, out); };
    // Its folder and the lock inside it exist (a folder without a lock is taken for stale only
    // when it is over a minute old: it may be a run still setting up).
    const pid_t killed = long_run("killed.out");
    ASSERT_TRUE(wait_until([&] { return scratch_locked(dir.path(), 1); }, 20s));
    const std::string stale = scratch_folders(dir.path()).front();
    ::kill(killed, SIGKILL);
    EXPECT_EQ(wait_for(killed, 20s), 128 + SIGKILL);
    const pid_t live = long_run("live.out");
    ASSERT_TRUE(wait_until([&] { return scratch_locked(dir.path(), 2); }, 20s));
    // A run names the stale folder and only that one.
    auto r = test::run_cli("run -s read.chunk --size 64K --iterations 6 --quiet --dir " + dir.path());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("1 scratch folder(s)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(stale.substr(stale.rfind('/') + 1)), std::string::npos) << r.err;
    r = test::run_cli("clean --dir " + dir.path());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("removed " + stale), std::string::npos) << r.out;
    const auto left = scratch_folders(dir.path());
    ASSERT_EQ(left.size(), 1u);
    EXPECT_NE(left.front(), stale);  // the live run's folder is still there
    ::kill(live, SIGTERM);
    EXPECT_EQ(wait_for(live, 20s), 143);
    EXPECT_TRUE(scratch_folders(dir.path()).empty());
}

TEST(Interrupt, AThrottledWriteStopsAtOnceWithAPartialResult) {
    ScratchDir dir;
    const std::string json = dir.file("r.json");
    // 64 KiB at one byte a second: 18 hours.
    const pid_t pid = spawn({"run", "-s", "write.record-syscall", "--size", "64K", "--record", "4K", "--throttle",
                             "1B/s", "--warmup", "0", "--iterations", "1", "--dir", dir.path(), "--json", json},
                            dir.file("out"));
    // The first 4 KiB pass (the bucket's burst); the next write waits.
    ASSERT_TRUE(wait_until([&] { return writing_output(dir.path()); }, 180s)) << test::slurp(dir.file("out"));
    ASSERT_EQ(::kill(pid, SIGTERM), 0);
    EXPECT_EQ(wait_for(pid, 20s), 143) << test::slurp(dir.file("out"));
    EXPECT_TRUE(scratch_folders(dir.path()).empty());
    const auto j = nlohmann::json::parse(test::slurp(json));
    EXPECT_TRUE(j["partial"].get<bool>());
}

TEST(Interrupt, CompareStopsAtOnce) {
    ScratchDir dir;
    // Two result files whose comparison takes many seconds (a bootstrap per case).
    nlohmann::json doc =
        nlohmann::json::parse(test::slurp(std::string(IOLAB_SOURCE_DIR) + "/tests/golden/report.json"));
    const nlohmann::json one = doc["cases"][0];
    doc["cases"] = nlohmann::json::array();
    for (int i = 0; i < 4000; ++i) {
        nlohmann::json c = one;
        c["group"] = std::to_string(i);
        c["samples"] = nlohmann::json::array();
        for (int k = 0; k < 40; ++k) {
            nlohmann::json smp = one["samples"][0];
            smp["wall_s"] = 0.001 * (1 + (k * 7919 % 97) / 1000.0);
            c["samples"].push_back(smp);
        }
        doc["cases"].push_back(c);
    }
    std::ofstream(dir.file("a.json")) << doc.dump();
    const pid_t pid = spawn({"compare", dir.file("a.json"), dir.file("a.json")}, dir.file("out"));
    std::this_thread::sleep_for(500ms);
    ASSERT_EQ(::kill(pid, SIGTERM), 0);
    EXPECT_EQ(wait_for(pid, 20s), 143) << test::slurp(dir.file("out"));
}

TEST(Interrupt, DeviceLimitStopsAtOnceAndRemovesItsScratchFolder) {
    ScratchDir dir;
    const pid_t pid = spawn({"info", "--limits", "--device", "--size", "1G", "--dir", dir.path()}, dir.file("out"));
    if (!wait_until([&] { return scratch_locked(dir.path(), 1); }, 30s)) {
        wait_for(pid, 60s);
        GTEST_SKIP() << "no device measurement here: " << test::slurp(dir.file("out"));
    }
    ASSERT_EQ(::kill(pid, SIGINT), 0);
    EXPECT_EQ(wait_for(pid, 20s), 130) << test::slurp(dir.file("out"));
    EXPECT_TRUE(scratch_folders(dir.path()).empty()) << "scratch folder left behind";
}

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
    for (const char* name : {"sentinel", "input-0.in", "lock", "copy_chunk-1.out", "write_record-syscall-0.out"})
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
    if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
    ScratchDir dir;
    const std::string mnt = dir.file("small");
    ASSERT_EQ(::mkdir(mnt.c_str(), 0700), 0);
    if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=4m") != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
    const auto r = test::run_cli("run -s copy.chunk --size 8M --dir " + mnt);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("not enough free space"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("is free"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_empty(mnt)) << "something was created";
    ::umount2(mnt.c_str(), MNT_DETACH);
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
    auto r = test::run_cli("run -s read.chunk --buffer 2G --size 4G");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("limit of 1G"), std::string::npos) << r.err;
    r = test::run_cli("run -s copy.io-uring --queue 5000 --size 64M");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("1 to 4096"), std::string::npos) << r.err;
    r = test::run_cli("run -s copy.pipelined-threads --buffer 1G --queue 4096 --size 1G");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("half of this machine's memory"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace iolab
