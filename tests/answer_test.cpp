// The answer and what it rests on: the comparison at a margin, noise that widens intervals and
// vetoes nothing, ranks with ties and the rule that picks inside a winner group, a tool's net time,
// the ceiling each kind of work is held against, racing (on a fake clock), and sequential
// verdicts. Each assertion fails when the rule it checks is broken.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <initializer_list>
#include <random>

#include "expect.hpp"
#include "fakes.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/harness/limits.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/harness/standing.hpp"
#include "iolab/report/analysis/answer.hpp"
#include "iolab/report/document.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/json.hpp"
#include "iolab/report/read/read.hpp"
#include "iolab/report/table.hpp"
#include "iolab/suite/findings.hpp"
#include "support.hpp"

namespace iolab {
namespace {

// A case of `strategy` whose runs took these milliseconds (1 MiB each), finished as the runner
// would finish it.
CaseResult timed(const char* strategy, std::size_t buffer, const std::vector<double>& ms,
                 StopReason stopped = StopReason::none) {
    CaseResult c;
    c.spec.strategy = Registry::builtin().find(strategy);
    c.spec.workload.family = c.spec.strategy->family;
    c.spec.workload.size = 1 << 20;
    c.spec.workload.buffer = buffer;
    c.status = Status::ok;
    c.checked = Checked::content;
    c.verified = true;
    c.stopped = stopped;
    for (double t : ms) {
        Sample s;
        s.wall_s = t * 1e-3;
        s.bytes = 1 << 20;
        c.samples.push_back(s);
    }
    finish(c, RunOptions{}, 1e-9);
    return c;
}

const std::vector<double> kSteady1 = {1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0};
const std::vector<double> kSteady2 = {2.0, 2.02, 1.98, 2.0, 2.04, 1.96, 2.0};
// Its median is the fastest of all, but it varies ±50 % and more.
const std::vector<double> kNoisy = {0.9, 0.5, 1.5, 0.6, 0.85, 1.4, 0.45};

TEST(Comparison, ACaseIsSlowerOnlyBeyondTheMarginByTheWholeInterval) {
    const auto r = [](const std::vector<double>& a, const std::vector<double>& b) {
        return ratio_interval(a, b, kRatioConfidence);
    };
    const std::vector<double> one = {1.0, 1.01, 0.99, 1.02, 0.98}, two = {2.0, 2.01, 1.99, 2.02, 1.98};
    EXPECT_EQ(order_at(r(two, one), 0.10), Order::slower);
    EXPECT_EQ(order_at(r(one, two), 0.10), Order::faster);
    // 5 % slower, precisely: told apart at no margin, not at 10 %.
    const std::vector<double> a5 = {1.05, 1.051, 1.049, 1.052, 1.048, 1.05},
                              b5 = {1.0, 1.001, 0.999, 1.002, 0.998, 1.0};
    EXPECT_EQ(order_at(r(a5, b5), 0), Order::slower);
    EXPECT_EQ(order_at(r(a5, b5), 0.10), Order::tied);
    // Overlapping: tied at any margin.
    EXPECT_EQ(order_at(r({1.0, 1.2, 0.9, 1.1, 1.05, 0.95}, {1.02, 1.15, 0.92, 1.12, 1.0, 0.97}), 0), Order::tied);
    // Three against three: Moses's interval cannot reach 99 % (1/20 a side), the envelope (2.5x
    // for 3 samples) stands in: twice as slow is not told, ten times is.
    EXPECT_TRUE(r({2.0, 2.01, 1.99}, {1.0, 1.01, 0.99}).envelope);
    EXPECT_EQ(order_at(r({2.0, 2.01, 1.99}, {1.0, 1.01, 0.99}), 0.10), Order::tied);
    EXPECT_EQ(order_at(r({10.0, 10.1, 9.9}, {1.0, 1.01, 0.99}), 0.10), Order::slower);
}

TEST(Noise, ANoisyCaseRanksAndIsPickedOnlyWhenNothingSteadierTiesWithIt) {
    const CaseResult noisy = timed("read.mmap-scan", 0, kNoisy);
    const CaseResult steady = timed("read.chunk", 65536, kSteady1);
    EXPECT_FALSE(noisy.stable);
    EXPECT_EQ(variation(noisy), "±76%");
    EXPECT_EQ(variation(steady), "");
    ASSERT_GT(noisy.throughput_mib_s, steady.throughput_mib_s);  // by its median it would win
    const Standing s = stand({&noisy, &steady});
    ASSERT_EQ(s.places.size(), 2u);
    // Both rank, tied: the pick is the case whose figure is surely high.
    EXPECT_EQ(s.pick, &steady);
    EXPECT_EQ(s.places[0].rank_text(), "1");
    EXPECT_EQ(s.places[1].c, &noisy);
    EXPECT_EQ(s.places[1].rank_text(), "1=");
    EXPECT_GT(sure_rate(steady), sure_rate(noisy));
    // Twice as fast, it is shown faster than the steady one by more than the margin, and wins.
    std::vector<double> halved;
    for (double t : kNoisy) halved.push_back(t / 2);
    const CaseResult fast_noisy = timed("read.mmap-scan", 0, halved);
    const Standing t = stand({&fast_noisy, &steady});
    EXPECT_EQ(t.pick, &fast_noisy);
    EXPECT_EQ(t.winners().size(), 1u);
    EXPECT_EQ(t.places[1].rank_text(), "2");
}

TEST(Noise, ACaseVariesPastTenPercentAndStillRanks) {
    // Six samples: the 95 % interval of the median is [min, max].
    EXPECT_TRUE(timed("read.chunk", 65536, {1.0, 1.09, 0.92, 1.0, 1.0, 1.0}).stable);
    const CaseResult wide = timed("read.chunk", 65536, {1.0, 1.11, 0.92, 1.0, 1.0, 1.0});
    EXPECT_FALSE(wide.stable);
    EXPECT_EQ(variation(wide), "±11%");
    EXPECT_TRUE(wide.ranked());
    ASSERT_EQ(wide.warnings.size(), 1u);
    EXPECT_NE(wide.warnings[0].message.find("varies ±11%"), std::string::npos) << wide.warnings[0].message;
    // Five samples have no 95 % interval: nothing is said of their spread, and they rank.
    const CaseResult five = timed("read.chunk", 65536, {1.0, 1.5, 1.0, 0.7, 1.0});
    EXPECT_EQ(variation(five), "");
    EXPECT_TRUE(five.ranked());
}

TEST(Noise, TheMarginDecidesTheWinnerGroup) {
    const CaseResult fast = timed("read.chunk", 65536, kSteady1);
    // 5 % slower, as steady: in the group at a 10 % margin, out of it at 0 %.
    std::vector<double> five;
    for (double t : kSteady1) five.push_back(t * 1.05);
    const CaseResult near = timed("read.pread-chunk", 65536, five);
    EXPECT_EQ(stand({&fast, &near}, 0.10).winners().size(), 2u);
    EXPECT_EQ(stand({&fast, &near}, 0).winners(), std::vector<const CaseResult*>{&fast});
    // 30 % slower: out at 10 %, in at 50 %.
    std::vector<double> thirty;
    for (double t : kSteady1) thirty.push_back(t * 1.3);
    const CaseResult far = timed("read.pread-chunk", 65536, thirty);
    EXPECT_EQ(stand({&fast, &far}, 0.10).winners().size(), 1u);
    EXPECT_EQ(stand({&fast, &far}, 0.50).winners().size(), 2u);
}

TEST(Ranks, TiedCasesShareARankAndThePickIsTheSmallerBuffer) {
    const CaseResult big = timed("read.chunk", 1 << 20, {0.99, 1.0, 0.98, 1.0, 1.01, 0.99, 1.0});
    const CaseResult small = timed("read.chunk", 4096, kSteady1);
    const CaseResult slow = timed("read.stdio-chunk", 65536, kSteady2);
    const CaseResult slower = timed("read.byte-syscall", 0, {9.0, 9.1, 8.9, 9.0, 9.2, 8.8});
    const Standing s = stand({&slow, &big, &slower, &small});
    ASSERT_EQ(s.places.size(), 4u);
    // big's median is a hair faster, but the two are tied: the smaller buffer is the pick.
    EXPECT_EQ(s.leader, &big);
    EXPECT_EQ(s.pick, &small);
    EXPECT_EQ(s.places[0].c, &small);
    EXPECT_EQ(s.places[0].rank_text(), "1");
    EXPECT_EQ(s.places[1].c, &big);
    EXPECT_EQ(s.places[1].rank_text(), "1=");
    EXPECT_EQ(s.places[2].rank_text(), "3");
    EXPECT_EQ(s.places[3].rank_text(), "4");
    EXPECT_EQ(s.winners(), (std::vector<const CaseResult*>{&small, &big}));
    // A case racing stopped as clearly slower stays out of the winner group, though its samples
    // tie with the winner's now: racing showed it slower then, at that look's confidence.
    const CaseResult stopped = timed("read.mmap-chunks", 65536, kSteady1, StopReason::clearly_slower);
    const Standing t = stand({&big, &stopped});
    EXPECT_EQ(t.pick, &big);
    EXPECT_EQ(t.winners().size(), 1u);
    EXPECT_EQ(t.places[1].rank_text(), "2");
    const CaseResult stopped_slow = timed("read.mmap-chunks", 65536, kSteady2, StopReason::clearly_slower);
    const Standing u = stand({&small, &stopped_slow});
    EXPECT_EQ(u.pick, &small);
    EXPECT_EQ(u.winners().size(), 1u);
}

TEST(Ranks, AnUnverifiedCaseIsNotPickedOverATiedCheckedOne) {
    CaseResult cat = timed("read.cat", 0, kSteady1);
    cat.checked = Checked::none;
    cat.verified = false;
    const CaseResult chunk = timed("read.chunk", 1 << 20, {1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.01});
    // cat has no buffer (the smaller one by the rule), but nothing checked its work.
    const Standing s = stand({&cat, &chunk});
    EXPECT_EQ(s.pick, &chunk);
    EXPECT_EQ(s.winners().size(), 2u);
    // Alone, it is still the table's winner.
    EXPECT_EQ(stand({&cat}).pick, &cat);
}

TEST(NetTime, AToolIsTimedLessItsFixedCostPerPass) {
    CaseResult c;
    c.spec.strategy = Registry::builtin().find("read.fio");
    c.spec.workload.family = Family::read;
    c.spec.workload.size = 1 << 20;
    c.status = Status::ok;
    c.checked = Checked::byte_count;
    // Four passes a run: process 0.3 s + 4 x 2 ms; its probe 0.3 s.
    for (int i = 0; i < 6; ++i) {
        Sample s;
        s.passes = 4;
        s.fixed_s = 0.300 + 0.001 * (i % 2);
        s.wall_s = 0.308 + 0.001 * (i % 2);
        s.tool_s = 0.0079;
        s.bytes = 1 << 20;
        c.samples.push_back(s);
    }
    finish(c, RunOptions{}, 1e-9);
    EXPECT_TRUE(c.net());
    EXPECT_NEAR(c.stats.median, 0.002, 1e-9);          // (0.308 - 0.300) / 4
    EXPECT_NEAR(c.throughput_mib_s, 1 / 0.002, 1e-6);  // 1 MiB a pass
    EXPECT_NEAR(c.gross.median, 0.3085, 1e-9);         // the process, whole
    EXPECT_NEAR(c.fixed.median, 0.3005, 1e-9);
    // Written and read back, it is still net.
    Report r;
    r.cases.push_back(c);
    const Report back = read_report_json(to_json(r), "r.json");
    EXPECT_NEAR(back.cases[0].stats.median, 0.002, 1e-9);
    EXPECT_TRUE(back.cases[0].net());
}

TEST(Limits, EachKindOfWorkHasItsOwnCeiling) {
    const auto spec = [](const char* name, std::size_t buffer = 65536) {
        PlanRequest req;
        req.strategies = {name};
        req.sizes = {64u << 20};
        req.buffers = {buffer};
        req.byte_slice = 1 << 20;
        return build_plan(req).at(0);
    };
    const RunOptions warm;
    RunOptions cold;
    cold.cache = CacheMode::cold;
    using K = CeilingKey;
    const auto only = [&](const CaseSpec& c, const RunOptions& o) { return ceilings_of(c, o); };
    EXPECT_EQ(only(spec("read.chunk", 4096), warm), (std::vector<K>{{LimitKind::memcpy_into_buffer, 64u << 20, 4096}}));
    EXPECT_EQ(only(spec("read.mmap-chunks", 4096), warm),
              (std::vector<K>{{LimitKind::memcpy_into_buffer, 64u << 20, 4096}}));
    EXPECT_EQ(only(spec("read.mmap-scan"), warm), (std::vector<K>{{LimitKind::scan, 64u << 20, 0}}));
    EXPECT_EQ(only(spec("read.cat"), warm), (std::vector<K>{{LimitKind::memcpy_into_buffer, 64u << 20, 128u << 10}}));
    EXPECT_EQ(only(spec("read.byte-syscall"), warm), (std::vector<K>{{LimitKind::byte_loop, 1u << 20, 0}}));
    EXPECT_EQ(only(spec("copy.chunk"), warm), (std::vector<K>{{LimitKind::memcpy, 64u << 20, 0}}));
    // A kind with no bound in memory (its module says none) has none, warm or cold.
    for (const char* name : {"write.record-buffered", "durable.fsync", "files.read-openat", "replace.rename-fsync"})
        for (const RunOptions* o : std::initializer_list<const RunOptions*>{&warm, &cold})
            EXPECT_TRUE(only(spec(name), *o).empty()) << name;
    // From the device: cold, or a strategy that always bypasses the cache.
    EXPECT_EQ(only(spec("read.chunk"), cold),
              (std::vector<K>{{LimitKind::device, 64u << 20, 0}, {LimitKind::memcpy_into_buffer, 64u << 20, 65536}}));
    EXPECT_EQ(only(spec("read.direct"), warm).front(), (K{LimitKind::device, 64u << 20, 0}));
    // The lowest measured one is the case's; one not measured here is no ceiling.
    Limits l;
    l.ceilings = {{{LimitKind::device, 64u << 20, 0}, 900, ""},
                  {{LimitKind::memcpy_into_buffer, 64u << 20, 65536}, 20000, ""}};
    EXPECT_EQ(ceiling_for(l, spec("read.chunk"), cold)->mib_s, 900);
    EXPECT_EQ(ceiling_for(l, spec("read.chunk"), warm)->mib_s, 20000);
    l.ceilings[0].mib_s = 0;
    EXPECT_EQ(ceiling_for(l, spec("read.chunk"), cold)->mib_s, 20000);
}

// A report of the given cases, in one plain group.
Report report_of(std::vector<CaseResult> cases) {
    Report r;
    r.options.iterations = Amount{7, 0};
    r.cases = std::move(cases);
    return r;
}

TEST(Answer, NamesTheWinnerItsTiesAndBothReferences) {
    const Report r = report_of({timed("read.chunk", 1 << 20, {0.99, 1.0, 0.98, 1.0, 1.01, 0.99, 1.0}),
                                timed("read.chunk", 4096, kSteady1), timed("read.stdio-chunk", 65536, kSteady2),
                                timed("read.byte-syscall", 0, {9.0, 9.1, 8.9, 9.0, 9.2, 8.8})});
    const auto a = answers(ranked_tables(r));
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].winner, "read.chunk buffer=4K");
    ASSERT_EQ(a[0].tied.size(), 1u);
    EXPECT_EQ(a[0].tied[0].label, "read.chunk buffer=1M");
    EXPECT_EQ(a[0].tied[0].samples, 7u);
    EXPECT_EQ(a[0].samples, 7u);
    ASSERT_EQ(a[0].versus.size(), 2u);
    EXPECT_EQ(a[0].versus[0].role, "everyday");
    EXPECT_EQ(a[0].versus[0].label, "read.stdio-chunk buffer=64K");
    EXPECT_NEAR(a[0].versus[0].ratio.ratio, 2.0, 1e-9);
    EXPECT_EQ(a[0].versus[1].role, "slowest");
    EXPECT_EQ(a[0].text(),
              "read, 1 MiB, warm: read.chunk buffer=4K, 1000 MiB/s (980-1020 MiB/s, n=7); or any of these, none "
              "shown 10% slower than another: read.chunk buffer=1M (1000 MiB/s, n=7); 2.00x (1.96-2.04) faster than "
              "read.stdio-chunk buffer=64K, 9.00x (8.80-9.20) faster than read.byte-syscall");
    // The answer stands first in the terminal and is `answer` in the JSON.
    const std::string out = render_terminal(r, {});
    EXPECT_EQ(out.find("the answer\n"), out.find('\n', out.find("machine:")) + 2) << out;
    EXPECT_EQ(report_to_json(r)["answer"][0]["winner"], "read.chunk buffer=4K");
}

