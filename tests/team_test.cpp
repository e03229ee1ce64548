// Runs under MPI, as the harness sees them (harness/team.hpp): every step's outcome is agreed by
// the ranks, so another rank's failure, skip or stop is this rank's too and names that rank; rank
// 0 combines every rank's samples; reads shifted to another rank read that rank's input. The
// other rank is scripted here; tests/mpi/run.sh runs real ranks under mpirun.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/measure.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/harness/team.hpp"
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
    void share_scratch(const std::string& mine) override { scratch_ = {mine, other_scratch}; }
    bool any(bool v) override { return v; }
    Outcome agree(const Outcome& mine) override {
        ++agreements;
        if (!mine.ok()) return {mine.kind, "rank 0 on here: " + mine.why};
        if (agreements == at) return {other.kind, "rank 1 on there: " + other.why};
        return {};
    }
    std::vector<std::string> gather(const std::string& mine) override { return {mine, mine}; }

    unsigned agreements = 0, at = 0, shift_by = 0;
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
    req.patterns = strategies;
    req.sizes = {256u << 10};
    req.buffers = {64u << 10};
    req.records = {4096};
    return build_plan(req);
}

RunOptions three_iterations() {
    RunOptions o;
    o.warmup = Amount{1, 0};
    o.iterations = Amount{3, 0};
    return o;
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
    const auto results = run_group(plan_of({"read.chunk", "write.record-syscall"}), three_iterations(), dir);
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
    const auto results = run_group(plan_of({"read.chunk", "read.pread-chunk"}), three_iterations(), dir);
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
    const auto results = run_group(plan_of({"read.chunk"}), three_iterations(), dir);
    EXPECT_EQ(results[0].status, Status::skipped);
    EXPECT_EQ(results[0].reason, "rank 1 on there: needs a filesystem with reflinks");
}

TEST(Team, AStopOnAnotherRankStopsThisOne) {
    ScriptedTeam t;
    t.at = 6;  // the second measured iteration's start (1: preparation, 2-3: warm-up, 4-5: first)
    t.other = {Outcome::Kind::interrupted, "interrupted"};
    const UseTeam use(t);
    ScratchDir dir;
    const auto results = run_group(plan_of({"read.chunk"}), three_iterations(), dir);
    EXPECT_EQ(results[0].status, Status::failed);
    EXPECT_EQ(results[0].reason, "rank 1 on there: interrupted");
    EXPECT_TRUE(interrupt::requested());  // so that this rank stops where the others do
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
    write_input_file(theirs.at("input-0.in"), zeros, w.size);
    auto results = run_group(specs, three_iterations(), mine);
    EXPECT_EQ(results[0].status, Status::failed);
    EXPECT_NE(results[0].reason.find("output differs from the input"), std::string::npos) << results[0].reason;
    // Then the same bytes, as every rank makes them: the reads verify.
    ASSERT_EQ(::unlink(theirs.file("input-0.in").c_str()), 0);
    write_input_file(theirs.at("input-0.in"), w.data, w.size);
    results = run_group(specs, three_iterations(), mine);
    EXPECT_EQ(results[0].status, Status::ok) << results[0].reason;
    // A folder name is a plain name.
    EXPECT_THROW((void)mine.sibling_at("../x", "f"), std::invalid_argument);
}

}  // namespace
}  // namespace iolab
