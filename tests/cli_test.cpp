// The iolab command as a user runs it: every bad input is one line naming the value, with
// exit status 2; a tiny real run writes a JSON result that agrees with itself.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "iolab/core/scratch.hpp"
#include "iolab/harness/environment.hpp"
#include "iolab/harness/limits.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/session/session.hpp"
#include "iolab/strategies/kind.hpp"
#include "iolab/strategies/strategy.hpp"
#include "support.hpp"

namespace iolab {
namespace {

using test::run_cli;

struct BadInput {
    const char* args;
    const char* mention;  // what the one-line message must name
};

class CliBadInput : public testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, OneLineNamingTheValueAndStatus2) {
    const auto r = run_cli(GetParam().args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
    EXPECT_NE(r.err.find(GetParam().mention), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliBadInput,
    testing::Values(
        BadInput{"run -s read.chunks", "read.chunk"},  // closest name suggested
        BadInput{"run -s read.chunks", "'read.chunks'"}, BadInput{"run -s 'nothing.*'", "'nothing.*'"},
        BadInput{"run nosuchsuite", "'nosuchsuite'"}, BadInput{"run -s read.chunk --size 12Q", "'12Q'"},
        BadInput{"run -s read.chunk --size -1", "'-1'"}, BadInput{"run -s read.chunk --size 0", "'0'"},
        BadInput{"run -s read.chunk --buffer 0", "'0'"},
        BadInput{"run -s read.chunk --size 4K --buffer 1M", "larger than"},
        BadInput{"run -s read.chunk --dir /nonexistent-iolab", "'/nonexistent-iolab'"},
        BadInput{"run -s read.chunk --dir /etc/passwd", "not a folder"},
        BadInput{"run -s read.chunk --json /nonexistent-iolab/r.json", "does not exist"},
        BadInput{"run -s read.chunk --cache tepid", "'tepid'"}, BadInput{"run -s read.chunk --sync often", "'often'"},
        BadInput{"run -s read.chunk --data noise", "'noise'"}, BadInput{"run -s read.chunk --iterations 0", "'0'"},
        BadInput{"run -s read.chunk --warmup soon", "'soon'"}, BadInput{"run -s read.chunk --warmup auto", "'auto'"},
        BadInput{"run -s read.chunk --verify some", "'some'"}, BadInput{"run -s read.chunk --precision 0%", "'0%'"},
        BadInput{"run -s read.chunk --precision 150%", "'150%'"}, BadInput{"run -s read.chunk --budget 5", "'5'"},
        BadInput{"run -s ''", "--strategy ''"},  // empty lists are not "everything"
        BadInput{"run -s ,", "--strategy ','"},
        BadInput{"run -s read.chunk --size ''", "--size ''"},  // nor the default
        BadInput{"run -s write.record-stdio --record 1P --count 16384",
                 "--record '1P': expected record sizes from 1 byte to 1G"},
        // A write holds a bounded pool of its records, not the file: a huge one is refused for
        // want of space, not memory.
        BadInput{"run -s write.record-reused-pieces --record 1G --count 1000000000", "free space"},
        BadInput{"run -s read.readv --buffer 1G --iov 1024 --size 1G", "in memory"},
        // 21 cases of 10,000 samples: more than a run keeps (its file would be more than iolab reads).
        BadInput{"run -s read.chunk --size 64K --buffer 1K,2K,3K,4K,5K,6K,7K,8K,9K,10K,11K,12K,13K,14K,15K,16K,17K,"
                 "18K,19K,20K,21K --iterations 10000",
                 "10000 iterations keep more samples than a run may: its 21 cases can keep 9523 each"},
        // Each of --forks children keeps its samples: 64 x 10,000 of two cases are more.
        BadInput{"run -s read.chunk --size 4K --buffer 2K,4K --iterations 10000 --forks 64",
                 "10000 iterations in each of 64 forks keep more samples than a run may: its 2 cases can keep 1562 "
                 "each"},
        BadInput{"run --suite-file /dev/zero", "not a regular file"},  // never read without end
        BadInput{"compare /dev/zero /dev/zero", "not a regular file"},
        BadInput{"run -s read.chunk --size 64K --json /dev/null --force", "a device"},
        BadInput{"run -s read.chunk --size 64K --json /tmp --force", "a folder"},
        BadInput{"run -s read.chunk --size 4P", "free"},  // no room for 4 PiB
        BadInput{"run --frobnicate", "--frobnicate"}, BadInput{"list --family sideways", "'sideways'"},
        BadInput{"report /nonexistent-iolab.json", "/nonexistent-iolab.json"},
        BadInput{"report /dev/zero", "not a regular file"}, BadInput{"report", "files"},
        BadInput{"run -s read.chunk --jobs 0", "'0'"}, BadInput{"run -s read.chunk --jobs 1,,2", "empty item"},
        BadInput{"run -s read.chunk --jobs 1e2", "'1e2'"}, BadInput{"run -s read.chunk --queue 2.0", "'2.0'"},
        BadInput{"run -s write.chain --chain 'buffer:4G>file'", "over the limit of 1G"},
        BadInput{"run -s write.chain --record 1M --count 16 --chain 'buffer:1G>file' --jobs 16", "in memory"},
        BadInput{"run -s read.chunk --input /etc/hostname --cache cold --jobs 2", "only the first would start cold"},
        BadInput{"run -s read.chunk --size 64K --html /nonexistent-iolab/r.html", "does not exist"},
        BadInput{"run -s read.chunk --jobs 2 --shared-file --stonewall", "--stonewall"},
        BadInput{"run -s read.chunk --input /etc/hostname --shared-file", "--input"},
        BadInput{"run -s read.chunk --rank-shift 1", "add --mpi"},
        BadInput{"run -s read.chunk --mpi-timeout 5s", "add --mpi"},
        BadInput{"run -s read.chunk --mpi --forks 2", "--forks"},
        BadInput{"run -s read.chunk --mpi --jobs 2 --stonewall", "--stonewall"},
        BadInput{"run -s read.chunk --mpi --input /etc/hostname", "--input"},
        BadInput{"run -s read.chunk --mpi --mpi-timeout soon", "'soon'"},
        BadInput{"run -s read.chunk --mpi --rank-shift -1", "'-1'"},
        BadInput{"run -s read.chunk --mpi --throttle 1MiB/s", "--throttle"},
        BadInput{"run -s read.chunk --jobs 2 --shared-file --data zeros", "zeros"},
        // What a mistyped word probably meant.
        BadInput{"lst", "did you mean 'list'?"}, BadInput{"run -s read.chunk --siz 1M", "did you mean '--size'?"},
        BadInput{"run qick", "did you mean 'quick'?"}, BadInput{"run -s read.chunk --time-budget 5", "'5'"},
        BadInput{"compare a.json b.json c.json", "'c.json'"}, BadInput{"--versio", "did you mean '--version'?"},
        BadInput{"-x", "unknown option '-x'"}, BadInput{"run -s read.chunk --time-budget 99999s", "at most 86400s"},
        // --time-budget with what turns racing off would do nothing.
        BadInput{"run -s read.chunk --time-budget 10s --precision 3%", "--precision"},
        BadInput{"run -s read.chunk --time-budget 10s --budget 1s", "--budget"},
        BadInput{"run -s read.chunk --time-budget 10s --iterations 5", "--iterations auto"},
        BadInput{"run -s read.chunk --time-budget 10s --smoke", "--smoke"}));

TEST(Cli, VersionNamesTheCommit) {
    const auto r = run_cli("--version");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("iolab ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("(commit "), std::string::npos) << r.out;
}

TEST(Cli, ListIsGroupedByFamilyWithTheSettingsEachTakes) {
    const auto r = run_cli("list");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto read = r.out.find("read ("), write = r.out.find("\nwrite ("), copy = r.out.find("\ncopy (");
    ASSERT_NE(read, std::string::npos) << r.out;
    ASSERT_NE(write, std::string::npos) << r.out;
    ASSERT_NE(copy, std::string::npos) << r.out;
    EXPECT_LT(read, write);
    EXPECT_LT(write, copy);
    // Every read strategy under read, before write: none of the write or copy family in between.
    const std::string reads = r.out.substr(read, write - read);
    EXPECT_EQ(reads.find("  write."), std::string::npos);
    EXPECT_EQ(reads.find("  copy."), std::string::npos);
    EXPECT_NE(reads.find("read.chunk"), std::string::npos);
    // What each takes: read.chunk a buffer, a byte-at-a-time read its slice, a patterned read its pattern.
    const auto settings_of = [&](const std::string& name) {
        const auto at = r.out.find("  " + name + " ");
        const auto line = r.out.find("settings: ", at);
        return r.out.substr(line, r.out.find('\n', line) - line);
    };
    EXPECT_EQ(settings_of("read.chunk"), "settings: --buffer");
    EXPECT_EQ(settings_of("read.byte-syscall"), "settings: --byte-slice");
    EXPECT_NE(settings_of("read.pread-ops").find("--pattern"), std::string::npos);
    EXPECT_EQ(settings_of("read.mmap-scan"), "settings: --size only");
}

TEST(Cli, ReplicateHelpNamesTheExperimentsAndTheirTime) {
    const auto r = run_cli("replicate --help");
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* suite : {"copy-basics", "buffer-sweep", "read-large", "log-writer", "compress-order"})
        EXPECT_NE(r.out.find(std::string("  ") + suite), std::string::npos) << suite << "\n" << r.out;
    EXPECT_NE(r.out.find("min (--time-budget sets the samples' part)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("plus setting up"), std::string::npos) << r.out;  // not counted in the minutes
}

// The command line refuses a setup that cannot fit before it makes anything: a billion one-byte
// synced appends (a warm-up and a first run of about 55 hours at the 100 us of a virtual disk).
// Where a synced write is too quick for that to pass an hour (a tmpfs), the run would be allowed:
// the test is skipped there rather than started.
TEST(Cli, ASetupThatCannotFitIsRefusedBeforeAnythingIsMade) {
    ScratchDir dir;
    if (2e9 * sync_seconds(dir.path()) < 10 * kMaxSetupS) GTEST_SKIP() << "synced writes too quick here";
    const auto r = run_cli("run -s durable.fsync --count 1000000000 --record 1 --dir " + dir.path());
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("setting this run up would take about"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("durable.fsync record=1"), std::string::npos) << r.err;
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))  // its own marker and lock only
        EXPECT_TRUE(e.path().filename() == ".iolab-scratch" || e.path().filename() == "lock") << e.path();
}

// With stderr not a terminal (a log, a CI job) a run says when each group is done.
TEST(Cli, ProgressIsPlainLinesWhenStderrIsAFile) {
    ScratchDir dir;
    const std::string suite = dir.file("two.toml");
    {
        std::ofstream f(suite);
        f << "name = \"two\"\ndescription = \"two groups\"\n[[group]]\nid = \"a\"\ntitle = \"first\"\n"
             "strategies = [\"read.chunk\"]\nsize = \"64K\"\niterations = \"2\"\n[[group]]\nid = \"b\"\n"
             "title = \"second\"\nstrategies = [\"read.pread-chunk\"]\nsize = \"64K\"\niterations = \"2\"\n";
    }
    const auto r = run_cli("run --suite-file " + suite + " --dir " + dir.path());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("iolab: group 1 of 2 (first): done after "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("iolab: group 2 of 2 (second): done after "), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\r'), std::string::npos) << "a terminal's progress bar in a file";
    // --quiet says nothing.
    EXPECT_TRUE(run_cli("run --suite-file " + suite + " --quiet --dir " + dir.path()).err.empty());
}

// A run that could measure nothing ends with status 1, its answer saying why (here: --cache direct
// asks for O_DIRECT, which neither strategy uses); measuring one case is an answer as ever.
TEST(Cli, ARunThatMeasuredNothingSaysWhyAndEndsWithStatus1) {
    ScratchDir dir;
    auto r =
        run_cli("run -s read.mmap-scan,read.stdio-chunk --cache direct --size 64K --iterations 2 --dir " + dir.path());
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("the answer"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("nothing was measured: every case was skipped: does not use O_DIRECT"), std::string::npos)
        << r.out;
    r = run_cli("run -s read.mmap-scan,read.stdio-chunk --size 64K --iterations 2 --dir " + dir.path());
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(r.out.find("nothing was measured"), std::string::npos) << r.out;
}

// The terminal's width: no line wider than it, the least useful columns gone first; the rows past
// the winners, the next and the slowest counted, and shown with --all.
TEST(Cli, TablesFitTheTerminalAndShowTheirWinnersFirst) {
    ScratchDir dir;
    const std::string args =
        "run -s 'read.chunk,read.pread-chunk,read.stdio-chunk,read.byte-syscall' --size 256K "
        "--buffer 4K,64K --byte-slice 16K --iterations 6 --dir " +
        dir.path();
    const auto glyphs = [](const std::string& line) {
        return static_cast<std::size_t>(
            std::count_if(line.begin(), line.end(), [](char c) { return (c & 0xC0) != 0x80; }));
    };
    // COLUMNS under 40 draws for 40: the narrowest the tables give way to.
    for (int columns : {20, 80, 100, 120}) {
        ScratchDir io;
        const std::string cmd = "COLUMNS=" + std::to_string(columns) + " NO_COLOR=1 " + IOLAB_BINARY + " " + args +
                                " >" + io.file("out") + " 2>/dev/null";
        ASSERT_EQ(std::system(cmd.c_str()), 0);
        const std::string out = test::slurp(io.file("out"));
        std::size_t widest = 0;
        for (std::size_t at = 0; at < out.size();) {
            const std::size_t nl = out.find('\n', at);
            widest = std::max(widest, glyphs(out.substr(at, nl - at)));
            at = nl + 1;
        }
        EXPECT_LE(widest, static_cast<std::size_t>(std::max(columns, 40))) << out;
        if (columns < 40) {
            EXPECT_GT(widest, static_cast<std::size_t>(columns)) << out;
        }
        EXPECT_EQ(out.find("CPU") != std::string::npos, columns >= 120) << columns << "\n" << out;
        EXPECT_EQ(out.find("vs best") != std::string::npos, columns >= 80) << columns << "\n" << out;
        EXPECT_NE(out.find("more rows: --all, --markdown or --html"), std::string::npos) << out;
    }
    const auto all = run_cli(args + " --all");
    ASSERT_EQ(all.status, 0) << all.err;
    EXPECT_EQ(all.out.find("more rows"), std::string::npos) << all.out;
    for (const char* name : {"read.chunk", "read.pread-chunk", "read.stdio-chunk", "read.byte-syscall"})
        EXPECT_NE(all.out.find(name), std::string::npos) << name;
}

// No ranked row is above the ceiling of its kind of work by more than its interval: in a real run
// of the default suite's reads and copies (smaller), and in a smoke run, which shows no "of limit"
// at all (one sample says nothing of a ceiling).
TEST(Cli, NoRankedRowIsAboveItsCeiling) {
    ScratchDir dir;
    const auto above = [](const std::string& text) {
        std::vector<std::string> out;
        const auto j = nlohmann::json::parse(text);
        for (const auto& w : j.at("warnings"))
            if (w["kind"] == "above-limit") out.push_back(w.dump());
        return out;
    };
    const auto smoke = run_cli("run --smoke --json " + dir.file("smoke.json") + " --dir " + dir.path());
    ASSERT_EQ(smoke.status, 0) << smoke.err;
    EXPECT_EQ(smoke.out.find("of limit"), std::string::npos) << smoke.out;
    EXPECT_TRUE(above(test::slurp(dir.file("smoke.json"))).empty());
    const auto real = run_cli(
        "run -s 'read.*chunk*,read.mmap-*,read.readv,read.io-uring,read.dd,read.byte-buffered,copy.chunk,"
        "copy.copy-file-range,copy.sendfile,copy.mmap-write' --size 8M --buffer 4K,1M --byte-slice 64K --time-budget "
        "40s "
        "--json " +
        dir.file("real.json") + " --dir " + dir.path());
    ASSERT_EQ(real.status, 0) << real.err;
    const auto j = nlohmann::json::parse(test::slurp(dir.file("real.json")));
    ASSERT_TRUE(j.contains("limits")) << "no ceilings measured";
    EXPECT_TRUE(above(test::slurp(dir.file("real.json"))).empty())
        << nlohmann::json(above(test::slurp(dir.file("real.json")))).dump(1) << "\n"
        << real.out;
}

// --smoke shrinks what the command line gives too, so every command runs in seconds with it
// (the README's commands are run so); an --input file keeps its size.
TEST(Cli, SmokeShrinksTheSizesTheCommandLineGives) {
    ScratchDir dir;
    const auto r = run_cli(
        "run -s copy.chunk,read.pread-ops,files.read-openat --size 1G --ops 100000 --files 5000 --smoke --json " +
        dir.file("s.json") + " --dir " + dir.path());
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(test::slurp(dir.file("s.json")));
    ASSERT_EQ(j.at("cases").size(), 3u);
    for (const auto& c : j.at("cases")) {
        ASSERT_EQ(c.at("samples").size(), 1u) << c.at("label");
        const auto bytes = c.at("samples")[0].at("bytes").get<std::uint64_t>();
        const std::string name = c.at("strategy");
        // 256 KiB files, 256 operations of 4 KiB, 40 files of 4 KiB.
        const std::uint64_t most = name == "copy.chunk"       ? 256u << 10
                                   : name == "read.pread-ops" ? 256u * 4096
                                                              : 40u * 4096;
        EXPECT_EQ(bytes, most) << name;
    }
    write_input_file(dir.file("input"), DataSpec{DataKind::random}, 300000);
    const auto input = run_cli("run -s read.chunk --input " + dir.file("input") + " --smoke --json " +
                               dir.file("i.json") + " --dir " + dir.path());
    ASSERT_EQ(input.status, 0) << input.err;
    const auto ij = nlohmann::json::parse(test::slurp(dir.file("i.json")));
    EXPECT_EQ(ij.at("cases")[0].at("samples")[0].at("bytes").get<std::uint64_t>(), 300000u);
    // What the command line gives is shrunk so that it still fits: a stride with a block after it,
    // a byte slice given for the input kept, a tree's file size, a record.
    for (const std::string& args : std::vector<std::string>{
             "-s read.pread-ops --pattern strided:1M",
             "-s read.byte-buffered --input " + dir.file("input") + " --byte-slice 0",
             "-s files.read-openat --files 3 --file-size 1G", "-s write.record-syscall --record 1G --count 100"}) {
        const auto r2 =
            run_cli("run " + args + " --smoke --json " + dir.file("o.json") + " --force --dir " + dir.path());
        ASSERT_EQ(r2.status, 0) << args << ": " << r2.err;
        const auto oj = nlohmann::json::parse(test::slurp(dir.file("o.json")));
        EXPECT_LE(oj.at("cases")[0].at("samples")[0].at("bytes").get<std::uint64_t>(), 16u * (256u << 10)) << args;
    }
}

// `iolab` alone names the commands most people need, as git does, and each of them is one.
TEST(Cli, AloneItPrintsTheFiveUsualCommands) {
    const auto r = run_cli("");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.out.find("usage: iolab <command>"), std::string::npos) << r.out;
    int named = 0;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        if (!line.starts_with("  ")) continue;
        const std::string command = line.substr(2, line.find(' ', 2) - 2);
        EXPECT_EQ(run_cli(command + " --help").status, 0) << command << " is no command";
        ++named;
    }
    EXPECT_EQ(named, 5) << r.out;
    EXPECT_NE(r.out.find("iolab --help"), std::string::npos) << r.out;
}

TEST(Cli, ListShowsEveryStrategyAndNames) {
    const auto names = run_cli("list --names");
    ASSERT_EQ(names.status, 0);
    EXPECT_NE(names.out.find("read.mmap-chunks\n"), std::string::npos);
    EXPECT_NE(names.out.find("copy.reflink\n"), std::string::npos);
    const auto full = run_cli("list --family copy");
    ASSERT_EQ(full.status, 0);
    EXPECT_NE(full.out.find("copy.sendfile"), std::string::npos);
    EXPECT_EQ(full.out.find("read.chunk"), std::string::npos);
    EXPECT_NE(full.out.find("available"), std::string::npos);
    // Every strategy of the registry is listed, the newer families too.
    const auto& all = Registry::builtin().all();
    for (const Strategy& s : all) EXPECT_NE(names.out.find(s.name + "\n"), std::string::npos) << s.name;
    const auto trees = run_cli("list --family files --names");
    ASSERT_EQ(trees.status, 0);
    EXPECT_NE(trees.out.find("files.remove-rm\n"), std::string::npos);
    EXPECT_EQ(trees.out.find("durable."), std::string::npos);
    const auto durable = run_cli("list --family durable");
    EXPECT_NE(durable.out.find("durable.group-commit"), std::string::npos);
}

TEST(Cli, InfoDescribesTheMachine) {
    const auto r = run_cli("info");
    ASSERT_EQ(r.status, 0) << r.err;
    for (const char* k : {"kernel", "cpu", "memory", "scratch", "date"})
        EXPECT_NE(r.out.find(k), std::string::npos) << k;
}

// The scratch filesystem's options are the mount's and the filesystem's own, as mount(8) shows them:
// discard, data= or barrier= are only in the second list of mountinfo.
TEST(Cli, InfoShowsTheFilesystemsOwnMountOptions) {
    EXPECT_EQ(merge_mount_options("rw,relatime", "rw,discard,data=ordered"), "rw,relatime,discard,data=ordered");
    EXPECT_EQ(merge_mount_options("ro,noatime", ""), "ro,noatime");
    EXPECT_EQ(merge_mount_options("", "rw,barrier=0"), "barrier=0");
    // A read-only bind mount of a read-write filesystem is ro; overlayfs's folders and a security
    // label (commas inside its quotes) are not options of I/O cost.
    EXPECT_EQ(merge_mount_options("ro,relatime", "rw,lowerdir=/a:/b,upperdir=/c,workdir=/d,index=off"),
              "ro,relatime,index=off");
    EXPECT_EQ(merge_mount_options("rw", "context=\"system_u:object_r:tmp_t:s0:c1,c2\",discard"), "rw,discard");
    // And `iolab info` shows each option of the scratch folder's filesystem that mountinfo gives (its
    // super options after the separator), read here apart from iolab's code.
    ScratchDir dir;
    const auto r = run_cli("info --dir " + dir.path());
    ASSERT_EQ(r.status, 0) << r.err;
    struct stat st {};
    ASSERT_EQ(::stat(dir.path().c_str(), &st), 0);
    const std::string devno = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
    std::ifstream mountinfo("/proc/self/mountinfo");
    std::string super;
    for (std::string line; std::getline(mountinfo, line);) {
        std::istringstream in(line);
        std::string id, parent, dev, field;
        in >> id >> parent >> dev;
        if (dev != devno) continue;
        while (in >> field && field != "-") {
        }
        std::string type, source;
        in >> type >> source >> super;
    }
    if (super.empty()) GTEST_SKIP() << "no mount of the scratch folder's device " << devno << " in mountinfo";
    std::istringstream options(super);
    for (std::string o; std::getline(options, o, ',');) {
        if (o == "rw" || o == "ro" || o.find('/') != std::string::npos || o.find('"') != std::string::npos) continue;
        EXPECT_NE(r.out.find(o), std::string::npos) << o << " is missing from:\n" << r.out;
    }
}

TEST(Cli, TinyRunWritesAConsistentJsonResult) {
    ScratchDir dir;
    const std::string json = dir.file("r.json");
    const auto r = run_cli(
        "run -s read.chunk,copy.sendfile -s 'write.record-*' --size 256K --buffer 4K,64K --record 1K "
        "--iterations 3 --warmup 1 --dir " +
        dir.path() + " --json " + json + " --csv " + dir.file("r.csv") + " --markdown " + dir.file("r.md"));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("read.chunk"), std::string::npos);
    const auto j = nlohmann::json::parse(test::slurp(json));
    EXPECT_EQ(j["schema"], "iolab.result/1");
    EXPECT_FALSE(j["partial"].get<bool>());
    std::size_t cases = 0;
    for (const auto& c : j["cases"]) {
        ++cases;
        ASSERT_EQ(c["status"], "ok") << c.dump();
        EXPECT_TRUE(c["verified"].get<bool>());
        const auto& samples = c["samples"];
        ASSERT_EQ(samples.size(), 3u);
        std::vector<double> walls;
        for (const auto& s : samples) {
            walls.push_back(s["wall_s"].get<double>());
            EXPECT_EQ(s["bytes"].get<std::uint64_t>(), 256u * 1024);
        }
        std::sort(walls.begin(), walls.end());
        const auto& st = c["stats"];
        EXPECT_DOUBLE_EQ(st["median_s"].get<double>(), walls[1]);
        EXPECT_DOUBLE_EQ(st["min_s"].get<double>(), walls[0]);
        EXPECT_DOUBLE_EQ(st["max_s"].get<double>(), walls[2]);
        EXPECT_LE(st["ci999_low_s"].get<double>(), st["mean_s"].get<double>());
        EXPECT_GE(st["ci999_high_s"].get<double>(), st["mean_s"].get<double>());
        EXPECT_NEAR(st["throughput_mib_s"].get<double>(), 0.25 / walls[1], 1e-6 * 0.25 / walls[1]);
    }
    // read.chunk and copy.sendfile at 2 buffers, write.record-{syscall,new-buffer,reused-pieces,
    // iostream} at one, write.record-{buffered,stdio} at 2.
    EXPECT_EQ(cases, 2u * 2 + 4 + 2 * 2);
    // Exports are not overwritten without --force.
    const auto again = run_cli("run -s read.chunk --size 64K --dir " + dir.path() + " --json " + json);
    EXPECT_EQ(again.status, 2);
    EXPECT_NE(again.err.find("--force"), std::string::npos);
    // The scratch folder is gone.
    int leftovers = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        leftovers += e.path().filename().string().rfind("iolab.", 0) == 0;
    EXPECT_EQ(leftovers, 0);
}

// The verification mode and the iteration rule are in the header of every table and in the JSON.
TEST(Cli, VerifyModeAndIterationRuleAreReported) {
    ScratchDir dir;
    const std::string json = dir.file("r.json");
    const auto r = run_cli(
        "run -s read.chunk,read.mmap-scan --size 256K --verify full --precision 4% --budget 300ms "
        "--dir " +
        dir.path() + " --json " + json);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("verify full, warm-up 1, iterations until ±4% or 0.3 s a case"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("read (cache warm, sync none, verify full)"), std::string::npos) << r.out;
    const auto j = nlohmann::json::parse(test::slurp(json));
    EXPECT_EQ(j["options"]["verify"], "full");
    EXPECT_EQ(j["options"]["iterations"], "auto");
    EXPECT_DOUBLE_EQ(j["options"]["precision"].get<double>(), 0.04);
    for (const auto& c : j["cases"]) {
        EXPECT_EQ(c["verification"], "content");
        EXPECT_GE(c["samples"].size(), 6u);  // the fewest with a 95 % interval of the median
    }
}

TEST(Cli, KeepKeepsTheScratchFolder) {
    ScratchDir dir;
    const auto r = run_cli("run -s read.chunk --size 64K --iterations 1 --keep --quiet --dir " + dir.path());
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("scratch folder kept: " + dir.path() + "/iolab."), std::string::npos) << r.err;
}

}  // namespace
}  // namespace iolab

