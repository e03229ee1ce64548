// Interruption (docs/safety.md): a signal in any phase stops children, removes the scratch
// folder, and leaves partial results marked so; stale folders of killed runs are named.
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
#include <set>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "iolab/core/checksum.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/sys/fault.hpp"
#include "process_support.hpp"
#include "support.hpp"

namespace iolab {
namespace {

using namespace test;

// A suite whose first group reads 1 MiB twice and ends quickly, and whose group "second" keeps dd
// busy copying one byte per call: `strategies` (a TOML list) over a file of `size`, `iterations` times.
std::string quick_then_dd(const char* strategies, const char* size, unsigned iterations) {
    return fmt::format(R"(
name = "quick-then-dd"
description = "a quick group, then dd copying one byte per call"
[[group]]
id = "first"
strategies = ["read.chunk"]
size = "1M"
iterations = "2"
[[group]]
id = "second"
strategies = [{}]
size = "{}"
buffer = "1"
warmup = "0"
iterations = "{}"
)",
                       strategies, size, iterations);
}

// A signal arrives while a child process (dd, for a long time) is running.
const std::string kLongSuite = quick_then_dd(R"("copy.dd")", "32M", 50);

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
    // The quick case completed; the cut one had measured nothing yet, so it is not there.
    ASSERT_EQ(j["cases"].size(), 1u);
    EXPECT_EQ(j["cases"][0]["strategy"], "read.chunk");
    EXPECT_FALSE(j["groups"][0]["partial"].get<bool>());
    EXPECT_TRUE(j["groups"][1]["partial"].get<bool>());
}

// A signal while pg_test_fsync runs, after the cases: the message says the result files are
// marked partial, and they are (they said "partial": false).
TEST(Interrupt, ASignalWhileThePeerRunsMarksTheFilesPartialAsItSays) {
    ScratchDir dir;
    const std::string tools = dir.file("tools");
    ASSERT_EQ(::mkdir(tools.c_str(), 0755), 0);
    const std::string started = dir.file("peer-started");
    const std::string fake = tools + "/pg_test_fsync";
    std::ofstream(fake) << "#!/bin/sh\necho $$ > " << started << ".tmp && mv " << started << ".tmp " << started
                        << "\nexec sleep 1000\n";
    ASSERT_EQ(::chmod(fake.c_str(), 0755), 0);
    const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
    ::setenv("PATH", (tools + ":" + path).c_str(), 1);
    const std::string json = dir.file("r.json");
    const pid_t pid = spawn({"run", "-s", "durable.fsync", "--record", "4K", "--count", "16", "--iterations", "1",
                             "--warmup", "0", "--dir", dir.path(), "--json", json},
                            dir.file("out"));
    ::setenv("PATH", path.c_str(), 1);
    ASSERT_TRUE(wait_until([&] { return ::access(started.c_str(), F_OK) == 0; }, 180s)) << test::slurp(dir.file("out"));
    ASSERT_EQ(::kill(pid, SIGTERM), 0);
    EXPECT_EQ(wait_for(pid, 30s), 143) << test::slurp(dir.file("out"));
    const std::string said = test::slurp(dir.file("out"));
    EXPECT_NE(said.find("the result files are marked partial"), std::string::npos) << said;
    const auto j = nlohmann::json::parse(test::slurp(json));
    EXPECT_TRUE(j["partial"].get<bool>());
    // The peer (its pid, as it wrote it) ended with the run.
    const int peer = std::stoi(test::slurp(started));
    EXPECT_TRUE(wait_until(
        [&] {
            const std::string stat = test::slurp(fmt::format("/proc/{}/stat", peer));
            const std::size_t close = stat.rfind(')');
            return stat.empty() || (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z');
        },
        20s))
        << "the peer " << peer << " outlived the run";
}

TEST(Interrupt, SigintStopsChildrenRemovesScratchWritesPartialJson) { interrupt_with(SIGINT, 130); }
TEST(Interrupt, SigtermLikewiseWithItsOwnStatus) { interrupt_with(SIGTERM, 143); }

// The group a signal cuts short keeps what it measured: its second group measures a quick read and
// a slow dd copy in the same rounds, and the signal comes once dd's second run has begun (so the
// read has been measured at least once).
const std::string kCutSuite = quick_then_dd(R"("read.mmap-scan", "copy.dd")", "2M", 20);

TEST(Interrupt, TheGroupASignalCutsShortKeepsItsMeasuredCasesMarkedPartial) {
    ScratchDir dir;
    const std::string suite = dir.file("cut.toml");
    std::ofstream(suite) << kCutSuite;
    const std::string json = dir.file("r.json");
    const pid_t pid = spawn({"run", "--suite-file", suite, "--dir", dir.path(), "--json", json}, dir.file("out"));
    // dd's runs of the 2 MiB input (not its probe's page), each a process of its own.
    std::set<int> seen;
    ASSERT_TRUE(wait_until(
        [&] {
            for (int p : pids_mentioning({"bs=1", "input-random-2097152"})) seen.insert(p);
            return seen.size() >= 2;
        },
        300s))
        << test::slurp(dir.file("out"));
    ASSERT_EQ(::kill(pid, SIGINT), 0);
    EXPECT_EQ(wait_for(pid, 60s), 130) << test::slurp(dir.file("out"));
    const auto j = nlohmann::json::parse(test::slurp(json));
    EXPECT_TRUE(j["partial"].get<bool>());
    EXPECT_FALSE(j["groups"][0]["partial"].get<bool>());
    EXPECT_TRUE(j["groups"][1]["partial"].get<bool>());
    bool read = false;
    for (const auto& c : j["cases"]) {
        if (c["group"] != "second") continue;
        EXPECT_EQ(c["status"], "ok") << c.dump();
        EXPECT_EQ(c["stopped"], "interrupted") << c.dump();
        EXPECT_GE(c["samples"].size(), 1u) << c.dump();
        read = read || c["strategy"] == "read.mmap-scan";
    }
    EXPECT_TRUE(read) << "the second group's measured read is missing: " << j["cases"].dump();
    // Every output it was asked for says so: the terminal too.
    EXPECT_NE(test::slurp(dir.file("out")).find("PARTIAL"), std::string::npos) << test::slurp(dir.file("out"));
}

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

}  // namespace
}  // namespace iolab