TEST(Answer, AReferenceWithinTheMarginIsInTheWinnerGroupNotBesideIt) {
    // The everyday way 30 % slower, steadily: out of the group, a reference, faster than it.
    std::vector<double> thirty, five;
    for (double t : kSteady1) {
        thirty.push_back(t * 1.3);
        five.push_back(t * 1.05);
    }
    const auto a = answers(
        ranked_tables(report_of({timed("read.chunk", 4096, kSteady1), timed("read.stdio-chunk", 65536, thirty)})));
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(a[0].versus.size(), 1u);
    EXPECT_FALSE(a[0].versus[0].tied);
    EXPECT_NE(a[0].text().find("1.30x (1.27-1.33) faster than read.stdio-chunk"), std::string::npos) << a[0].text();
    // 5 % slower: within the margin, so in the winner group, and no reference.
    const auto b = answers(
        ranked_tables(report_of({timed("read.chunk", 4096, kSteady1), timed("read.stdio-chunk", 65536, five)})));
    ASSERT_EQ(b.size(), 1u);
    EXPECT_TRUE(b[0].versus.empty());
    EXPECT_NE(b[0].text().find("or any of these, none shown 10% slower than another: read.stdio-chunk buffer=64K"),
              std::string::npos)
        << b[0].text();
}

