// Runs under MPI, as the harness sees them (harness/team.hpp): every step's outcome is agreed by
// the ranks, so another rank's failure, skip or stop is this rank's too and names that rank; rank
// 0 combines every rank's samples; reads shifted to another rank read that rank's input. The
// other rank is scripted here; tests/mpi/run.sh runs real ranks under mpirun.
#include <gtest/gtest.h>

#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "iolab/core/interrupt.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/measure.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/harness/team.hpp"
#include "iolab/report/analysis/compare.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/read/read.hpp"
#include "iolab/report/table.hpp"
#include "support.hpp"

namespace iolab {
namespace {

// Rank 0 of two. Rank 1 on "there" says `other` at agreement number `at` (from 1) and ok at every
// other one; at gathers it sends what rank 0 sends.
class ScriptedTeam : public Team {
public:
    bool mpi() const override { return true; }
    int rank() const override { return 0; }
    int size() const override { return 2; }
    std::vector<std::string> hosts() const override { return {"here", "there"}; }
    unsigned shift() const override { return shift_by; }
    // Rank 0's decisions: what `decide` makes of this rank's value (the n-th decision, from 1).
    std::uint64_t leader(std::uint64_t v) override { return decide ? decide(++decisions, v) : v; }
    void share_scratch(const std::string& mine) override { scratch_ = {mine, other_scratch}; }
    bool any(bool v) override { return v; }
    Outcome agree(const Outcome& mine) override {
        ++agreements;
        if (!mine.ok()) return {mine.kind, "rank 0 on here: " + mine.why};
        if (agreements == at) return {other.kind, "rank 1 on there: " + other.why};
        return {};
    }
    std::vector<std::string> gather(const std::string& mine) override { return {mine, mine}; }

    unsigned agreements = 0, at = 0, shift_by = 0, decisions = 0;
    std::function<std::uint64_t(unsigned, std::uint64_t)> decide;
    Outcome other;
    std::string other_scratch;
};

struct UseTeam {
    explicit UseTeam(Team& t) { set_team(&t); }
    ~UseTeam() {
        set_team(nullptr);
        interrupt::reset_for_tests();
    }
};

std::vector<CaseSpec> plan_of(const std::vector<std::string>& strategies) {
    PlanRequest req;
    req.strategies = strategies;
    req.sizes = {256u << 10};
    req.buffers = {64u << 10};
    req.records = {4096};
    return build_plan(req);
}

// A run of two ranks ("a", "b") of one read.chunk case of 1 MiB a rank, with `n` samples whose
// rank times `rank_s(i)` gives, inside spans of `wall_s`.
template <class RankTimes>
Report two_ranks(int n, double wall_s, RankTimes rank_s) {
    Report report;
    report.environment.hosts = {"a", "b"};
    CaseResult c;
    c.spec = plan_of({"read.chunk"})[0];
    c.status = Status::ok;
    for (int i = 0; i < n; ++i) {
        Sample s;
        s.bytes = 2u << 20;  // two ranks of 1 MiB
        s.wall_s = wall_s;
        s.rank_s = rank_s(i);
        c.samples.push_back(s);
    }
    finish(c, RunOptions{}, 1e-9);
    report.cases.push_back(c);
    return report;
}

TEST(Team, RankZeroCombinesEveryRanksSamples) {
    Sample a, b;
    a.wall_s = 0.5;
    b.wall_s = 0.7;
    a.bytes = 100;
    b.bytes = 200;
    a.syscalls = 3;
    b.syscalls = 4;
    a.user_s = 0.1;
    b.user_s = 0.2;
    a.resident = 0.1;
    b.resident = 0.3;
    a.rank_s = {0.4};
    b.rank_s = {0.6};
    a.job_s = {0.4};
    b.job_s = {0.5, 0.6};
    const Sample all = combine_ranks({a, b});
    EXPECT_DOUBLE_EQ(all.wall_s, 0.7);  // the longest span: from the first start to the last end
    EXPECT_EQ(all.bytes, 300u);
    EXPECT_EQ(all.syscalls, 7u);
    EXPECT_DOUBLE_EQ(all.user_s, 0.1 + 0.2);
    EXPECT_DOUBLE_EQ(all.resident, 0.3);  // the proof of cold is the worst rank's
    EXPECT_EQ(all.rank_s, (std::vector<double>{0.4, 0.6}));
    EXPECT_EQ(all.job_s, (std::vector<double>{0.4, 0.5, 0.6}));
}

TEST(Team, UnderMpiEachSampleHoldsEveryRanksBytesAndTimes) {
    ScriptedTeam t;
    const UseTeam use(t);
    ScratchDir dir;
    const auto results = run_group(plan_of({"read.chunk", "write.record-syscall"}), test::three_iterations(), dir);
    ASSERT_EQ(results.size(), 2u);
    for (const CaseResult& c : results) {
        ASSERT_EQ(c.status, Status::ok) << c.reason;
        EXPECT_TRUE(c.verified);
        ASSERT_EQ(c.samples.size(), 3u);
        for (const Sample& s : c.samples) {
            EXPECT_EQ(s.bytes, 2 * c.spec.workload.bytes());
            ASSERT_EQ(s.rank_s.size(), 2u);
            EXPECT_GT(s.rank_s[0], 0);
            EXPECT_LE(s.rank_s[0], s.wall_s);  // a rank's own time is inside the span
        }
    }
    // One agreement per case to prepare it, two per run (ready, done): 1 warm-up and 3 measured.
    EXPECT_EQ(t.agreements, 2u * (1 + 2 * 4));
}

TEST(Team, AFailureOnAnotherRankFailsTheCaseHereAndNamesIt) {
    ScriptedTeam t;
    t.at = 4;  // read.chunk's warm-up outcome: after the two cases' preparations and its start
    t.other = {Outcome::Kind::failed, "job 1 of 1: read: Input/output error"};
    const UseTeam use(t);
    ScratchDir dir;
    const auto results = run_group(plan_of({"read.chunk", "read.pread-chunk"}), test::three_iterations(), dir);
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].status, Status::failed);
    EXPECT_EQ(results[0].reason, "rank 1 on there: job 1 of 1: read: Input/output error");
    // The next case goes on, on every rank.
    EXPECT_EQ(results[1].status, Status::ok) << results[1].reason;
}

