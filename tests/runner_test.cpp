// The runner with a fake clock and fake strategies: iteration counts, verification failures,
// skips, warnings and the cache proof.
#include <gtest/gtest.h>

#include <fcntl.h>

#include "fakes.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/harness/cache.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/sys/io.hpp"
#include "support.hpp"

namespace iolab {
namespace {

using test::FakeClock;
FakeClock* g_clock = nullptr;
std::uint64_t g_step_ns = 0;
int g_runs = 0;

// Reads nothing, takes g_step_ns of fake time: an empty input is verified by an empty read.
Strategy fake_read() {
    return test::made_strategy("read.fake", Family::read, [](const Job&) {
        ++g_runs;
        g_clock->t += g_step_ns;
    });
}

CaseSpec empty_read_case(const Strategy& s) { return test::read_case(s, 0); }

class RunnerTest : public testing::Test {
protected:
    void SetUp() override {
        g_clock = &clock_;
        g_runs = 0;
    }
    FakeClock clock_;
    ScratchDir dir_;
};

TEST_F(RunnerTest, TargetTimeGivesTheCountTheFakeClockImplies) {
    const Strategy s = fake_read();
    g_step_ns = 10'000'000;  // 10 ms per run
    RunOptions opts;
    opts.warmup = Amount{2, 0};
    opts.iterations = Amount{0, 1.0};
    const CaseResult r = run_case(empty_read_case(s), opts, dir_, clock_);
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_EQ(r.samples.size(), 100u);
    EXPECT_EQ(g_runs, 102);
    EXPECT_NEAR(r.stats.median, 0.01, 1e-12);
    EXPECT_TRUE(r.verified);
}

// Racing, a group's budget is for samples: laying out its inputs and its cases' warm-ups come
// before it. Two cases whose one warm-up each (10 s) spend more than the 15 s budget still get
// their samples, and the setup the group reports holds the warm-ups. (With the warm-ups in the
// budget both were skipped: "the time budget was spent before its first sample".)
TEST_F(RunnerTest, WarmUpsAreOutsideTheGroupsBudget) {
    const Strategy a = fake_read(), b = fake_read();
    g_step_ns = 10'000'000'000;  // 10 s a run
    RunOptions opts;             // one warm-up, racing
    double setup = -1;
    GroupEvents events;
    events.set_up = [&](double s) { setup = s; };
    const auto results =
        run_group({empty_read_case(a), empty_read_case(b)}, opts, dir_, clock_, {}, {}, {}, 15, events);
    ASSERT_EQ(results.size(), 2u);
    for (const auto& r : results) {
        EXPECT_EQ(r.status, Status::ok) << r.reason;
        EXPECT_GE(r.samples.size(), 1u);
    }
    EXPECT_GE(setup, 20.0);  // the two warm-ups, at least
}

// Racing, each run's own setup before its clock (here 2 s of a prepare; a tree laid out for a
// removal, an input evicted) is outside the budget too, up to as much time again. With 1 s runs and
// a 10 s budget, the setup of the first five runs moves the deadline 10 s; a sixth and seventh run
// start before it: 7 samples, not the 4 that fit with setup charged to the budget, nor the 10 that
// an unbounded allowance would give. The group reports the 10 s beside its warm-up.
TEST_F(RunnerTest, EachRunsSetupIsOutsideTheBudgetUpToAsMuchAgain) {
    Strategy s = fake_read();
    s.prepare = [](const Job&) { g_clock->t += 2'000'000'000; };
    g_step_ns = 1'000'000'000;
    RunOptions opts;  // one warm-up, racing
    std::vector<double> setups;
    GroupEvents events;
    events.set_up = [&](double x) { setups.push_back(x); };
    const auto results = run_group({empty_read_case(s)}, opts, dir_, clock_, {}, {}, {}, 10, events);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].status, Status::ok) << results[0].reason;
    EXPECT_EQ(results[0].samples.size(), 7u);
    ASSERT_EQ(setups.size(), 2u);
    EXPECT_NEAR(setups[0], 3.0, 1e-9);  // the warm-up's setup and run
    EXPECT_NEAR(setups[1], 10.0, 1e-9);
}

// The same with jobs (their runs released together): each job's prepare (2 s, one job after the
// other) is the run's setup, 4 s, and moves the deadline until the 10 s allowance is spent: 5 runs
// where 3 fit with setup charged to the budget.
TEST_F(RunnerTest, TheSetupOfEachRunsJobsIsOutsideTheBudgetToo) {
    Strategy s;
    s.name = "read.fake-jobs";
    s.family = Family::read;
    s.description = "fake";
    s.prepare = [](const Job&) { g_clock->t += 2'000'000'000; };  // before the threads start
    s.run = [](const Job&) {};
    CaseSpec c = empty_read_case(s);
    c.workload.jobs = 2;
    RunOptions opts;  // one warm-up, racing
    const auto results = run_group({c}, opts, dir_, clock_, {}, {}, {}, 10);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].samples.size(), 5u) << results[0].reason;
}