TEST(Answer, OneStrategyHasNoneAndNoiseStillHasAWinner) {
    EXPECT_TRUE(
        answers(ranked_tables(report_of({timed("read.chunk", 4096, kSteady1), timed("read.chunk", 65536, kSteady2)})))
            .empty());
    const auto a =
        answers(ranked_tables(report_of({timed("read.mmap-scan", 0, kNoisy), timed("read.chunk", 65536, kSteady1)})));
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].winner, "read.chunk buffer=64K");
    EXPECT_NE(a[0].text().find("read.mmap-scan (1.15 GiB/s, varies ±76%, n=7)"), std::string::npos) << a[0].text();
    // Only a table where no case has a figure has no winner.
    CaseResult x = timed("read.chunk", 4096, kSteady1), y = timed("read.stdio-chunk", 4096, kSteady2);
    x.no_figure = y.no_figure = "above its ceiling";
    const auto none = answers(ranked_tables(report_of({x, y})));
    ASSERT_EQ(none.size(), 1u);
    EXPECT_TRUE(none[0].winner.empty());
    EXPECT_NE(none[0].text().find("no case could be measured"), std::string::npos) << none[0].text();
}

// A table whose cases were all skipped shows them (there is no winner to show instead).
TEST(Answer, ATableOfSkippedCasesShowsThemAll) {
    CaseResult a = timed("read.chunk", 4096, {}), b = timed("read.stdio-chunk", 4096, {});
    a.status = b.status = Status::skipped;
    a.reason = "no reason one";
    b.reason = "no reason two";
    const std::string out = render_terminal(report_of({a, b}), {false, 100, false});
    EXPECT_NE(out.find("no reason one"), std::string::npos) << out;
    EXPECT_NE(out.find("no reason two"), std::string::npos) << out;
    EXPECT_EQ(out.find("more row"), std::string::npos) << out;
}

