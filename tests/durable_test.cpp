// The durable family: every record on the device when its call returns, checked by content and by
// the sync calls the syscall layer counted.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <vector>

#include "expect.hpp"
#include "iolab/core/process.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/peers.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/report/table.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/fault.hpp"
#include "iolab/sys/io.hpp"
#include "iolab/sys/uring.hpp"
#include "run_each.hpp"
#include "support.hpp"

namespace iolab {
namespace {

CaseSpec durable_case(const Strategy& s, std::size_t record, std::uint64_t count, unsigned producers = 8) {
    CaseSpec c;
    c.strategy = &s;
    c.workload.family = Family::durable;
    c.workload.records_of().record = record;
    c.workload.records_of().count = count;
    c.workload.size = record * count;
    c.workload.records_of().producers = producers;
    return c;
}

// A durable writer of records, syncing after every `every`-th one (0: never).
Strategy syncing_every(unsigned every) {
    Strategy s;
    s.name = "durable.test-every-" + std::to_string(every);
    s.family = Family::durable;
    s.params = kParamRecord;
    s.run = [every](const Job& j) {
        const sys::Fd out = sys::open(j.dst, O_WRONLY | O_CREAT | O_EXCL, 0600);
        std::uint64_t i = 0;
        j.records->for_each_record([&](const std::byte* p, std::size_t n) {
            sys::write_all(out, p, n);
            if (every > 0 && ++i % every == 0) sys::fdatasync(out);
        });
    };
    return s;
}

TEST(Durable, EveryMethodWritesEveryRecordAndSyncsIt) {
    const auto make = [](const Strategy& s) { return durable_case(s, 4096, 24, 3); };
    const int ran = test::run_each("durable.*", make, [](const Strategy&, const CaseResult& r) {
        if (r.status == Status::skipped) return;  // O_DIRECT alignment larger than 4 KiB
        ASSERT_EQ(r.status, Status::ok) << r.reason;
        EXPECT_TRUE(r.verified);
        // Each measured commit timed: 24 a run.
        ASSERT_TRUE(r.latency);
        EXPECT_EQ(r.latency->count(), 24 * r.samples.size());
        EXPECT_GT(r.ops_per_s, 0);
    });
    EXPECT_GE(ran, 7);  // all but O_DIRECT and io_uring run on any filesystem with a kernel that allows them
}

// A writer that skips its sync fails, however many it skips; one that syncs every record passes.
TEST(Durable, AWriterThatSkipsItsSyncFails) {
    ScratchDir dir;
    const RunOptions opts = test::three_iterations();
    for (unsigned every : {0u, 2u, 24u}) {
        const Strategy s = syncing_every(every);
        const CaseResult r = run_case(durable_case(s, 1000, 24), opts, dir);
        EXPECT_EQ(r.status, Status::failed) << every;
        EXPECT_NE(r.reason.find(std::to_string(every ? 24 / every : 0) + " sync calls"), std::string::npos) << r.reason;
        EXPECT_NE(r.reason.find("for 24 records; at least 24"), std::string::npos) << r.reason;
    }
    const Strategy s = syncing_every(1);
    EXPECT_EQ(run_case(durable_case(s, 1000, 24), opts, dir).status, Status::ok);
}

// Group commit: a sync covers at most one record of each producer. One sync at the end for all
// records fails; the real one passes with any number of producers, and with one producer it syncs
// every record.
TEST(Durable, GroupCommitNeedsASyncForEveryBatchItCanGather) {
    ScratchDir dir;
    const RunOptions opts = test::three_iterations();
    Strategy lazy = syncing_every(64);
    lazy.params |= kParamProducers;
    const CaseResult bad = run_case(durable_case(lazy, 1000, 64, 4), opts, dir);
    EXPECT_EQ(bad.status, Status::failed);
    EXPECT_NE(bad.reason.find("1 sync calls"), std::string::npos) << bad.reason;
    EXPECT_NE(bad.reason.find("for 64 records; at least 16"), std::string::npos) << bad.reason;

    const Strategy* real = Registry::builtin().find("durable.group-commit");
    ASSERT_NE(real, nullptr);
    for (unsigned producers : {1u, 3u, 8u, 100u}) {
        const CaseResult r = run_case(durable_case(*real, 512, 40, producers), opts, dir);
        EXPECT_EQ(r.status, Status::ok) << producers << ": " << r.reason;
        ASSERT_TRUE(r.latency);
        EXPECT_EQ(r.latency->count(), 40 * r.samples.size());
    }
    // One producer: every batch is one record, so there is a sync a record.
    Fixture fx(durable_case(*real, 512, 40, 1).workload, dir);
    Sink sink;
    const Job job = fx.job(*real, sink, VerifyMode::full);
    const sys::Counters c0 = sys::thread_counters();
    real->run(job);
    const sys::Counters made = sys::thread_counters() - c0;
    EXPECT_EQ(made.calls[static_cast<std::size_t>(sys::Call::fdatasync)], 40u);
    EXPECT_TRUE(fx.verify(job).ok);
}

// The writer failing (a full disk) wakes every producer: the run ends with the error, no hang.
TEST(Durable, GroupCommitEndsItsProducersWhenTheWriterFails) {
    ScratchDir dir;
    const Strategy* s = Registry::builtin().find("durable.group-commit");
    ASSERT_NE(s, nullptr);
    Fixture fx(durable_case(*s, 512, 200, 8).workload, dir);
    Sink sink;
    const Job job = fx.job(*s, sink, VerifyMode::full);
    const sys::ScopedFault armed(sys::fault_at(sys::call_bit(sys::Call::pwrite), 5, UINT64_MAX, sys::Fault::enospc));
    try {
        s->run(job);
        ADD_FAILURE() << "no error";
    } catch (const IoError& e) {
        EXPECT_EQ(e.code(), ENOSPC);
    }
}

// The syscall layer counts a write through an O_DSYNC descriptor as a sync, and no other.
TEST(Durable, SyncedWritesAreCountedOnlyOnSyncedDescriptors) {
    ScratchDir dir;
    const char data[100] = {};
    for (const int extra : {0, O_DSYNC, O_SYNC}) {
        const char* name = extra == 0 ? "plain" : extra == O_DSYNC ? "dsync" : "sync";
        const sys::Fd out = sys::open(dir.file(name), O_WRONLY | O_CREAT | O_EXCL | extra);
        EXPECT_EQ(out.synced(), extra != 0);
        const sys::Counters c0 = sys::thread_counters();
        sys::write_all(out, data, sizeof data);
        sys::pwrite_all(out, data, sizeof data, 0);
        EXPECT_EQ((sys::thread_counters() - c0).syncs(), extra != 0 ? 2u : 0u);
    }
}

// io_uring: a write linked to an fdatasync completes both, and the sync is counted once it succeeded.
TEST(Durable, AnIoUringSyncIsCountedWhenItCompletes) {
    if (const auto why = sys::uring_unavailable()) GTEST_SKIP() << *why;
    ScratchDir dir;
    const sys::Fd out = sys::open(dir.file("log"), O_WRONLY | O_CREAT | O_EXCL);
    const char data[512] = {1};
    sys::Ring ring(2, out.path());
    const sys::Counters c0 = sys::thread_counters();
    ring.write(out, data, sizeof data, 0, 7, true);
    ring.fsync(out, true, 8);
    const sys::Completion a = ring.next(), b = ring.next();
    EXPECT_EQ(a.tag, 7u);
    EXPECT_EQ(a.res, 512);
    EXPECT_EQ(b.tag, 8u);
    EXPECT_EQ(b.res, 0);
    const sys::Counters made = sys::thread_counters() - c0;
    EXPECT_EQ(made.calls[static_cast<std::size_t>(sys::Call::uring_fsync)], 1u);
    EXPECT_EQ(made.syncs(), 1u);
}

// A ring whose operation never completes (a read of a pipe no one writes) stalls: after the limit
// next() throws naming the ring, the operation is cancelled (the buffer is the caller's again), and
// no ring is made again in the process, which says why.
TEST(Uring, AStalledRingFailsAndIsNotUsedAgain) {
    if (const auto why = sys::uring_unavailable()) GTEST_SKIP() << *why;
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const sys::Fd in(fds[0], "the pipe"), out(fds[1], "the pipe's end");
    // The process-wide state back as it was, whatever fails below.
    struct Restore {
        ~Restore() {
            sys::reset_uring_stall();
            sys::set_uring_stall_limit(30);
        }
    } restore;
    sys::set_uring_stall_limit(1);
    char buf[2][16];
    {
        sys::Ring ring(4, "the pipe");
        ring.read(in, buf[0], sizeof buf[0], 0, 1);
        ring.read(in, buf[1], sizeof buf[1], 0, 2);
        try {
            ring.next();
            ADD_FAILURE() << "a read of an empty pipe completed";
        } catch (const IoError& e) {
            EXPECT_EQ(e.code(), ETIME);
            EXPECT_NE(std::string(e.what()).find("the io_uring stalled"), std::string::npos) << e.what();
        }
        EXPECT_FALSE(ring.abandoned());  // both reads of the pipe are cancelled
        EXPECT_EQ(ring.in_flight(), 0u);
    }
    EXPECT_TRUE(sys::uring_stalled());
    ASSERT_TRUE(sys::uring_unavailable().has_value());
    EXPECT_NE(sys::uring_unavailable()->find("stalled earlier in this run"), std::string::npos);
    EXPECT_THROW(sys::Ring(2, "another"), IoError);
    sys::reset_uring_stall();
    EXPECT_FALSE(sys::uring_unavailable().has_value());
    // Nothing is left reading the pipe: what is written is there to read (without blocking, so that
    // a read the kernel kept would fail this test rather than hang it).
    ASSERT_EQ(::fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
    ASSERT_EQ(::write(fds[1], "x", 1), 1);
    char c = 0;
    EXPECT_EQ(::read(fds[0], &c, 1), 1);
    EXPECT_EQ(c, 'x');
}

constexpr const char* kPgOutput = R"(1 second per test
O_DIRECT supported on this platform for open_datasync and open_sync.

Compare file sync methods using one 8kB write:
(in wal_sync_method preference order, except fdatasync is Linux's default)
        open_datasync                      7420.466 ops/sec     135 usecs/op
        fdatasync                          7314.188 ops/sec     137 usecs/op
        fsync                              8390.455 ops/sec     119 usecs/op
        fsync_writethrough                              n/a
        open_sync                          7776.401 ops/sec     129 usecs/op

Compare file sync methods using two 8kB writes:
        open_datasync                      3844.550 ops/sec     260 usecs/op
)";

// pg_test_fsync's one-write section, each method with its rate and the iolab strategy doing the
// same; the two-write section after it is not read.
TEST(Peers, PgTestFsyncsOneWriteSectionIsRead) {
    const std::vector<PeerFigure> f = parse_pg_test_fsync(kPgOutput);
    ASSERT_EQ(f.size(), 5u);
    EXPECT_EQ(f[0].method, "open_datasync");
    EXPECT_DOUBLE_EQ(f[0].ops_per_s, 7420.466);
    EXPECT_EQ(f[0].strategy, "durable.direct-dsync-zeroed");
    EXPECT_EQ(f[1].strategy, "durable.fdatasync-zeroed");
    EXPECT_DOUBLE_EQ(f[2].ops_per_s, 8390.455);
    EXPECT_EQ(f[3].method, "fsync_writethrough");
    EXPECT_EQ(f[3].ops_per_s, 0);
    EXPECT_NE(f[3].note.find("n/a"), std::string::npos);
    EXPECT_EQ(f[4].strategy, "");
    for (const PeerFigure& p : f) EXPECT_EQ(p.record, 8192u);
    // Each strategy named exists.
    for (const PeerFigure& p : f) {
        if (!p.strategy.empty()) {
            EXPECT_NE(Registry::builtin().find(p.strategy), nullptr) << p.strategy;
        }
    }
    EXPECT_THROW(parse_pg_test_fsync("1 second per test\n"), InputError);
    EXPECT_THROW(parse_pg_test_fsync("Compare file sync methods using one big write:\n  fsync 1 ops/sec\n"),
                 InputError);
    EXPECT_THROW(parse_pg_test_fsync("Compare file sync methods using one 8kB write:\n\n"), InputError);
    const auto junk = parse_pg_test_fsync("Compare file sync methods using one 16kB write:\n  fsync 12x ops/sec\n");
    ASSERT_EQ(junk.size(), 1u);
    EXPECT_EQ(junk[0].record, 16384u);
    EXPECT_EQ(junk[0].ops_per_s, 0);
    EXPECT_NE(junk[0].note.find("unreadable"), std::string::npos);
    // Where the filesystem takes no O_DIRECT, pg_test_fsync says so after open_sync, with no
    // blank line: the section ends there. A header ending at the size's digits names none.
    const auto nodirect = parse_pg_test_fsync(
        "Compare file sync methods using one 8kB write:\n        fdatasync   10.5 ops/sec   1 usecs/op\n"
        "* This file system and its mount options do not support direct\n  I/O, e.g. ext4 in journaled mode.\n");
    ASSERT_EQ(nodirect.size(), 1u);
    EXPECT_EQ(nodirect[0].method, "fdatasync");
    EXPECT_THROW(parse_pg_test_fsync("Compare file sync methods using one 8"), InputError);
}

// A durable case of `commits` records of 8 KiB a run, each run taking the times given.
CaseResult durable_result(const char* name, std::uint64_t commits, const std::vector<double>& walls) {
    CaseResult c;
    c.spec = durable_case(*Registry::builtin().find(name), 8192, commits);
    c.checked = Checked::content;
    c.verified = true;
    for (double w : walls) {
        Sample s;
        s.wall_s = w;
        s.bytes = 8192 * commits;
        c.samples.push_back(s);
    }
    finish(c, RunOptions{}, 1e-9);
    return c;
}

// measure_peers for a durable case with a pg_test_fsync of its own: `script` (a shell script)
// first in PATH.
Peers peers_of_fake(const std::string& script) {
    ScratchDir tools;
    const std::string fake = tools.file("pg_test_fsync");
    std::ofstream(fake) << script;
    EXPECT_EQ(::chmod(fake.c_str(), 0755), 0);
    const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
    ::setenv("PATH", (tools.path() + ":" + path).c_str(), 1);
    CaseSpec c;
    c.strategy = Registry::builtin().find("durable.fsync");
    c.workload.family = Family::durable;
    ScratchDir scratch;
    Peers p = measure_peers({c}, scratch);
    ::setenv("PATH", path.c_str(), 1);
    return p;
}

// A pg_test_fsync that prints more than any report is said to have done so (it read "printed no
// '...' section"); one that never ends is ended at its deadline (run_process's, on sleep).
TEST(Peers, APeerThatSaysTooMuchOrNeverEndsIsSaidSo) {
    const Peers p = peers_of_fake("#!/bin/sh\nhead -c 2000000 /dev/zero | tr '\\0' x\n");
    EXPECT_TRUE(p.figures.empty());
    EXPECT_NE(p.skipped.find("ran, but its output could not be read: larger than 1 MiB"), std::string::npos)
        << p.skipped;
    const ProcessResult r = run_process({"sleep", "1000"}, "/dev/null", -1, 1.0);
    EXPECT_TRUE(r.timed_out);
    EXPECT_EQ(r.status, 128 + SIGKILL);
    EXPECT_FALSE(run_process({"true"}, "/dev/null", -1, 60).timed_out);
}

// A result file's peer that names a strategy writing no records (a read) finds no case of it: the
// row says so, as for a strategy not run.
TEST(Peers, APeerNamingAStrategyThatWritesNoRecordsFindsNoCase) {
    Report r;
    r.peers.command = "pg_test_fsync -s 1";
    r.peers.figures = parse_pg_test_fsync(kPgOutput);
    ASSERT_FALSE(r.peers.figures.empty());
    r.peers.figures[0].strategy = "read.chunk";
    CaseResult read;
    read.spec.strategy = Registry::builtin().find("read.chunk");
    read.spec.workload.family = Family::read;
    read.checked = Checked::content;
    read.verified = true;
    for (double w : {0.100, 0.101, 0.099, 0.1005}) {
        Sample s;
        s.wall_s = w;
        s.bytes = read.spec.workload.size;
        read.samples.push_back(s);
    }
    finish(read, RunOptions{}, 1e-9);
    ASSERT_TRUE(read.ranked());
    r.cases = {read};
    const Table t = peers_table(r);
    ASSERT_FALSE(t.rows.empty());
    EXPECT_EQ(t.rows[0].kind, RowKind::reference);
    EXPECT_NE(t.rows[0].reason.find("no ranked case of 8K records"), std::string::npos) << t.rows[0].reason;
}

// Beside the iolab case doing the same work: the ratio, and "yes" only when iolab's interval lies
// within 15 % of the tool's figure, "no" only when it lies wholly outside.
TEST(Peers, TheTableSetsEachMethodBesideItsIolabCase) {
    Report r;
    r.peers.command = "pg_test_fsync -s 1";
    r.peers.figures = parse_pg_test_fsync(kPgOutput);
    const std::vector<double> steady = {0.100, 0.101, 0.099, 0.1005, 0.0995, 0.1002, 0.0998, 0.1001};
    std::vector<double> slow;
    for (double w : steady) slow.push_back(2 * w);
    // 740 commits in 0.1 s: 7400/s against 7420 (agree); fdatasync at half of 7314 (does not).
    r.cases = {durable_result("durable.direct-dsync-zeroed", 740, steady),
               durable_result("durable.fdatasync-zeroed", 731, slow)};
    const Table t = peers_table(r);
    ASSERT_EQ(t.rows.size(), 5u);
    EXPECT_TRUE(test::cells_are(t.rows[0], {{0, "open_datasync"}, {6, "yes"}}));
    EXPECT_TRUE(test::cells_are(t.rows[1], {{5, "0.50x"}, {6, "no"}}));
    // fsync has no case of its strategy: a reference row that says so, and a note on how to get one.
    EXPECT_EQ(t.rows[2].kind, RowKind::reference);
    EXPECT_NE(t.rows[2].reason.find("no ranked case of 8K records"), std::string::npos);
    EXPECT_EQ(t.rows[4].reason, "no iolab strategy does this");
    // A tool that did not run says why, with no rows.
    Report skipped;
    skipped.peers.skipped = "pg_test_fsync is not installed (Debian package postgresql-15)";
    const Table s = peers_table(skipped);
    EXPECT_TRUE(s.rows.empty());
    ASSERT_EQ(s.notes.size(), 1u);
    EXPECT_NE(s.notes[0].find("not installed"), std::string::npos);
    EXPECT_TRUE(peers_table(Report{}).title.empty());
}

// pg_test_fsync runs kPeerRuns times: each method's runs are kept in order, its figure is their
// median, and a method a run could not do keeps its note. A fake that prints 1000, 3000, 2000 ops/s
// for fdatasync over its three runs.
TEST(Peers, ThreeRunsGiveTheMedianAndEachRun) {
    ScratchDir counter;
    const std::string count = counter.file("count");
    const Peers p =
        peers_of_fake("#!/bin/sh\nn=$(cat '" + count + "' 2>/dev/null || echo 0); n=$((n + 1)); echo $n > '" + count +
                      "'\n"
                      "case $n in 1) r=1000;; 2) r=3000;; *) r=2000;; esac\n"
                      "printf 'Compare file sync methods using one 8kB write:\\n'\n"
                      "printf '        fdatasync  %s.000 ops/sec  1 usecs/op\\n' $r\n"
                      "printf '        fsync_writethrough  n/a\\n\\n'\n");
    EXPECT_TRUE(p.skipped.empty()) << p.skipped;
    EXPECT_EQ(p.runs, kPeerRuns);
    ASSERT_EQ(p.figures.size(), 2u);
    EXPECT_EQ(p.figures[0].method, "fdatasync");
    EXPECT_EQ(p.figures[0].runs, (std::vector<double>{1000, 3000, 2000}));
    EXPECT_DOUBLE_EQ(p.figures[0].ops_per_s, 2000);
    EXPECT_TRUE(p.figures[1].runs.empty());
    EXPECT_EQ(p.figures[1].ops_per_s, 0);
    EXPECT_EQ(p.figures[1].note, "not available here (n/a)");
    // Not wanted without durable cases: not run.
    CaseSpec read;
    read.strategy = Registry::builtin().find("read.chunk");
    read.workload.family = Family::read;
    EXPECT_FALSE(wants_peers({read}));
    EXPECT_EQ(measure_peers({read}, counter).runs, 0u);
}

// The peer's spread is judged with iolab's: 8,000 commits/s is 1.20x pg's median of 6,667 (outside
// 15 % of it), but within 15 % of its span 6,000-7,500; a span that is one run is the median alone.
TEST(Peers, AgreementIsJudgedAgainstTheSpanOfThePeersRuns) {
    Report r;
    r.peers.command = "pg_test_fsync -s 1";
    r.peers.runs = 3;
    r.peers.figures = {{"pg_test_fsync", "fdatasync", "durable.fdatasync-zeroed", 8192, 6667, "", {6000, 6667, 7500}}};
    const std::vector<double> steady = {0.100, 0.101, 0.099, 0.1005, 0.0995, 0.1002, 0.0998, 0.1001};
    r.cases = {durable_result("durable.fdatasync-zeroed", 800, steady)};
    Table t = peers_table(r);
    ASSERT_EQ(t.rows.size(), 1u);
    EXPECT_EQ(t.rows[0].cells[1], "6667 (6000-7500, n=3)");
    EXPECT_EQ(t.rows[0].cells[5], "1.20x");
    EXPECT_EQ(t.rows[0].cells[6], "yes");
    r.peers.figures[0].runs = {6667};
    t = peers_table(r);
    EXPECT_EQ(t.rows[0].cells[1], "6667 (n=1)");
    EXPECT_EQ(t.rows[0].cells[6], "no");
    // A later run that failed leaves the figures of the runs before it, and says so.
    r.peers.runs = 1;
    r.peers.skipped = "pg_test_fsync exited with status 1: disk full";
    t = peers_table(r);
    ASSERT_EQ(t.rows.size(), 1u);
    EXPECT_NE(t.notes.at(0).find("ran 1 time(s) of 3: pg_test_fsync exited with status 1"), std::string::npos)
        << t.notes.at(0);
}

// What the session runs between rounds comes after a whole round and before the next: every case
// is measured once between two calls, the calls are numbered by round, and none follows the last;
// the group says once,
// before its first sample, that its inputs are laid out.
TEST(Peers, TheRoundHookRunsBetweenWholeRounds) {
    ScratchDir dir;
    std::vector<CaseSpec> specs;
    for (const char* name : {"read.chunk", "read.pread-chunk"}) {
        CaseSpec c;
        c.strategy = Registry::builtin().find(name);
        c.workload.family = Family::read;
        c.workload.size = 64 << 10;
        c.workload.buffer = 4096;
        specs.push_back(c);
    }
    RunOptions o = test::three_iterations();
    std::vector<std::string> seen;
    const ProgressFn progress = [&](std::size_t i, const CaseSpec&, double) { seen.push_back(std::to_string(i)); };
    GroupEvents events;
    int set_up = 0;
    events.set_up = [&](double s) {
        EXPECT_GE(s, 0);
        EXPECT_TRUE(seen.empty());  // before any case is measured
        ++set_up;
    };
    events.after_round = [&](std::uint64_t round) { seen.push_back("r" + std::to_string(round)); };
    const auto results = run_group(specs, o, dir, system_clock(), progress, {}, {}, 0, events);
    EXPECT_EQ(set_up, 1);
    ASSERT_EQ(results.size(), 2u);
    for (const auto& r : results) EXPECT_EQ(r.samples.size(), 3u);
    std::vector<std::string> rounds;
    std::string cases;
    for (const auto& e : seen) {
        if (e[0] == 'r') {
            rounds.push_back(e);
            EXPECT_TRUE(cases == "01" || cases == "10") << cases;
            cases.clear();
        } else {
            cases += e;
        }
    }
    // Three rounds, the hook between them: after the last, whose whole round follows, none.
    EXPECT_TRUE(cases == "01" || cases == "10") << cases;
    EXPECT_EQ(rounds.size(), 2u);
    for (std::size_t k = 0; k < rounds.size(); ++k) EXPECT_EQ(rounds[k], "r" + std::to_string(k));
}

}  // namespace
}  // namespace iolab