namespace iolab {
namespace {

// A run on a terminal (util-linux's script gives it one) draws a progress bar on stderr; piped
// or with --quiet it draws none.
TEST(Progress, ABarOnATerminalOnlyAndNeverWithQuiet) {
    ScratchDir io;
    // Writes: no memcpy reference to measure first, so the run is short even under sanitizers.
    const std::string run = std::string(IOLAB_BINARY) +
                            " run -s write.record-buffered --record 1K --count 256 --buffer 4K,64K --iterations 8";
    const auto on_tty = [&](const std::string& extra) {
        // A terminal 200 columns wide, so the label is never cut whatever the times shown.
        const std::string cmd = "script -qfec 'stty cols 200; " + run + extra + " >/dev/null' " +
                                io.file("typescript") + " >" + io.file("tty") + " 2>&1 </dev/null";
        EXPECT_EQ(std::system(cmd.c_str()), 0);
        return test::slurp(io.file("tty"));
    };
    const std::string shown = on_tty("");
    // The first line is drawn before any work is done: an empty bar, the case, the time.
    EXPECT_NE(shown.find("\u2591\u2591\u2591"), std::string::npos) << shown;
    EXPECT_NE(shown.find("/2] write.record-buffered buffer="), std::string::npos) << shown;
    EXPECT_NE(shown.find(" elapsed, "), std::string::npos) << shown;
    EXPECT_EQ(on_tty(" --quiet").find("elapsed"), std::string::npos);
    const auto piped = test::run_cli("run -s write.record-buffered --record 1K --count 256 --iterations 8");
    EXPECT_EQ(piped.status, 0);
    EXPECT_EQ(piped.err.find("elapsed"), std::string::npos) << piped.err;
}

TEST(Progress, TheLineShowsTheShareDoneTheCaseAndTheTimeLeft) {
    EXPECT_EQ(progress_line(0.5, 2, 10, "read.chunk buffer=64K", 12, 10, 200),
              "\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2591\u2591\u2591\u2591\u2591\u2591\u2591"
              "\u2591\u2591\u2591"
              "  50% [3/10] read.chunk buffer=64K  12 s elapsed, ~10 s left");
    EXPECT_NE(progress_line(0.25, 0, 4, "copy.chunk", 60, 60, 200).find("1 min 00 s elapsed, ~3 min 00 s left"),
              std::string::npos);
    EXPECT_NE(progress_line(0, 0, 4, "copy.chunk", 0, 0, 200).find("estimating the time left"), std::string::npos);
    // A narrow terminal cuts the label, never the figures.
    const std::string narrow = progress_line(0.5, 0, 4, std::string(100, 'x'), 10, 10, 70);
    EXPECT_NE(narrow.find("x\u2026  10 s elapsed, ~10 s left"), std::string::npos) << narrow;
    std::size_t glyphs = 0;
    for (char c : narrow) glyphs += (c & 0xC0) != 0x80;
    EXPECT_EQ(glyphs, 70u);
    // Narrower than the bar: whole glyphs only, never a byte of one.
    for (std::size_t columns : {5u, 19u, 20u, 21u, 30u}) {
        const std::string cut = progress_line(0.5, 0, 4, "copy.chunk", 10, 10, columns);
        std::size_t n = 0;
        for (std::size_t k = 0; k < cut.size(); ++k) {
            const auto b = static_cast<unsigned char>(cut[k]);
            const std::size_t len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : 4;
            ASSERT_LE(k + len, cut.size()) << "a glyph cut at " << columns << " columns";
            for (std::size_t c = 1; c < len; ++c) ASSERT_EQ(static_cast<unsigned char>(cut[k + c]) & 0xC0, 0x80);
            k += len - 1;
            ++n;
        }
        EXPECT_EQ(n, columns);
    }
    // 99.6% is not yet 100%.
    EXPECT_NE(progress_line(0.996, 0, 4, "copy.chunk", 10, 10, 200).find(" 99% [1/4]"), std::string::npos);
}

}  // namespace
}  // namespace iolab