// A table that measured nothing has an answer saying why: its cases' most common reason, and how
// many; a run that measured nothing at all says so to the command's status (measured_nothing).
TEST(Answer, ATableThatMeasuredNothingSaysWhyInItsAnswer) {
    CaseResult a = timed("read.chunk", 4096, {}), b = timed("read.stdio-chunk", 4096, {}),
               c = timed("read.mmap-scan", 0, {});
    a.status = b.status = c.status = Status::skipped;
    a.reason = b.reason = "the time budget was spent before its first sample (raise --time-budget)";
    c.reason = "another reason";
    Report r = report_of({a, b, c});
    auto out = answers(ranked_tables(r));
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(out[0].winner.empty());
    EXPECT_NE(out[0].text().find("nothing was measured: 2 of 3 cases were skipped: the time budget was spent before "
                                 "its first sample (raise --time-budget); the other 1: see the table"),
              std::string::npos)
        << out[0].text();
    EXPECT_TRUE(r.measured_nothing());
    EXPECT_NE(render_terminal(r, {false, 200, false}).find("nothing was measured"), std::string::npos);
    b.status = c.status = Status::failed;
    b.reason = c.reason = "output differs";
    out = answers(ranked_tables(report_of({a, b, c})));
    ASSERT_EQ(out.size(), 1u);
    EXPECT_NE(out[0].text().find("nothing was measured: 2 of 3 cases failed: output differs"), std::string::npos)
        << out[0].text();
    // One case measured: an answer as ever (none for one strategy), and something was measured.
    const Report some = report_of({a, timed("read.mmap-scan", 0, kSteady1)});
    EXPECT_FALSE(some.measured_nothing());
    EXPECT_TRUE(answers(ranked_tables(some)).empty());
    EXPECT_FALSE(Report{}.measured_nothing());  // nothing planned is not nothing measured
}

// Racing on a fake clock: a fast case and a case four times slower, within a group budget.
test::FakeClock* g_clock = nullptr;
unsigned g_runs = 0;  // runs of the fake strategies in this test (each test starts from 0)

Strategy fake(const char* name, std::uint64_t ns, double spread) {
    return test::made_strategy(name, Family::read, [ns, spread](const Job& j) {
        Registry::builtin().find("read.chunk")->run(j);  // reads the file, for the verification
        const unsigned k = g_runs;
        const double wobble = 1 + spread * (static_cast<double>(k % 7) - 3) / 3;  // -spread .. +spread
        // And k ns more: no two runs take the same time (the exact U test is for samples without ties).
        g_clock->t += static_cast<std::uint64_t>(static_cast<double>(ns) * wobble) + k;
        ++g_runs;
    });
}

// A case of s reading one page.
CaseSpec page_read(const Strategy& s) { return test::read_case(s, 4096); }

// The same in group "g".
CaseSpec in_group(const Strategy& s) {
    static const std::string kGroup = "g";
    CaseSpec c = page_read(s);
    c.group = kGroup;
    return c;
}

// A racing test's fake clock (the fake strategies advance it) and scratch folder.
struct FakeRun {
    test::FakeClock clock;
    ScratchDir dir;
    FakeRun() {
        g_clock = &clock;
        g_runs = 0;
    }
    // One group of these cases raced with the default options for budget_s, the clock from 0;
    // held and holds as run_group takes them.
    std::vector<CaseResult> race(const std::vector<CaseSpec>& specs, double budget_s,
                                 const std::vector<bool>& held = {}, const HoldFn& holds = {}) {
        clock.t = 0;
        return run_group(specs, RunOptions{}, dir, clock, {}, held, holds, budget_s);
    }
    // A case reading a page for each fake strategy: its name, the nanoseconds a run takes and how
    // far its runs spread (±); in group "g" (a finding's) when grouped.
    struct Fake {
        const char* name;
        std::uint64_t ns;
        double spread;
    };
    std::vector<CaseSpec> cases(std::initializer_list<Fake> fakes, bool grouped = false) {
        std::vector<CaseSpec> specs;
        for (const Fake& f : fakes) {
            strategies.push_back(fake(f.name, f.ns, f.spread));
            specs.push_back(grouped ? in_group(strategies.back()) : page_read(strategies.back()));
        }
        return specs;
    }
    std::deque<Strategy> strategies;  // the cases' (a deque: they do not move)
};