TEST(Team, ASkipOnAnotherRankSkipsTheCaseHere) {
    ScriptedTeam t;
    t.at = 1;
    t.other = {Outcome::Kind::skipped, "needs a filesystem with reflinks"};
    const UseTeam use(t);
    ScratchDir dir;
    const auto results = run_group(plan_of({"read.chunk"}), test::three_iterations(), dir);
    EXPECT_EQ(results[0].status, Status::skipped);
    EXPECT_EQ(results[0].reason, "rank 1 on there: needs a filesystem with reflinks");
}

TEST(Team, AStopOnAnotherRankStopsThisOne) {
    ScriptedTeam t;
    t.at = 6;  // the second measured iteration's start (1: preparation, 2-3: warm-up, 4-5: first)
    t.other = {Outcome::Kind::interrupted, "interrupted"};
    const UseTeam use(t);
    ScratchDir dir;
    const auto results = run_group(plan_of({"read.chunk"}), test::three_iterations(), dir);
    // Cut short, not failed: it keeps the iteration measured before the stop, and says why.
    EXPECT_EQ(results[0].status, Status::ok);
    EXPECT_EQ(results[0].stopped, StopReason::interrupted);
    EXPECT_EQ(results[0].samples.size(), 1u);
    EXPECT_EQ(results[0].reason, "rank 1 on there: interrupted");
    EXPECT_TRUE(interrupt::requested());  // so that this rank stops where the others do
}

// Decisions that depend on time or on the samples are rank 0's, whatever this rank would decide.
TEST(Team, RankZeroDecidesWhenTheWarmUpEnds) {
    ScriptedTeam t;
    t.decide = [](unsigned n, std::uint64_t v) -> std::uint64_t { return n == 1 ? 0 : v; };  // "warm-up over"
    const UseTeam use(t);
    ScratchDir dir;
    RunOptions opts = test::three_iterations();
    opts.warmup = Amount{0, 60};  // 60 s of warm-up, by this rank's clock
    const auto results = run_group(plan_of({"read.chunk"}), opts, dir);
    ASSERT_EQ(results[0].status, Status::ok) << results[0].reason;
    EXPECT_EQ(results[0].samples.size(), 3u);
    EXPECT_EQ(t.agreements, 1u + 2 * 1 + 2 * 3);  // one warm-up run, as rank 0 said
}

TEST(Team, RankZeroDecidesWhenACaseHasEnough) {
    ScriptedTeam t;
    // The first decision is the iteration target (kept); the second, after the first measured
    // run, is rank 0's "enough".
    t.decide = [](unsigned n, std::uint64_t v) -> std::uint64_t { return n == 2 ? 1 : v; };
    const UseTeam use(t);
    ScratchDir dir;
    const auto results = run_group(plan_of({"read.chunk"}), test::three_iterations(), dir);
    ASSERT_EQ(results[0].status, Status::ok) << results[0].reason;
    EXPECT_EQ(results[0].samples.size(), 1u);  // this rank's own target was 3
}