TEST_F(RunnerTest, WarmupByTimeAndNoWarmupProbe) {
    const Strategy s = fake_read();
    g_step_ns = 100'000'000;  // 100 ms
    RunOptions opts;
    opts.warmup = Amount{0, 0.5};  // 5 runs of 100 ms
    opts.iterations = Amount{7, 0};
    run_case(empty_read_case(s), opts, dir_, clock_);
    EXPECT_EQ(g_runs, 5 + 7);

    g_runs = 0;
    opts.warmup = Amount{0, 0};
    // With no warm-up a read still gets one unmeasured run that checks every byte; then the
    // first measured run is the probe: 20 measured in all.
    opts.iterations = Amount{0, 2.0};
    const CaseResult r = run_case(empty_read_case(s), opts, dir_, clock_);
    EXPECT_EQ(g_runs, 1 + 20);
    EXPECT_EQ(r.samples.size(), 20u);
}

TEST_F(RunnerTest, WrongOutputFailsTheCase) {
    Strategy s;
    s.name = "copy.truncating";
    s.family = Family::copy;
    s.description = "copies all but the last byte";
    s.run = [](const Job& j) {
        const sys::Fd in = sys::open(j.src, O_RDONLY);
        const sys::Fd out = sys::open(j.dst, O_WRONLY | O_CREAT | O_EXCL);
        std::vector<char> buf(sys::file_size(in));
        sys::read_full(in, buf.data(), buf.size());
        sys::write_all(out, buf.data(), buf.size() - 1);
    };
    CaseSpec c;
    c.strategy = &s;
    c.workload.family = Family::copy;
    c.workload.size = 5000;
    const CaseResult r = run_case(c, RunOptions{}, dir_);
    EXPECT_EQ(r.status, Status::failed);
    EXPECT_FALSE(r.verified);
    EXPECT_NE(r.reason.find("expected"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("4999 bytes, expected 5000"), std::string::npos) << r.reason;
}

TEST_F(RunnerTest, UnavailableAndDirectAreSkippedWithReasons) {
    Strategy s = fake_read();
    s.unavailable = [](const std::string&) { return std::optional<std::string>("no such feature"); };
    CaseResult r = run_case(empty_read_case(s), RunOptions{}, dir_, clock_);
    EXPECT_EQ(r.status, Status::skipped);
    EXPECT_EQ(r.reason, "no such feature");

    const Strategy plain = fake_read();
    RunOptions direct;
    direct.cache = CacheMode::direct;
    r = run_case(empty_read_case(plain), direct, dir_, clock_);
    EXPECT_EQ(r.status, Status::skipped);
    EXPECT_NE(r.reason.find("O_DIRECT"), std::string::npos);
}

TEST_F(RunnerTest, WarningsForOutliersAndASlowFirstIteration) {
    CaseResult r;
    const Strategy s = fake_read();
    r.spec = empty_read_case(s);
    for (double w : {5.0, 1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0}) {
        Sample smp;
        smp.wall_s = w;
        smp.bytes = 1 << 20;
        r.samples.push_back(smp);
    }
    finish(r, RunOptions{}, 1e-9);
    // Eight samples give the median's 95 % interval only as [min, max]: the slow first one makes
    // the case unstable too.
    ASSERT_EQ(r.warnings.size(), 3u);
    EXPECT_EQ(r.warnings[0].kind, WarningKind::outliers);
    EXPECT_EQ(r.warnings[1].kind, WarningKind::first_iteration);
    EXPECT_EQ(r.warnings[2].kind, WarningKind::unstable);
    EXPECT_FALSE(r.stable);
    EXPECT_NEAR(r.throughput_mib_s, 1.0, 1e-9);
}

TEST_F(RunnerTest, ColdIterationsThatStartCachedAreFlagged) {
    CaseResult r;
    const Strategy s = fake_read();
    r.spec = empty_read_case(s);
    for (double res : {0.0, 0.5, 0.0}) {
        Sample smp;
        smp.wall_s = 1;
        smp.resident = res;
        r.samples.push_back(smp);
    }
    RunOptions cold;
    cold.cache = CacheMode::cold;
    finish(r, cold, 1e-9);
    // Three samples have no 95 % interval: nothing is said of their spread.
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0].kind, WarningKind::not_cold);
    EXPECT_NE(r.warnings[0].message.find("1 of 3"), std::string::npos);
}

TEST(Cache, EvictionLeavesTheFileMostlyUncached) {
    ScratchDir dir;
    const std::string path = dir.file("f");
    write_input_file(path, DataSpec{}, 8u << 20);
    warm_file(path);
    EXPECT_GT(resident_fraction(path), 0.9);
    evict_file(path, false);
    const double after = resident_fraction(path);
    if (after > 0.5) GTEST_SKIP() << "this filesystem ignores POSIX_FADV_DONTNEED (" << after * 100 << "% resident)";
    EXPECT_LT(after, 0.05);
}