TEST(Racing, AClearlySlowerCaseStopsEarlyAndTheRestGoesOnUntilPrecise) {
    FakeRun run;
    const auto r = run.race(run.cases({{"read.fast", 1'000'000, 0.02}, {"read.slow", 4'000'000, 0.02}}),
                            100);  // far more than it needs
    ASSERT_EQ(r.size(), 2u);
    // The slow one, four times as slow: too close for the envelope of one or two samples (25x, 8.5x),
    // shown slower at the third look (beyond 2.5x, the envelope of three, and the 10 % margin).
    EXPECT_EQ(r[1].stopped, StopReason::clearly_slower);
    EXPECT_EQ(r[1].samples.size(), 3u);
    // The fast one, alone in its table then, goes on until it is precise.
    EXPECT_EQ(r[0].stopped, StopReason::precise) << to_string(r[0].stopped);
    EXPECT_LT(run.clock.t, 1'000'000'000u);
}

// Thirty times as slow: beyond the envelope of one sample, it stops after its first.
TEST(Racing, AFarSlowerCaseStopsAfterItsFirstSample) {
    FakeRun run;
    const auto r = run.race(run.cases({{"read.fast", 1'000'000, 0.02}, {"read.slow", 30'000'000, 0.02}}), 100);
    EXPECT_EQ(r[1].stopped, StopReason::clearly_slower);
    EXPECT_EQ(r[1].samples.size(), 1u);
}

TEST(Racing, TwoNoisyTiedCasesRunToTheBudgetAndVary) {
    FakeRun run;
    const auto r = run.race(run.cases({{"read.a", 1'000'000, 0.5}, {"read.b", 1'000'000, 0.5}}), 0.2);
    for (const auto& c : r) {
        EXPECT_EQ(c.stopped, StopReason::run_budget);
        EXPECT_GE(run.clock.t, 200'000'000u);
    }
    // ±50 % spread: never within ±10 %; both in the winner group all the same.
    EXPECT_FALSE(r[0].stable);
    EXPECT_FALSE(r[1].stable);
    EXPECT_EQ(stand({&r[0], &r[1]}).winners().size(), 2u);
}

// A case a finding holds samples on is never stopped as slower; but, slow and kept in doubt, it
// may spend only four times what the table's other open cases spent (the median of them).
TEST(Racing, AHeldSlowCaseStopsAtItsFairShare) {
    FakeRun run;
    const auto r =
        run.race(run.cases({{"read.a", 1'000'000, 0.5}, {"read.b", 1'000'000, 0.5}, {"read.slow", 10'000'000, 0.02}}),
                 0.5, {false, false, true});
    ASSERT_EQ(r.size(), 3u);
    // After its sixth sample it has spent 60 ms against the others' 6 ms (5 is the fewest its own
    // budget may stop).
    EXPECT_EQ(r[2].stopped, StopReason::case_budget) << to_string(r[2].stopped);
    EXPECT_EQ(r[2].samples.size(), 6u);
    // The two noisy ones keep each other in doubt to the end of the group's share.
    EXPECT_EQ(r[0].stopped, StopReason::run_budget);
    EXPECT_GT(r[0].samples.size(), 20u);
}

// A case is looked at with 1, 2, 3, 5, 8, 12, 16, 24, ... samples only: a clearly slower case stops
// at one of them.
TEST(Racing, ACaseIsStoppedOnlyAtItsLooks) {
    FakeRun run;
    // Half as slow again, each ±30 %: not told apart beyond the margin with a few samples a side.
    const auto r = run.race(run.cases({{"read.fast", 1'000'000, 0.3}, {"read.slow", 1'500'000, 0.3}}), 100);
    ASSERT_EQ(r.size(), 2u);
    ASSERT_EQ(r[1].stopped, StopReason::clearly_slower) << to_string(r[1].stopped);
    const std::size_t n = r[1].samples.size();
    EXPECT_GT(n, 3u);
    EXPECT_EQ(look_samples(look_at(n)), n) << n;
}

// A group whose time is spent before a case's first sample: the case is skipped, saying why.
TEST(Racing, ACaseTheBudgetRanOutOnIsSkippedWithTheReason) {
    FakeRun run;
    // The warm-ups (20 ms) are outside the budget; the first sample of the first case measured
    // (10 ms) spends it all, and the other case is not reached.
    const auto r = run.race(run.cases({{"read.a", 10'000'000, 0.02}, {"read.b", 10'000'000, 0.02}}), 0.001);
    ASSERT_EQ(r.size(), 2u);
    int skipped = 0;
    for (const auto& c : r) {
        if (c.status != Status::skipped) {
            EXPECT_EQ(c.samples.size(), 1u) << c.spec.label();
            continue;
        }
        ++skipped;
        EXPECT_NE(c.reason.find("raise --time-budget"), std::string::npos) << c.reason;
        EXPECT_TRUE(c.samples.empty());
    }
    EXPECT_EQ(skipped, 1);
}

// The looks of racing and of sequential verdicts: 1, 2, 3, 5, 8, then half again and twice in turn.
TEST(Sequential, TheLooksComeAtTheirSampleCounts) {
    const std::vector<std::size_t> want = {1, 2, 3, 5, 8, 12, 16, 24, 32, 48, 64, 96, 128};
    for (std::size_t j = 0; j < want.size(); ++j) {
        EXPECT_EQ(look_samples(j + 1), want[j]) << j;
        EXPECT_EQ(look_at(want[j]), j + 1);
        EXPECT_EQ(looks_until(want[j]), j + 1);
        if (look_at(want[j] + 1) == 0) {
            EXPECT_EQ(looks_until(want[j] + 1), j + 1);
        }
    }
    EXPECT_EQ(look_at(4), 0u);
    EXPECT_EQ(look_at(20), 0u);
    EXPECT_EQ(looks_until(0), 0u);
}

// The looks spend alpha/4, alpha/8, ...; the end spends the rest: alpha in all, whatever their number.
TEST(Sequential, TheLooksAndTheEndSpendAlphaInAll) {
    const double alpha = 1 - kRatioConfidence;
    EXPECT_DOUBLE_EQ(final_confidence(0), kRatioConfidence);  // no look: the rule of a single judgement
    for (std::size_t looks = 0; looks < 12; ++looks) {
        double spent = 1 - final_confidence(looks);
        for (std::size_t j = 1; j <= looks; ++j) spent += look_alpha(j);
        EXPECT_NEAR(spent, alpha, 1e-15) << looks;
    }
}

// A suite of one group "g" with one finding: `faster` at least `at_least` times as fast as `slower`.
Suite one_finding(double at_least, const RunOptions& opts, const char* faster = "read.fast",
                  const char* slower = "read.slow") {
    Suite s;
    s.name = "t";
    Group g;
    g.id = "g";
    g.options = opts;
    s.groups.push_back(g);
    Finding f;
    f.claim = "slow is slower";
    f.faster = Selector{"g", {faster}, {}, false};
    f.slower = Selector{"g", {slower}, {}, false};
    f.at_least = at_least;
    s.findings.push_back(f);
    return s;
}

// 400 times slower against a claim of 100x: decided at an early look, and the slow case, let go,
// stops there; without the looks it would have been measured to the end of the group's time.
// Held by the finding, it reaches the samples of that look although it spends far more than its
// fair share (a third case, not in the finding, makes the table's median spend small).
TEST(Sequential, AFindingFarBeyondItsThresholdStopsAtTheFirstLook) {
    FakeRun run;
    const std::vector<CaseSpec> c = run.cases(
        {{"read.fast", 1'000'000, 0.3}, {"read.slow", 400'000'000, 0.3}, {"read.other", 1'000'000, 0.3}}, true);
    RunOptions opts;
    const Suite suite = one_finding(100, opts);
    Judge judge(suite);
    std::vector<FindingResult> said;
    judge.on_decided = [&](const FindingResult& f) { said.push_back(f); };
    const HoldFn holds = [&](const std::vector<CaseResult>& now) { return judge.hold({}, now); };
    const auto r = run.race(c, 60, {true, true, false}, holds);
    ASSERT_EQ(said.size(), 1u);
    EXPECT_EQ(said[0].verdict, Verdict3::holds);
    // Three samples a side are too few (the envelope of three is 2.5x wide: 400 / 1.3 * 0.7 / 2.5
    // is under 100); five are enough (1.7x).
    EXPECT_EQ(said[0].samples, 5u);
    EXPECT_EQ(said[0].look, look_at(5));
    EXPECT_GE(said[0].low, 100);
    EXPECT_EQ(r[1].samples.size(), 5u);
    EXPECT_EQ(r[1].stopped, StopReason::clearly_slower) << to_string(r[1].stopped);
    const auto v = judge.verdicts(r);
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].verdict, Verdict3::holds);
    EXPECT_EQ(v[0].outcome().find("HOLDS "), 0u) << v[0].outcome();
    EXPECT_NE(v[0].outcome().find("after 5 samples"), std::string::npos) << v[0].outcome();
    // A case that fails afterwards takes the verdict back: judged at the end, it is INCONCLUSIVE.
    auto broken = r;
    broken[1].status = Status::failed;
    broken[1].reason = "EIO";
    const auto w = judge.verdicts(broken);
    EXPECT_EQ(w[0].verdict, Verdict3::inconclusive);
    EXPECT_EQ(w[0].look, 0u);
    // The same group held to the end (the rule without looks): the slow case runs on.
    const auto held = run.race({c[0], c[1]}, 60, {true, true});
    EXPECT_GT(held[1].samples.size(), 16u);
    // And without the looks, with the third case, its fair share stops it at 6 samples.
    const auto fair = run.race(c, 60, {true, true, false});
    EXPECT_EQ(fair[1].samples.size(), 6u);
    EXPECT_EQ(fair[1].stopped, StopReason::case_budget);
}

