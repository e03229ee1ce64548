// The decision rules replayed on samples no one chose: three result files of iolab on a 2-core
// cloud VM (tests/data/noise: the default run with nothing else running, the same with a core kept
// busy, and iolab replicate), read back by the real reader and decided by the real code. What the
// rules must do there: answer every table, call a case's two halves different no more often than
// their confidence allows, err on a finding placed at its threshold no more often either, and
// decide the findings whose intervals leave no doubt.
#include <gtest/gtest.h>

#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "iolab/harness/ratio.hpp"
#include "iolab/harness/standing.hpp"
#include "iolab/report/analysis/answer.hpp"
#include "iolab/report/read/read.hpp"
#include "iolab/report/table.hpp"
#include "iolab/suite/findings.hpp"
#include "iolab/suite/suite.hpp"
#include "support.hpp"

namespace iolab {
namespace {

// A recorded result file, decompressed and read as iolab report reads one.
Report recorded(const std::string& name) {
    const std::string packed = test::slurp(std::string(IOLAB_SOURCE_DIR) + "/tests/data/noise/" + name + ".json.zst");
    const unsigned long long size = ZSTD_getFrameContentSize(packed.data(), packed.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > (64u << 20))
        throw std::runtime_error(name + ": not a zstd frame of a known size");
    std::string text(size, '\0');
    const std::size_t got = ZSTD_decompress(text.data(), text.size(), packed.data(), packed.size());
    if (ZSTD_isError(got) || got != size) throw std::runtime_error(name + ": damaged");
    return read_report_json(text, name + ".json");
}

// Every table of more than one strategy has a winner, in the quiet run and in the busy one.
TEST(Replay, EveryTableOfBothDefaultRunsIsAnswered) {
    for (const char* run : {"q1", "b1"}) {
        const Report r = recorded(run);
        const auto tables = ranked_tables(r);
        const auto said = answers(tables);
        ASSERT_EQ(said.size(), 4u) << run;  // read, write and copy of 64 MiB, writes to the device
        for (const Answer& a : said) {
            EXPECT_FALSE(a.winner.empty()) << run << ": " << a.text();
            std::printf("%s: %s: winner group of %zu\n", run, a.table.c_str(), a.tied.size() + 1);
        }
        // The group is every ranked case no other is surely faster than by more than the margin
        // (and that racing did not stop as clearly slower), whatever its spread: none left out.
        for (const RankedTable& t : tables) {
            Comparator cmp;
            const auto group = t.standing.winners();
            for (const CaseResult* c : t.cases) {
                if (!c->ranked() || c->stopped == StopReason::clearly_slower) continue;
                const bool beaten = std::any_of(t.cases.begin(), t.cases.end(), [&](const CaseResult* d) {
                    return d != c && d->ranked() && cmp.order(*c, *d) == Order::slower;
                });
                const bool in = std::find(group.begin(), group.end(), c) != group.end();
                EXPECT_EQ(in, !beaten) << run << ": " << c->spec.label() << (c->stable ? "" : " (varies)");
            }
        }
    }
}

// The cases of the replicate run with 16 samples or more.
std::vector<const CaseResult*> long_cases(const Report& r) {
    std::vector<const CaseResult*> out;
    for (const CaseResult& c : r.cases)
        if (c.status == Status::ok && c.samples.size() >= 16) out.push_back(&c);
    return out;
}

// A case with the given samples of another, each time scaled: a twin, or a case `scale` times slower.
CaseResult part_of(const CaseResult& c, const std::vector<std::size_t>& which, double scale) {
    CaseResult p;
    p.spec = c.spec;
    p.status = Status::ok;
    p.checked = Checked::content;
    for (std::size_t i : which) {
        Sample s = c.samples[i];
        s.wall_s *= scale;
        if (s.fixed_s >= 0) s.fixed_s *= scale;
        p.samples.push_back(s);
    }
    finish(p, RunOptions{}, 1e-9);
    return p;
}

// A case's samples split at random in two halves, over and over: the halves are twins, and any
// difference called between them is noise. At no margin (any difference the 99 % interval sees)
// they are called different in at most 1 % of the splits; at the winner group's 10 % margin, in
// none.
TEST(Replay, TwinsAreCalledDifferentAtMostAsOftenAsTheConfidenceAllows) {
    const Report r = recorded("rep");
    const auto cases = long_cases(r);
    ASSERT_GE(cases.size(), 60u);
    std::mt19937_64 rng(0x7415);
    constexpr int kSplits = 1000;
    std::size_t splits = 0, different = 0, beyond_margin = 0;
    for (const CaseResult* c : cases) {
        std::vector<std::size_t> order(c->samples.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        for (int k = 0; k < kSplits; ++k) {
            std::shuffle(order.begin(), order.end(), rng);
            const std::size_t half = order.size() / 2;
            const CaseResult a = part_of(*c, {order.begin(), order.begin() + static_cast<long>(half)}, 1);
            const CaseResult b = part_of(*c, {order.begin() + static_cast<long>(half), order.end()}, 1);
            const RatioEstimate ratio = ratio_interval(a.per_byte(), b.per_byte(), kRatioConfidence);
            ++splits;
            different += order_at(ratio, 0) != Order::tied;
            beyond_margin += order_at(ratio, kDefaultMargin) != Order::tied;
        }
    }
    std::printf("twins called different: %zu of %zu at no margin, %zu beyond 10%%\n", different, splits, beyond_margin);
    EXPECT_LE(static_cast<double>(different), 0.01 * static_cast<double>(splits));
    EXPECT_LE(static_cast<double>(beyond_margin), 0.01 * static_cast<double>(splits));
}

// Findings placed exactly at their threshold: one half of a case's samples against the other half
// scaled by the threshold, so that the truth is the threshold; a verdict either way is wrong. Half
// claim "at least 3x", half "within 25 %" (the truth at 1.25x), judged as the end of a run judges
// a finding: wrong in at most 1 % of them.
TEST(Replay, FindingsAtTheirThresholdAreWrongAtMostOnePercentOfTheTime) {
    const Report r = recorded("rep");
    const auto cases = long_cases(r);
    std::mt19937_64 rng(0x7416);
    constexpr int kSplits = 40;
    std::size_t findings = 0, wrong = 0;
    for (const CaseResult* c : cases) {
        std::vector<std::size_t> order(c->samples.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        for (int k = 0; k < kSplits; ++k) {
            std::shuffle(order.begin(), order.end(), rng);
            const bool within = k % 2 == 1;
            const double truth = within ? 1.25 : 3.0;
            const std::size_t half = order.size() / 2;
            std::vector<CaseResult> two;
            two.push_back(part_of(*c, {order.begin(), order.begin() + static_cast<long>(half)}, 1));
            two.push_back(part_of(*c, {order.begin() + static_cast<long>(half), order.end()}, truth));
            two[0].spec.group = two[1].spec.group = "g";
            Finding f;
            f.faster = Selector{"g", {two[0].spec.strategy->name}, {}, false};
            f.slower = Selector{"g", {two[1].spec.strategy->name}, {}, true};  // the scaled one: the slowest
            (within ? f.within : f.at_least) = within ? 0.25 : 3.0;
            const FindingResult v = evaluate(f, two);
            ++findings;
            wrong += v.verdict != Verdict3::inconclusive;
        }
    }
    std::printf("findings at their threshold: %zu wrong of %zu\n", wrong, findings);
    EXPECT_LE(static_cast<double>(wrong), 0.01 * static_cast<double>(findings));
    EXPECT_GT(findings, 2000u);
}

// The replicate run judged again from its samples: the finding measured at 4998x [3528x, 6603x]
// against a claim of 5x, INCONCLUSIVE then for its fast case's spread, holds; and most findings
// are decided.
TEST(Replay, TheReplicateRunsFindingsAreDecidedByTheirIntervals) {
    const Report r = recorded("rep");
    std::vector<Suite> suites;
    // The recording predates the safe-save suite: its findings would have no cases.
    for (const auto& name : replication_suites())
        if (name != "safe-save") suites.push_back(builtin_suite(name));
    const Suite all = combine(suites, "replicate");
    Judge judge(all);
    const std::vector<FindingResult> v = judge.verdicts(r.cases);
    ASSERT_EQ(v.size(), 49u);
    std::size_t decided = 0;
    bool found = false;
    for (const FindingResult& f : v) {
        decided += f.verdict != Verdict3::inconclusive;
        if (f.finding.claim == "one-byte positional reads are 5x slower or worse than a buffered stream" &&
            f.faster_case == "read.chunk buffer=16K") {
            found = true;
            EXPECT_EQ(f.verdict, Verdict3::holds) << f.outcome() << " " << f.note;
            EXPECT_GT(f.low, 1000);
        }
    }
    EXPECT_TRUE(found);
    std::printf("replicate judged again: %zu of %zu findings decided\n", decided, v.size());
    // Recorded: 16 of 49 decided (10 HOLDS, 6 DOES NOT HOLD).
    EXPECT_GE(decided, 30u);
}

}  // namespace
}  // namespace iolab