TEST(Cache, RealColdRunRecordsResidency) {
    ScratchDir dir;
    CaseSpec c;
    c.strategy = Registry::builtin().find("read.chunk");
    c.workload.family = Family::read;
    c.workload.size = 4u << 20;
    RunOptions opts;
    opts.cache = CacheMode::cold;
    opts.iterations = Amount{3, 0};
    {
        // A filesystem that keeps pages despite POSIX_FADV_DONTNEED (tmpfs) cannot be cold.
        const std::string probe = dir.file("probe");
        write_input_file(probe, DataSpec{}, 1u << 20);
        evict_file(probe, false);
        if (const double left = resident_fraction(probe); left > 0.05)
            GTEST_SKIP() << "this filesystem ignores POSIX_FADV_DONTNEED (" << left * 100 << "% resident)";
    }
    const CaseResult r = run_case(c, opts, dir);
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    ASSERT_EQ(r.samples.size(), 3u);
    for (const auto& smp : r.samples) EXPECT_LE(smp.resident, 0.05);
    EXPECT_FALSE(r.cold_unproven);
    EXPECT_TRUE(r.ranked());
    // Warm: the input was evicted and read back once, so all of it is cached.
    opts.cache = CacheMode::warm;
    const CaseResult w = run_case(c, opts, dir);
    for (const auto& smp : w.samples) EXPECT_GE(smp.resident, 0.99);
}

// A copy of 1 MiB in `forks` children, each with `warm_ups` warm-ups and two measured runs.
std::pair<CaseSpec, RunOptions> forked_copy(unsigned forks, unsigned warm_ups) {
    CaseSpec c;
    c.strategy = Registry::builtin().find("copy.chunk");
    c.workload.family = Family::copy;
    c.workload.size = 1u << 20;
    RunOptions opts;
    opts.forks = forks;
    opts.warmup = Amount{warm_ups, 0};
    opts.iterations = Amount{2, 0};
    return {c, opts};
}

TEST(Forks, SamplesFromChildrenArePooled) {
    ScratchDir dir;
    const auto [c, opts] = forked_copy(3, 0);
    const CaseResult r = run_case_forked(c, opts, dir);
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_EQ(r.samples.size(), 6u);
    EXPECT_EQ(r.stats.n, 6u);
    for (const auto& smp : r.samples) EXPECT_EQ(smp.bytes, 1u << 20);
    EXPECT_TRUE(r.verified);
}

// Each child lays its inputs out and warms its cases up again: the group hears each one's setup
// (it was told none, and a forked group's header said nothing of it).
TEST(Forks, EachChildsSetupIsReported) {
    ScratchDir dir;
    const auto [c, opts] = forked_copy(2, 1);
    std::vector<double> setups;
    GroupEvents events;
    events.set_up = [&](double s) { setups.push_back(s); };
    const auto results = run_group_forked({c}, opts, dir, {}, {}, 0, events);
    ASSERT_EQ(results[0].status, Status::ok) << results[0].reason;
    ASSERT_EQ(setups.size(), 2u);
    for (double s : setups) EXPECT_GT(s, 0);
}

// Pooling the forks' samples does not make an unchecked tool verified.
TEST(Forks, UncheckedToolsStayUnverified) {
    ScratchDir dir;
    RunOptions opts;
    opts.forks = 2;
    opts.warmup = Amount{0, 0};
    opts.iterations = Amount{2, 0};
    for (const char* name : {"read.cat", "read.dd"}) {
        CaseSpec c;
        c.strategy = Registry::builtin().find(name);
        if (auto why = c.strategy->skip_reason(dir.path())) GTEST_SKIP() << *why;
        c.workload.family = Family::read;
        c.workload.size = 1u << 20;
        const CaseResult r = run_case_forked(c, opts, dir);
        ASSERT_EQ(r.status, Status::ok) << r.reason;
        EXPECT_EQ(r.samples.size(), 4u);
        EXPECT_FALSE(r.verified) << name;
        EXPECT_EQ(r.checked, std::string(name) == "read.cat" ? Checked::none : Checked::byte_count) << name;
    }
}

// The share done that a progress bar shows: each case's iterations against its target, so with
// two cases of three iterations each, the calls before the six runs see 0/6 to 5/6 in order.
TEST(Progress, TheShareDoneCountsEachIterationAgainstItsTarget) {
    ScratchDir dir;
    PlanRequest req;
    req.strategies = {"read.chunk"};
    req.sizes = {256u << 10};
    req.buffers = {4096, 65536};
    RunOptions opts;
    opts.warmup = Amount{0, 0};
    opts.iterations = Amount{3, 0};
    std::vector<double> seen;
    run_group(build_plan(req), opts, dir, system_clock(),
              [&](std::size_t, const CaseSpec&, double done) { seen.push_back(done); });
    ASSERT_EQ(seen.size(), 6u);
    for (std::size_t k = 0; k < seen.size(); ++k) EXPECT_NEAR(seen[k], static_cast<double>(k) / 6, 1e-12) << k;
}

}  // namespace
}  // namespace iolab