// Twice as slow against a claim of 2x: no look can decide it, and the group's time ends it:
// INCONCLUSIVE, saying so, with its interval across the threshold. So too when the cases are
// precise within a few samples: a case a finding holds goes on while it is undecided (buffer-sweep's
// pipeline stopped as precise at 8 samples with its interval [1.00x, 1.14x] across 1.05x); not
// held, it stops as precise.
TEST(Sequential, AFindingOnItsThresholdIsUndecidedAtTheBudget) {
    // ±15 %: within ±10 % of the median (stable), never within ±3 % (precise) in the time given;
    // ±0.5 %: precise within a few samples.
    for (const double spread : {0.15, 0.005}) {
        SCOPED_TRACE(spread);
        FakeRun run;
        const std::vector<CaseSpec> c =
            run.cases({{"read.fast", 1'000'000, spread}, {"read.slow", 2'000'000, spread}}, true);
        RunOptions opts;
        const Suite suite = one_finding(2, opts);
        Judge judge(suite);
        std::size_t decided = 0;
        judge.on_decided = [&](const FindingResult&) { ++decided; };
        const HoldFn holds = [&](const std::vector<CaseResult>& now) { return judge.hold({}, now); };
        const auto r = run.race(c, 0.4, {true, true}, holds);
        EXPECT_EQ(decided, 0u);
        EXPECT_EQ(r[0].stopped, StopReason::run_budget) << to_string(r[0].stopped);
        EXPECT_EQ(r[1].stopped, StopReason::run_budget) << to_string(r[1].stopped);
        EXPECT_GE(r[1].samples.size(), 16u);  // looked at seven times, at least
        const auto v = judge.verdicts(r);
        ASSERT_EQ(v.size(), 1u);
        EXPECT_EQ(v[0].verdict, Verdict3::inconclusive);
        EXPECT_NE(v[0].note.find("straddles >= 2.00x (undecided within the budget)"), std::string::npos) << v[0].note;
        EXPECT_EQ(v[0].look, 0u);
        EXPECT_LT(v[0].low, 2);
        EXPECT_GE(v[0].high, 2);
        if (spread > 0.01) continue;
        const auto free = run.race(c, 0.4);
        EXPECT_EQ(free[0].stopped, StopReason::precise) << to_string(free[0].stopped);
        EXPECT_LT(free[0].samples.size(), r[0].samples.size());
    }
}

// In a run with findings the time goes to what they need: a case no finding holds stops as settled
// once its table can place it (kPlacedSamples), however close it stands to the leader; the held
// ones go on until their finding is decided, and then the group ends, long before its budget.
TEST(Sequential, ACaseNoFindingHoldsStopsOnceItsTableCanPlaceIt) {
    FakeRun run;
    // ±15 %: never precise; the two cases beside the finding's are never told apart.
    const std::vector<CaseSpec> specs = run.cases({{"read.fast", 1'000'000, 0.15},
                                                   {"read.slow", 3'000'000, 0.15},
                                                   {"read.other", 1'000'000, 0.15},
                                                   {"read.near", 1'050'000, 0.15}},
                                                  true);
    RunOptions opts;
    const Suite suite = one_finding(1.5, opts);  // 3x against 1.5x: decided at a look
    Judge judge(suite);
    const HoldFn holds = [&](const std::vector<CaseResult>& now) { return judge.hold({}, now); };
    const auto r = run.race(specs, 60, {true, true, false, false}, holds);
    EXPECT_EQ(judge.decided(), 1u);
    for (const std::size_t i : {2u, 3u}) {
        EXPECT_EQ(r[i].samples.size(), kPlacedSamples) << i;
        EXPECT_EQ(r[i].stopped, StopReason::settled) << to_string(r[i].stopped);
    }
    EXPECT_GT(r[0].samples.size(), kPlacedSamples);  // held until the look that decided it
    for (const auto& c : r) EXPECT_NE(c.stopped, StopReason::run_budget) << c.spec.label();
    EXPECT_LT(static_cast<double>(run.clock.t), 1e9);  // the group's 60 s: not needed
    // Without findings (a run for its tables), the same two go on: they are the answer.
    const auto plain = run.race(specs, 60);
    EXPECT_GT(plain[2].samples.size(), kPlacedSamples);
    EXPECT_GT(plain[3].samples.size(), kPlacedSamples);
}

// A case of group "g" that ran and whose output was checked, without samples yet.
CaseResult checked_case(const char* strategy) {
    CaseResult c;
    c.spec = in_group(*Registry::builtin().find(strategy));
    c.status = Status::ok;
    c.checked = Checked::content;
    return c;
}

// A knee holds each point of its sweep until its table can place it (kPlacedSamples), not to the
// end; a finding one of whose cases can never decide it (its output unchecked) holds nothing.
TEST(Sequential, AKneeHoldsItsPointsUntilPlacedAndAHopelessFindingNothing) {
    Suite s = one_finding(2, RunOptions{}, "read.pread-chunk", "read.cat");
    KneeSpec k;
    k.group = "g";
    k.strategy = "read.chunk";
    s.knees.push_back(k);
    std::vector<CaseResult> now;
    for (const char* name : {"read.chunk", "read.pread-chunk", "read.cat"}) now.push_back(checked_case(name));
    const auto add_sample = [&](CaseResult& c) {
        Sample x;
        x.wall_s = 1e-3 * (1 + 0.01 * static_cast<double>(c.samples.size()));
        x.bytes = 1 << 20;
        c.samples.push_back(x);
    };
    Judge judge(s);
    for (std::size_t n = 1; n < kPlacedSamples; ++n) {
        for (auto& c : now) add_sample(c);
        const std::vector<bool> held = judge.hold({}, now);
        EXPECT_TRUE(held[0]) << n;             // the knee's point
        EXPECT_TRUE(held[1] && held[2]) << n;  // the finding's cases, both checked
    }
    for (auto& c : now) add_sample(c);
    EXPECT_FALSE(judge.hold({}, now)[0]);  // kPlacedSamples: placed
    // The same finding with its slower case unchecked (cat's output is not): it can never be
    // decided, so it holds neither case from the first sample on.
    Judge hopeless(s);
    for (auto& c : now) c.samples.resize(1);
    now[2].checked = Checked::none;
    const std::vector<bool> held = hopeless.hold({}, now);
    EXPECT_FALSE(held[1]);
    EXPECT_FALSE(held[2]);
    EXPECT_EQ(hopeless.decided(), 0u);
    EXPECT_EQ(hopeless.verdicts(now)[0].verdict, Verdict3::inconclusive);
}