// The per-rank rows: each rank's share of the bytes over its own median time.
TEST(Team, EachRanksRowIsItsShareOverItsOwnTime) {
    const Report report = two_ranks(3, 0.004, [](int i) { return std::vector<double>{0.001, 0.002 + 0.0001 * i}; });
    const CaseResult& c = report.cases.front();
    const auto ranks = rank_figures(c, report.environment.hosts);
    ASSERT_EQ(ranks.size(), 2u);
    EXPECT_EQ(ranks[1].host, "b");
    EXPECT_NEAR(ranks[0].throughput_mib_s, 1000.0, 1e-6);        // 1 MiB in 1 ms
    EXPECT_NEAR(ranks[1].throughput_mib_s, 1.0 / 0.0021, 1e-6);  // its median, 2.1 ms
    // A sample without a time for every rank gives no rows rather than wrong ones.
    CaseResult short_one = c;
    short_one.samples[1].rank_s.pop_back();
    EXPECT_TRUE(rank_figures(short_one, report.environment.hosts).empty());
    // CSV: the case's row, then one per rank; JSON: read back with the hosts.
    const std::string csv = to_csv(report);
    EXPECT_NE(csv.find(",rank,host\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",0,a\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",1,b\n"), std::string::npos) << csv;
    const Report back = read_report_json(to_json(report), "r.json");
    EXPECT_EQ(back.environment.hosts, report.environment.hosts);
    ASSERT_EQ(back.cases.size(), 1u);
    EXPECT_EQ(back.cases[0].samples[2].rank_s, c.samples[2].rank_s);
    const Table t = rank_table(back);
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_EQ(t.rows[0].cells[2], "a");
}

TEST(Team, AShiftIsTakenModuloTheRanksWithoutOverflow) {
    struct Three : Team {
        bool mpi() const override { return true; }
        int rank() const override { return 1; }
        int size() const override { return 3; }
        unsigned shift() const override { return UINT32_MAX; }  // 4294967295 = 0 mod 3
    } t;
    EXPECT_EQ(t.source_rank(), 1);
}

// A result file's per-rank times must lie inside their samples; runs of different rank counts
// are compared with a note that their cases are different amounts of work.
TEST(Team, ResultFilesAndComparisonsKnowTheRanks) {
    const Report two = two_ranks(5, 0.002, [](int) { return std::vector<double>{0.001, 0.0015}; });
    const std::string text = to_json(two);
    EXPECT_NO_THROW(read_report_json(text, "r.json"));
    for (const double wrong : {-1.0, 0.003}) {  // below 0, beyond the sample's span
        auto j = nlohmann::json::parse(text);
        j["cases"][0]["samples"][0]["rank_s"][1] = wrong;
        EXPECT_THROW(read_report_json(j.dump(), "r.json"), ResultFormatError) << wrong;
    }
    Report one = two;
    one.environment.hosts.clear();
    EXPECT_NE(render_comparison(one, two, false).find("1 and 2 MPI rank(s)"), std::string::npos);
    EXPECT_EQ(render_comparison(two, two, false).find("MPI rank"), std::string::npos);
}

// --rank-shift: the reads of rank 0 go to rank 1's copy of the input, in rank 1's folder.
TEST(Team, ShiftedReadsReadTheOtherRanksInput) {
    ScratchDir mine, theirs;
    const auto specs = plan_of({"read.chunk"});
    const Workload& w = specs[0].workload;
    ScriptedTeam t;
    t.shift_by = 1;
    t.other_scratch = theirs.name();
    t.share_scratch(mine.name());
    const UseTeam use(t);
    // Rank 1's input under the name rank 0's has, first with other bytes: the reads fail.
    DataSpec zeros;
    zeros.kind = DataKind::zeros;
    write_input_file(theirs.at(input_name(w, 0)), zeros, w.size);
    auto results = run_group(specs, test::three_iterations(), mine);
    EXPECT_EQ(results[0].status, Status::failed);
    EXPECT_NE(results[0].reason.find("output differs from the input"), std::string::npos) << results[0].reason;
    // Then the same bytes, as every rank makes them: the reads verify.
    ASSERT_EQ(::unlink(theirs.file(input_name(w, 0)).c_str()), 0);
    write_input_file(theirs.at(input_name(w, 0)), w.data, w.size);
    results = run_group(specs, test::three_iterations(), mine);
    EXPECT_EQ(results[0].status, Status::ok) << results[0].reason;
    // A folder name is a plain name.
    EXPECT_THROW((void)mine.sibling_at("../x", "f"), std::invalid_argument);
}

}  // namespace
}  // namespace iolab