// A side whose every case failed or was skipped holds the other side no longer; and whether a
// finding can be decided is asked each round: a side whose pick was unchecked holds again once a
// checked case overtakes it.
TEST(Sequential, AFindingLetsGoOfAGoneSideAndHoldsAgainWhenItsPickIsFit) {
    std::vector<CaseResult> now = {checked_case("read.chunk"), checked_case("read.cat")};
    Sample x;
    x.wall_s = 1e-3;
    x.bytes = 1 << 20;
    now[0].samples = {x};
    now[1].status = Status::skipped;
    EXPECT_EQ(Judge(one_finding(2, RunOptions{}, "read.chunk", "read.cat")).hold({}, now),
              (std::vector<bool>{false, false}));
    // The faster side: cat (its output unchecked) or chunk, whichever is faster; pread-chunk slower.
    Suite s = one_finding(2, RunOptions{}, "read.chunk", "read.pread-chunk");
    s.findings[0].faster.strategies.push_back("read.cat");
    now = {checked_case("read.chunk"), checked_case("read.cat"), checked_case("read.pread-chunk")};
    for (auto& c : now) c.samples = {x};
    now[1].checked = Checked::none;
    now[0].throughput_mib_s = 900;
    now[1].throughput_mib_s = 1000;
    now[2].throughput_mib_s = 100;
    Judge judge(s);
    EXPECT_EQ(judge.hold({}, now), (std::vector<bool>{false, false, false}));  // cat's pick: hopeless
    now[0].throughput_mib_s = 1100;
    EXPECT_EQ(judge.hold({}, now), (std::vector<bool>{true, true, true}));  // chunk's: held again
}

// Looks come only for findings raced in this process, and with the group measured now: a group of
// fixed iterations or in child processes is judged at the end, and so is a finding of groups over.
TEST(Sequential, OnlyFindingsRacedNowAreLookedAt) {
    std::vector<CaseResult> cases = {checked_case("read.chunk"), checked_case("read.pread-chunk")};
    for (std::size_t k = 0; k < 2; ++k) {
        for (int i = 0; i < 16; ++i) {
            Sample x;
            x.wall_s = (k == 0 ? 1e-3 : 1e-2) * (1 + 0.01 * i);
            x.bytes = 1 << 20;
            cases[k].samples.push_back(x);
        }
    }
    const auto decided = [&](const RunOptions& opts, bool now) {
        Judge judge(one_finding(2, opts, "read.chunk", "read.pread-chunk"));
        now ? judge.hold({}, cases) : judge.hold(cases, {});
        return judge.decided();
    };
    RunOptions raced, fixed, forked;
    fixed.iterations = Amount{16, 0};
    forked.forks = 2;
    EXPECT_EQ(decided(raced, true), 1u);  // 10x against 2x, 16 samples a side
    EXPECT_EQ(decided(fixed, true), 0u);
    EXPECT_EQ(decided(forked, true), 0u);
    EXPECT_EQ(decided(raced, false), 0u);
}

// Synthetic findings whose true ratio is their threshold: a verdict either way is wrong. Half
// claim "at least 3x", half "within 25%" with the truth at 1.25x; times are log-normal, the slower
// case's the threshold times the faster's. Each finding is looked at as its samples come, up to
// `end` samples a side, and then (`judged`) given its verdict at the end; returns the wrong ones
// and, in `at_looks`, how many of them a look decided.
int wrong_verdicts(int findings, std::size_t end, bool judged, int& at_looks) {
    std::mt19937_64 rng(0x5e9u);
    std::lognormal_distribution<double> noise(0, 0.2);
    const Strategy* strategies[] = {Registry::builtin().find("read.chunk"),
                                    Registry::builtin().find("read.pread-chunk")};
    std::vector<CaseResult> blank(2);
    for (std::size_t k = 0; k < 2; ++k) {
        blank[k].spec = in_group(*strategies[k]);
        blank[k].status = Status::ok;
        blank[k].checked = Checked::content;
    }
    const auto sample = [](double s) {
        Sample x;
        x.wall_s = s;
        x.bytes = 1 << 20;
        return x;
    };
    int wrong = 0;
    at_looks = 0;
    for (int i = 0; i < findings; ++i) {
        const double truth = i % 2 ? 3.0 : 1.25;
        // Raced in this process: its findings are looked at.
        Suite s = one_finding(i % 2 ? 3.0 : 0, RunOptions{}, "read.chunk", "read.pread-chunk");
        if (i % 2 == 0) s.findings[0].within = 0.25;
        Judge judge(s);
        std::vector<CaseResult> now = blank;
        for (std::size_t n = 1; n <= end && judge.decided() == 0; ++n) {
            now[0].samples.push_back(sample(1e-3 * noise(rng)));
            now[1].samples.push_back(sample(truth * 1e-3 * noise(rng)));
            // After every round in a run; here where a look may be due (the rest look at nothing).
            if (look_at(n) > 0) judge.hold({}, now);
        }
        at_looks += static_cast<int>(judge.decided());
        if (!judged) continue;
        for (auto& c : now) finish(c, RunOptions{}, 1e-9);
        if (judge.verdicts(now)[0].verdict != Verdict3::inconclusive) ++wrong;
    }
    return judged ? wrong : at_looks;
}

// 4,000 findings, each looked at up to eleven times (3, 5, 8, ... 128 samples a side): the looks
// together err at most their share of alpha, half of it.
TEST(Sequential, RepeatedLooksErrAtMostTheirShareOfAlpha) {
    constexpr int kFindings = 4000;
    int at_looks = 0;
    const int wrong = wrong_verdicts(kFindings, 128, false, at_looks);
    EXPECT_LE(wrong, static_cast<int>((1 - kRatioConfidence) / 2 * kFindings));
    std::printf("%d of %d decided, wrongly, at a look\n", wrong, kFindings);
}

// 2,000 findings looked at up to eight times (3 to 32) and judged at the end (40 samples a side):
// the whole rule errs at most alpha.
TEST(Sequential, TheWholeRuleErrsAtMostAlpha) {
    constexpr int kFindings = 2000;
    int at_looks = 0;
    const int wrong = wrong_verdicts(kFindings, 40, true, at_looks);
    EXPECT_LE(wrong, static_cast<int>((1 - kRatioConfidence) * kFindings));
    std::printf("%d of %d wrong, %d of them at a look\n", wrong, kFindings, at_looks);
}

// Files of different sizes are tables of their own, each named by its size: a read of 1 MiB is never
// a row beside one of 64 MiB (the rows could not be told apart), nor raced against it; a byte loop's
// slice stands for its whole file.
TEST(Answer, EachSizeOfFileIsATableOfItsOwn) {
    CaseResult big = timed("read.chunk", 65536, kSteady1), slice = timed("read.byte-syscall", 0, kSteady2);
    big.spec.workload.size = 64 << 20;
    slice.spec.full_bytes = 64 << 20;  // a slice of 1 MiB of the 64 MiB file
    const Report r =
        report_of({timed("read.chunk", 65536, kSteady2), timed("read.pread-chunk", 65536, kSteady1), big, slice});
    const auto tables = ranked_tables(r);
    ASSERT_EQ(tables.size(), 2u);
    EXPECT_EQ(tables[0].table.title, "read, 1 MiB (cache warm, sync none, verify sampled)");
    EXPECT_EQ(tables[0].cases.size(), 2u);
    EXPECT_EQ(tables[1].table.title, "read, 64 MiB (cache warm, sync none, verify sampled)");
    EXPECT_EQ(tables[1].cases.size(), 2u);
    EXPECT_EQ(answers(tables).size(), 2u);
    // A run of more sizes than its header names: every table names its own, one of its family too.
    std::vector<CaseResult> many;
    for (std::uint64_t mib : {1, 2, 4, 8}) {
        many.push_back(timed("read.chunk", 65536, kSteady1));
        many.back().spec.workload.size = mib << 20;
    }
    many.push_back(timed("copy.chunk", 65536, kSteady1));
    const auto named = ranked_tables(report_of(many));
    ASSERT_EQ(named.size(), 5u);
    EXPECT_EQ(named.back().table.title, "copy, 1 MiB (cache warm, sync none, verify sampled)");
    // One size: one table, named as before.
    EXPECT_EQ(ranked_tables(report_of({timed("read.chunk", 65536, kSteady1)})).front().table.title,
              "read (cache warm, sync none, verify sampled)");
}

// Several questions are one compact table on a page, a row each: the table, the pick, its figure,
// the rest of its group by what differs from it, and the pick against the everyday way.
TEST(Answer, SeveralAreOneCompactTable) {
    std::vector<double> thirty;
    for (double t : kSteady1) thirty.push_back(t * 1.3);
    CaseResult copy = timed("copy.chunk", 65536, kSteady1), copy_tied = timed("copy.pread-chunk", 65536, kSteady1);
    const Report r = report_of({timed("read.chunk", 4096, kSteady1), timed("read.chunk", 1 << 20, kSteady1),
                                timed("read.stdio-chunk", 65536, thirty), copy, copy_tied});
    const Document d = build_document(r);
    ASSERT_EQ(d.answers.size(), 2u);
    ASSERT_TRUE(d.sections.front().table);
    const Table& t = *d.sections.front().table;
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_EQ(t.columns[4].name, "vs everyday");
    EXPECT_EQ(t.rows[0].cells, (std::vector<std::string>{"read, 1 MiB, warm", "read.chunk buffer=4K",
                                                         "1000 MiB/s (980-1020 MiB/s, n=7)", "read.chunk buffer=1M",
                                                         "1.30x (1.27-1.33) faster than read.stdio-chunk buffer=64K"}));
    // The other copy strategy at the same buffer is named alone; copy's everyday way did not run.
    EXPECT_EQ(t.rows[1].cells[3], "copy.pread-chunk");
    EXPECT_EQ(t.rows[1].cells[4], "not in this table");
    // The terminal keeps a line each; one question is a line on the page too.
    EXPECT_EQ(d.sections.front().lines.size(), 2u);
    EXPECT_FALSE(
        build_document(report_of({timed("read.chunk", 4096, kSteady1), timed("read.stdio-chunk", 65536, thirty)}))
            .sections.front()
            .table);
}

TEST(Runtimes, EachJvmMethodStandsBesideItsCounterpartOnTheSameWork) {
    // The JVM's FileChannel.read takes twice read(2)'s time at 64K; at 1M the two are alike.
    CaseResult jvm64 = timed("jvm.read-channel", 65536, kSteady2), cpp64 = timed("read.chunk", 65536, kSteady1);
    CaseResult jvm1m = timed("jvm.read-channel", 1 << 20, kSteady1), cpp1m = timed("read.chunk", 1 << 20, kSteady1);
    // Not the same work: another strategy, another group, another size.
    CaseResult other = timed("read.pread-chunk", 65536, kSteady1);
    CaseResult elsewhere = timed("jvm.read-channel", 65536, kSteady2);
    elsewhere.spec.group = "other";
    CaseResult larger = timed("read.chunk", 65536, kSteady1);
    larger.spec.workload.size = 2 << 20;
    const Report r = report_of({jvm64, cpp64, jvm1m, cpp1m, other, elsewhere, larger});
    const Table t = runtimes_table(r);
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_TRUE(test::cells_are(
        t.rows[0],
        {{0, "jvm.read-channel buffer=64K"}, {1, "read.chunk buffer=64K"}, {2, "2.00x"}, {4, "C++ 2.00x faster"}}));
    EXPECT_TRUE(test::cells_are(t.rows[1], {{0, "jvm.read-channel buffer=1M"}, {4, "tied (within 10%)"}}));
    // A terminal shows it with --all; without, it is left out.
    EXPECT_NE(render_terminal(r, {false, 200, true}).find("the JVM beside C++"), std::string::npos);
    EXPECT_EQ(render_terminal(r, {false, 200, false}).find("the JVM beside C++"), std::string::npos);
    // No pair measured, no section.
    EXPECT_TRUE(runtimes_table(report_of({jvm64, other})).rows.empty());
    EXPECT_EQ(render_terminal(report_of({jvm64, other}), {false, 200, true}).find("the JVM beside C++"),
              std::string::npos);
}

TEST(Runtimes, EveryCounterpartIsAStrategyOfTheSameKindOutsideTheJvm) {
    std::size_t pairs = 0;
    for (const Strategy& s : Registry::builtin().all()) {
        if (s.counterpart.empty()) continue;
        ++pairs;
        EXPECT_TRUE(s.name.starts_with("jvm.")) << s.name;
        const Strategy* c = Registry::builtin().find(s.counterpart);
        ASSERT_NE(c, nullptr) << s.name << " names " << s.counterpart;
        EXPECT_EQ(c->family, s.family) << s.name;
        EXPECT_FALSE(c->name.starts_with("jvm.")) << s.name;
        // Every parameter the C++ strategy takes, the JVM method takes too: else they never do the same work.
        EXPECT_EQ(c->params & ~s.params, 0u) << s.name << " against " << c->name;
    }
    EXPECT_EQ(pairs, 15u);
}

}  // namespace
}  // namespace iolab
