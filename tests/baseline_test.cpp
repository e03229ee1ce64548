// Baselines and the regression gate, through the iolab command: compare on saved results with an
// injected slowdown, and run --save-baseline then --baseline on real runs.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "iolab/core/scratch.hpp"
#include "iolab/harness/ratio.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/io/profile.hpp"
#include "iolab/report/analysis/compare.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/json.hpp"
#include "iolab/report/read/read.hpp"
#include "iolab/report/report.hpp"
#include "iolab/session/calibrate.hpp"
#include "iolab/strategies/strategy.hpp"
#include "support.hpp"

namespace iolab {
namespace {

using test::run_cli;
using test::slurp;

CaseResult case_of(const char* name, double scale) { return test::spread_case(name, scale); }

// A baseline (a) and a new run (b) of one case of the strategy, the new one `slower` times as slow.
struct TwoRuns {
    Report a, b;
};
TwoRuns two_runs(const char* name, double slower) {
    TwoRuns r;
    r.a.cases = {case_of(name, 1)};
    r.b.cases = {case_of(name, slower)};
    return r;
}

// A gate at `threshold` whose intervals are widened by `between` (0: the samples' own).
GateSettings gate_at(double threshold, double between = 0) {
    GateSettings g;
    g.threshold = threshold;
    g.between = between;
    g.between_source = "given";
    return g;
}

// Each report as a result file in dir, by name.
void save(const ScratchDir& dir, const std::vector<std::pair<const Report*, const char*>>& files) {
    for (const auto& [r, name] : files) std::ofstream(dir.file(name)) << to_json(*r);
}

// `iolab compare a.json b.json FLAGS` of two runs saved in dir.
test::CliResult compare_cli(const ScratchDir& dir, const Report& a, const Report& b, const std::string& flags = {}) {
    save(dir, {{&a, "a.json"}, {&b, "b.json"}});
    return run_cli("compare " + dir.file("a.json") + " " + dir.file("b.json") + flags);
}

// A result file of read.chunk, read.pread-chunk and copy.chunk, each scaled as given.
void write_result(const std::string& path, double chunk, double pread, double copy) {
    Report r;
    r.cases = {case_of("read.chunk", chunk), case_of("read.pread-chunk", pread), case_of("copy.chunk", copy)};
    std::ofstream(path) << to_json(r);
}

// A 20 % slowdown of one case trips a 5 % gate, and names that case first; a 1 % change of every
// case does not; either way every shared case is in the table.
TEST(Gate, TwentyPercentSlowerTripsAndOnePercentDoesNot) {
    ScratchDir dir;
    write_result(dir.file("a.json"), 1, 1, 1);
    write_result(dir.file("slow.json"), 1, 1.2, 1);
    write_result(dir.file("near.json"), 1.01, 1.01, 1.01);
    const auto tripped =
        run_cli("compare " + dir.file("a.json") + " " + dir.file("slow.json") + " --fail-if-slower 5%");
    EXPECT_EQ(tripped.status, 1) << tripped.out << tripped.err;
    EXPECT_TRUE(tripped.out.starts_with("slower: read.pread-chunk buffer=64K size=1M: time ratio 1.200"))
        << tripped.out;
    EXPECT_NE(tripped.out.find("REGRESSION: 1 case(s) slower by more than 5%"), std::string::npos) << tripped.out;
    // The verdicts in one line, after the tripped case and before the table.
    EXPECT_NE(tripped.out.find("\n\n3 case(s) compared: 1 slower (1 beyond the gate's 5%), 2 the same, 0 faster\n"),
              std::string::npos)
        << tripped.out;
    const auto near = run_cli("compare " + dir.file("a.json") + " " + dir.file("near.json") + " --fail-if-slower 5%");
    EXPECT_EQ(near.status, 0) << near.out << near.err;
    EXPECT_NE(near.out.find("no case is slower by more than 5%"), std::string::npos) << near.out;
    for (const auto* out : {&tripped.out, &near.out})
        for (const char* label : {"read.chunk buffer=64K", "read.pread-chunk buffer=64K", "copy.chunk buffer=64K"})
            EXPECT_NE(out->find(label), std::string::npos) << *out;
    // 1.2 is beyond a 5 % gate but not beyond a 25 % one; no gate: never exit 1.
    EXPECT_EQ(run_cli("compare " + dir.file("a.json") + " " + dir.file("slow.json") + " --fail-if-slower 25%").status,
              0);
    EXPECT_EQ(run_cli("compare " + dir.file("a.json") + " " + dir.file("slow.json")).status, 0);
    // A Markdown table for a CI job's summary, the tripped case first.
    const auto md =
        run_cli("compare " + dir.file("a.json") + " " + dir.file("slow.json") + " --fail-if-slower 5% --markdown");
    EXPECT_EQ(md.status, 1);
    EXPECT_TRUE(md.out.starts_with("- slower: read.pread-chunk")) << md.out;
    EXPECT_NE(md.out.find("| case | MiB/s before |"), std::string::npos) << md.out;
}

// A count sized by time (364 files of an fsync each one run, 385 the next) is the same case in a
// comparison, read back from the result files: it was "removed" and "added" and failed the gate
// with nothing changed. Counts given are parameters as any: 364 and 385 given are two cases.
TEST(Gate, ACountSizedByTimeIsTheSameCaseFromRunToRun) {
    ScratchDir dir;
    for (bool sized : {true, false}) {
        auto [a, b] = two_runs("files.write-fsync-each", 1);
        a.cases[0].spec.workload.tree_of().files = 364;
        b.cases[0].spec.workload.tree_of().files = 385;
        a.cases[0].spec.sized = b.cases[0].spec.sized = sized;
        const auto r = compare_cli(dir, a, b, " --fail-if-slower 5%");
        EXPECT_EQ(r.status, sized ? 0 : 1) << r.out << r.err;
        EXPECT_EQ(r.out.find("no case is slower by more than 5%") != std::string::npos, sized) << r.out;
        const Comparison c = compare_runs(a, b, "a", "b", gate_at(0.05));
        EXPECT_EQ(c.shared.size(), sized ? 1u : 0u);
        EXPECT_EQ(c.removed.size(), sized ? 0u : 1u);
    }
    // A result file whose `sized` is not true or false is refused, naming it.
    std::string text = slurp(dir.file("a.json"));
    const std::string field = "\"scale\":";
    ASSERT_NE(text.find(field), std::string::npos);
    text.insert(text.find(field), "\"sized\": \"yes\", ");
    std::ofstream(dir.file("bad.json")) << text;
    const auto bad = run_cli("compare " + dir.file("bad.json") + " " + dir.file("b.json"));
    EXPECT_EQ(bad.status, 2) << bad.out << bad.err;
    EXPECT_NE(bad.err.find("sized is not true or false"), std::string::npos) << bad.err;
}

// A slower case whose samples overlap the baseline's decides nothing: its interval holds 1.
TEST(Gate, ANoisySlowdownDoesNotTrip) {
    ScratchDir dir;
    auto [a, b] = two_runs("read.chunk", 1);
    // Half the samples 1.6x slower: a median 1.3x, but the two sets overlap.
    for (std::size_t i = 0; i < b.cases[0].samples.size(); i += 2) b.cases[0].samples[i].wall_s *= 1.6;
    finish(b.cases[0], RunOptions{}, 1e-9);
    const auto r = compare_cli(dir, a, b, " --fail-if-slower 5%");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(r.out.find("REGRESSION"), std::string::npos) << r.out;
}

// Slower, surely, but its interval reaches below the threshold: the gate does not trip on what it
// cannot tell from the threshold.
TEST(Gate, SlowerBeyondTheThresholdOnlyByItsMedianDoesNotTrip) {
    ScratchDir dir;
    auto [a, b] = two_runs("read.chunk", 1.08);
    const Comparison c = compare_runs(a, b, "a", "b", gate_at(0.07));
    ASSERT_EQ(c.shared.size(), 1u);
    // The premise: slower, by a ratio beyond 1.07, its interval's lower end not.
    ASSERT_GT(c.shared[0].low, 1);
    ASSERT_GT(c.shared[0].ratio, 1.07);
    ASSERT_LT(c.shared[0].low, 1.07);
    EXPECT_EQ(c.shared[0].change, Change::slower);
    const auto r = compare_cli(dir, a, b, " --fail-if-slower 7%");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("the gate passes (1 case(s) tested)"), std::string::npos) << r.out;
}

// A gate that could test nothing, a case that failed in the new run, and a case the baseline
// measured that the new run did not test, fail it; --allow-missing lets a run leave cases out.
TEST(Gate, FailsClosed) {
    ScratchDir dir;
    Report a, none, broken, fewer, skipped;
    a.cases = {case_of("read.chunk", 1), case_of("copy.chunk", 1)};
    none.cases = a.cases;
    for (auto& c : none.cases) {
        for (auto& smp : c.samples) smp.bytes = 0;
        finish(c, RunOptions{}, 1e-9);
    }
    broken.cases = a.cases;
    broken.cases[1].status = Status::failed;
    broken.cases[1].reason = "cannot write: Input/output error";
    fewer.cases = {a.cases[0]};
    skipped.cases = a.cases;
    skipped.cases[1].status = Status::skipped;
    skipped.cases[1].samples.clear();
    skipped.cases[1].reason = "the time budget was spent before its first sample";
    finish(skipped.cases[1], RunOptions{}, 1e-9);
    save(dir, {{&a, "a.json"},
               {&none, "none.json"},
               {&broken, "broken.json"},
               {&fewer, "fewer.json"},
               {&skipped, "skipped.json"}});
    const auto untested = run_cli("compare a.json none.json --fail-if-slower 5% --allow-missing", dir.path());
    EXPECT_EQ(untested.status, 1) << untested.out;
    EXPECT_NE(untested.out.find("GATE FAILED: it could test no case"), std::string::npos) << untested.out;
    EXPECT_EQ(run_cli("compare a.json none.json", dir.path()).status, 0);  // no gate: a comparison only
    const auto failed = run_cli("compare a.json broken.json --fail-if-slower 5%", dir.path());
    EXPECT_EQ(failed.status, 1) << failed.out;
    EXPECT_TRUE(failed.out.starts_with("failed: copy.chunk buffer=64K size=1M: failed in broken.json (cannot write"))
        << failed.out;
    // The other way round the case was not measured before: listed, not a regression.
    const auto back = run_cli("compare broken.json a.json --fail-if-slower 5%", dir.path());
    EXPECT_EQ(back.status, 0) << back.out;
    EXPECT_NE(
        back.out.find("1 case(s) in both runs not compared: copy.chunk buffer=64K size=1M: failed in broken.json"),
        std::string::npos)
        << back.out;
    // Left out, or skipped: the baseline measured it and this run did not test it.
    for (const char* file : {"fewer.json", "skipped.json"}) {
        const auto left = run_cli(std::string("compare a.json ") + file + " --fail-if-slower 5%", dir.path());
        EXPECT_EQ(left.status, 1) << left.out;
        EXPECT_NE(left.out.find("GATE FAILED: 1 case(s) the baseline measured were not tested (first: copy.chunk "
                                "buffer=64K size=1M"),
                  std::string::npos)
            << left.out;
        const auto allowed =
            run_cli(std::string("compare a.json ") + file + " --fail-if-slower 5% --allow-missing", dir.path());
        EXPECT_EQ(allowed.status, 0) << allowed.out;
        EXPECT_NE(allowed.out.find("(allowed: --allow-missing)"), std::string::npos) << allowed.out;
    }
}

// A case with one sample a side is still tested, by the calibrated envelope: a slowdown of
// thousands of times trips the gate although its interval is wide.
TEST(Gate, OneSampleASideTripsOnAHugeSlowdown) {
    Report a, b;
    a.cases = {test::timed_case("read.dd", {1e-3}), case_of("read.chunk", 1)};
    b.cases = {test::timed_case("read.dd", {9.0}), case_of("read.chunk", 1)};
    const Comparison c = compare_runs(a, b, "a", "b", gate_at(0.05, 0.10));
    ASSERT_EQ(c.shared.size(), 2u);
    EXPECT_TRUE(c.shared[0].tripped);
    EXPECT_TRUE(c.shared[0].envelope);
    EXPECT_TRUE(c.gate_failed());
    // A fifth slower with one sample a side: inside the envelope, not tripped.
    b.cases[0] = test::timed_case("read.dd", {1.2e-3});
    EXPECT_FALSE(compare_runs(a, b, "a", "b", gate_at(0.05, 0.10)).gate_failed());
}

// The between-run margin widens every interval: a 10 % slowdown measured precisely trips a 5 %
// gate with none, not with 10 %; the lines say which margin was used and where it came from.
TEST(Gate, TheBetweenRunMarginWidensTheInterval) {
    auto [a, b] = two_runs("read.chunk", 1.1);
    EXPECT_TRUE(compare_runs(a, b, "a", "b", gate_at(0.05, 0)).gate_failed());
    const Comparison wide = compare_runs(a, b, "a", "b", gate_at(0.05, 0.10));
    EXPECT_FALSE(wide.gate_failed());
    EXPECT_NEAR(wide.shared[0].low * 1.10, compare_runs(a, b, "a", "b", gate_at(0.05, 0)).shared[0].low, 1e-12);
    const auto lines = comparison_lines(wide);
    EXPECT_NE(std::find_if(lines.begin(), lines.end(),
                           [](const std::string& l) {
                               return l.find("widened by 10% either way") != std::string::npos &&
                                      l.find("(given)") != std::string::npos;
                           }),
              lines.end());
}

// Runs under other options, a run a signal stopped, and a case that moved no bytes cannot be
// gated: the gate fails closed, saying why; without a gate they are compared and said.
TEST(Gate, WhatCannotBeComparedFailsTheGate) {
    Report a;
    a.cases = {case_of("read.chunk", 1), case_of("copy.chunk", 1)};
    Report cold = a;
    cold.options.cache = CacheMode::cold;
    Comparison c = compare_runs(a, cold, "a", "cold", gate_at(0.05));
    EXPECT_NE(c.options.find("cache warm"), std::string::npos) << c.options;
    EXPECT_TRUE(c.gate_failed());
    EXPECT_EQ(comparison_lines(c).back(), "GATE FAILED: runs measured under other options cannot be gated");
    EXPECT_FALSE(compare_runs(a, cold, "a", "cold", GateSettings{}).gate_failed());  // no gate: compared, and said
    Report stopped = a;
    stopped.partial = true;
    EXPECT_TRUE(compare_runs(a, stopped, "a", "stopped", gate_at(0.05)).gate_failed());
    EXPECT_FALSE(compare_runs(a, a, "a", "a", gate_at(0.05)).gate_failed());
    // No bytes moved: no time per byte, not tested, and missing from the gate; the other case is.
    Report zero = a;
    for (auto& s : zero.cases[0].samples) s.bytes = 0;
    finish(zero.cases[0], RunOptions{}, 1e-9);
    c = compare_runs(a, zero, "a", "zero", gate_at(0.05));
    EXPECT_EQ(c.shared[0].change, Change::too_few);
    EXPECT_EQ(c.gated(), 1u);
    EXPECT_EQ(c.missing.size(), 1u);
    EXPECT_TRUE(c.gate_failed());
    GateSettings allow = gate_at(0.05);
    allow.allow_missing = true;
    EXPECT_FALSE(compare_runs(a, zero, "a", "zero", allow).gate_failed());
}

// A baseline from another machine (64 CPUs, tmpfs) is compared, and said so, naming what differs;
// the same machine under another kernel, or a few MiB of memory apart, is not another machine.
TEST(Gate, ABaselineFromAnotherMachineIsSaidSo) {
    Report here;
    here.cases = {case_of("read.chunk", 1)};
    here.environment.cpu_model = "AMD EPYC";
    here.environment.cpus = 2;
    here.environment.memory_bytes = 24ull << 30;
    here.environment.fs_type = "ext4";
    here.environment.kernel = "6.1.0";
    Report same = here;
    same.environment.kernel = "6.18.0";
    same.environment.memory_bytes -= 40ull << 20;
    EXPECT_EQ(compare_runs(same, here, "base", "this run", gate_at(0.05)).machine, "");
    // What a run does not say (an older file's missing fields) is no difference.
    Report unsaid = here;
    unsaid.environment.cpus = 0;
    unsaid.environment.memory_bytes = 0;
    unsaid.environment.fs_type.clear();
    unsaid.environment.cpu_model.clear();
    EXPECT_EQ(compare_runs(unsaid, here, "base", "this run", gate_at(0.05)).machine, "");
    Report big = here;
    big.environment.cpus = 64;
    big.environment.fs_type = "tmpfs";
    const Comparison c = compare_runs(big, here, "base", "this run", gate_at(0.05));
    EXPECT_EQ(c.machine,
              "the runs were measured on other machines: cpus 64 against 2; scratch filesystem tmpfs against ext4; "
              "their times differ by more than code");
    const auto lines = comparison_lines(c);
    EXPECT_NE(std::find(lines.begin(), lines.end(), c.machine), lines.end());
    // Kept in a result file, and read back.
    Report with = here;
    with.baseline = c;
    EXPECT_EQ(read_report_json(report_to_json(with).dump(), "r.json").baseline->machine, c.machine);
}

// Forty thousand samples a side: the ratio's interval and the U test count pairs without listing
// them (a quadratic U took minutes here), and give what fewer samples of the same spread give.
TEST(Gate, ManySamplesAreComparedWithoutListingEveryPair) {
    std::vector<double> walls;
    for (int i = 0; i < 40000; ++i) walls.push_back(1e-3 * (1 + 0.01 * (i % 17)));
    Report a, b;
    a.cases = {test::timed_case("read.chunk", walls)};
    for (double& w : walls) w *= 1.5;
    b.cases = {test::timed_case("read.chunk", walls)};
    const Comparison c = compare_runs(a, b, "a", "b", gate_at(0.05));
    ASSERT_EQ(c.shared.size(), 1u);
    EXPECT_NEAR(c.shared[0].ratio, 1.5, 1e-9);
    EXPECT_GT(c.shared[0].low, 1.4);
    EXPECT_LT(c.shared[0].high, 1.6);
    EXPECT_LT(c.shared[0].p, 1e-100);
    EXPECT_TRUE(c.shared[0].tripped);
}

// A result file's baseline object is read as strictly as the rest: a field of the wrong type or
// out of its range is refused, naming it.
TEST(Baseline, ADamagedComparisonInAResultFileIsRefused) {
    Report r;
    r.cases = {case_of("read.chunk", 1)};
    r.baseline = compare_runs(r, r, "baseline main", "this run", gate_at(0.05));
    const nlohmann::json good = nlohmann::json::parse(to_json(r));
    EXPECT_NO_THROW(read_report_json(good.dump(), "r.json"));
    const std::vector<std::pair<std::string, nlohmann::json>> damages = {
        {"/baseline/cases/0/ratio", "1.2"},
        {"/baseline/cases/0/ratio", -1},
        {"/baseline/cases/0/p", 5},
        {"/baseline/cases/0/p", -0.5},
        {"/baseline/cases/0/ratio_interval", nlohmann::json::array({2, 0.5})},
        {"/baseline/cases/0/change", "worse"},
        {"/baseline/cases/0/tripped", true},
        {"/baseline/threshold", 1e300},
        {"/baseline/before", 3},
        {"/baseline/geomean", "x"},
        {"/baseline/added", "x"},
        {"/baseline/broken", nlohmann::json::array({1})},
        {"/baseline/missing", "x"},
        {"/baseline/between_runs", -0.1},
        {"/baseline/allow_missing", "yes"},
        {"/baseline/cases/0/envelope", 1}};
    for (const auto& [path, value] : damages) {
        nlohmann::json bad = good;
        bad[nlohmann::json::json_pointer(path)] = value;
        try {
            read_report_json(bad.dump(), "r.json");
            ADD_FAILURE() << path << " = " << value.dump() << " was read";
        } catch (const ResultFormatError& e) {
            const std::string field = path.substr(path.rfind('/') + 1);
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << path << ": " << e.what();
        }
    }
    nlohmann::json no_ratio = good;
    no_ratio["baseline"]["cases"][0].erase("ratio");
    EXPECT_THROW(read_report_json(no_ratio.dump(), "r.json"), ResultFormatError);
}

// A case found twice in a file is matched with the same one's next occurrence: a file compared
// with itself changes nothing.
TEST(Gate, ACaseTwiceIsMatchedInOrder) {
    Report a;
    a.cases = {case_of("read.chunk", 1), case_of("read.chunk", 3)};
    const Comparison c = compare_runs(a, a, "a", "a", gate_at(0.05));
    ASSERT_EQ(c.shared.size(), 2u);
    for (const auto& ch : c.shared) EXPECT_DOUBLE_EQ(ch.ratio, 1.0);
    EXPECT_FALSE(c.gate_failed());
    Report b;
    b.cases = {case_of("read.chunk", 1)};
    const Comparison fewer = compare_runs(a, b, "a", "b", GateSettings{});
    EXPECT_EQ(fewer.shared.size(), 1u);
    EXPECT_EQ(fewer.removed, std::vector<std::string>{"read.chunk buffer=64K size=1M"});
}

// Cases in one file only are listed as added or removed, never dropped.
TEST(Gate, CasesInOneRunOnlyAreListed) {
    ScratchDir dir;
    Report a, b;
    a.cases = {case_of("read.chunk", 1), case_of("read.mmap-scan", 1)};
    b.cases = {case_of("read.chunk", 1), case_of("copy.chunk", 1)};
    const auto r = compare_cli(dir, a, b);
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("1 case(s) only in " + dir.file("a.json") + " (removed): read.mmap-scan size=1M"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("1 case(s) only in " + dir.file("b.json") + " (added): copy.chunk buffer=64K size=1M"),
              std::string::npos)
        << r.out;
    Report none;
    none.cases = {case_of("copy.chunk", 1)};
    save(dir, {{&none, "none.json"}});
    const auto apart = run_cli("compare " + dir.file("a.json") + " " + dir.file("none.json"));
    EXPECT_NE(apart.out.find("no case was measured in both"), std::string::npos) << apart.out;
}

// Bad input: one line, exit 2.
TEST(Gate, BadInputIsRefused) {
    ScratchDir dir;
    write_result(dir.file("a.json"), 1, 1, 1);
    const std::string a = dir.file("a.json");
    for (const std::string& args :
         {"compare " + a + " " + a + " --fail-if-slower abc", "compare " + a + " " + a + " --fail-if-slower -5%",
          "compare " + a + " " + a + " --fail-if-slower 5%x", "compare " + a, "compare " + a + " " + a + " " + a,
          "compare --baseline main " + a + " " + a, "compare --baseline ../main " + a, "compare --baseline nosuch " + a,
          std::string("compare"), "compare --baseline _a " + a, "compare " + a + " " + a + " --fail-if-slower 0x10",
          "compare " + a + " " + a + " --fail-if-slower 1e3", "compare " + a + " " + a + " --fail-if-slower -0%",
          "compare " + a + " " + a + " --fail-if-slower 1001%"}) {
        const auto r = run_cli(args, dir.path());
        EXPECT_EQ(r.status, 2) << args << ": " << r.out << r.err;
        EXPECT_TRUE(r.err.starts_with("iolab: ")) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

// End to end: a run kept as a baseline, then a run against it reports every case, in every output,
// and its gate.
TEST(Baseline, SavedThenComparedReportsEveryCase) {
    ScratchDir dir;
    const std::string run =
        "run -q -s read.chunk,read.pread-chunk --size 64K --warmup 0 --iterations 5 --dir " + dir.path();
    const auto first = run_cli(run + " --save-baseline main", dir.path());
    ASSERT_EQ(first.status, 0) << first.err;
    const std::string kept = dir.file(".iolab/baselines/main.json");
    ASSERT_FALSE(slurp(kept).empty());
    // Kept already: not replaced without --force, and said before anything is measured.
    const auto again = run_cli(run + " --save-baseline main", dir.path());
    EXPECT_EQ(again.status, 2) << again.err;
    EXPECT_NE(again.err.find("--save-baseline"), std::string::npos) << again.err;
    EXPECT_EQ(run_cli(run + " --save-baseline main --force", dir.path()).status, 0);
    for (const char* bad :
         {"--save-baseline ../up", "--save-baseline ''", "--baseline nosuch", "--fail-if-slower 5%",
          "--save-baseline _a", "--save-baseline smoke --smoke", "--baseline main --fail-if-slower '5 %'",
          "--save-baseline v1.json", "--save-baseline main --json .iolab/baselines/main.json --force",
          "--baseline .iolab/baselines/main.json --json .iolab/baselines/main.json --force"}) {
        const auto r = run_cli(run + " " + bad, dir.path());
        EXPECT_EQ(r.status, 2) << bad << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << bad << ": " << r.err;
    }

    const auto second = run_cli(
        "run -s read.chunk,read.pread-chunk,read.mmap-scan --size 64K --warmup 0 --iterations 5 "
        "--dir " +
            dir.path() +
            " --baseline main --fail-if-slower 1000% --json b.json --csv "
            "b.csv --markdown b.md",
        dir.path());
    ASSERT_EQ(second.status, 0) << second.out << second.err;
    EXPECT_NE(second.out.find("this run against baseline main"), std::string::npos) << second.out;
    const auto j = nlohmann::json::parse(slurp(dir.file("b.json")));
    ASSERT_TRUE(j.contains("baseline"));
    EXPECT_EQ(j["baseline"]["before"], "baseline main");
    EXPECT_EQ(j["baseline"]["cases"].size(), 2u);
    EXPECT_EQ(j["baseline"]["added"], nlohmann::json::array({"read.mmap-scan size=64K"}));
    const std::string md = slurp(dir.file("b.md"));
    for (const auto* out : {&second.out, &md})
        for (const char* label : {"read.chunk buffer=64K size=64K", "read.pread-chunk buffer=64K size=64K",
                                  "only in this run (added): read.mmap-scan size=64K"})
            EXPECT_NE(out->find(label), std::string::npos) << label << " in " << *out;
    // Each shared case's row has its ratio and change; the new case's are empty.
    std::istringstream csv(slurp(dir.file("b.csv")));
    std::string header, row;
    std::getline(csv, header);
    EXPECT_TRUE(header.ends_with(",baseline_ratio,baseline_low,baseline_high,baseline_p,baseline_change")) << header;
    int with_ratio = 0, without = 0;
    while (std::getline(csv, row)) {
        const auto tail = row.substr(row.rfind(',') + 1);
        if (row.starts_with("read.mmap-scan,"))
            without += row.ends_with(",,,,,");
        else
            with_ratio += tail == "same" || tail == "faster" || tail == "slower" || tail == "too_few";
    }
    EXPECT_EQ(with_ratio, 2);
    EXPECT_EQ(without, 1);
    // The same comparison by compare, against the kept baseline by its name.
    const auto cmp = run_cli("compare --baseline main b.json", dir.path());
    EXPECT_EQ(cmp.status, 0) << cmp.err;
    EXPECT_NE(cmp.out.find("read.pread-chunk buffer=64K size=64K"), std::string::npos) << cmp.out;
}

// Under an MPI launcher, whose ranks get a pseudo-terminal whatever mpirun's own output is, the
// report has no colour codes; the same command on a terminal without it has them.
TEST(Colour, NoneUnderAnMpiLauncher) {
    ScratchDir dir;
    write_result(dir.file("a.json"), 1, 1, 1);
    const auto on_terminal = [&](const std::string& env) {
        // script(1) gives the command a pseudo-terminal and copies what it prints to the file.
        const std::string cmd = "cd '" + dir.path() + "' && " + env + " script -qec \"" + IOLAB_BINARY +
                                " report a.json\" " + dir.file("typescript") + " >/dev/null 2>&1 </dev/null";
        EXPECT_EQ(std::system(cmd.c_str()), 0);
        return slurp(dir.file("typescript"));
    };
    const std::string plain = on_terminal("env -u NO_COLOR -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u SLURM_PROCID");
    ASSERT_NE(plain.find("read.chunk"), std::string::npos) << plain;
    EXPECT_NE(plain.find("\x1b["), std::string::npos) << plain;
    for (const char* var : {"OMPI_COMM_WORLD_RANK=0", "PMI_RANK=0", "SLURM_PROCID=0"}) {
        const std::string launched =
            on_terminal(std::string("env -u NO_COLOR -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u SLURM_PROCID ") + var);
        ASSERT_NE(launched.find("read.chunk"), std::string::npos) << launched;
        EXPECT_EQ(launched.find("\x1b["), std::string::npos) << var << ": " << launched;
    }
}

}  // namespace
}  // namespace iolab

namespace iolab {
namespace {

using test::run_cli;
using test::slurp;

// iolab calibrate measures, prints what it found and, with --save, keeps it: replaced only with
// --force (refused before anything is measured), then read by compare's gate and a run's header.
TEST(Calibrate, MeasuresSavesAndIsUsedByTheGateAndTheHeader) {
    ScratchDir dir;
    const auto first = run_cli("calibrate --save --dir " + dir.path(), dir.path());
    ASSERT_EQ(first.status, 0) << first.err;
    for (const char* line : {"read.chunk buffer=64K", "write.record-buffered buffer=64K", "copy.chunk buffer=1M",
                             "copy.copy-file-range buffer=1M",
                             "twins called different: ", "the smallest difference a run tells apart here: about ",
                             "between runs a case moved by up to "})
        EXPECT_NE(first.out.find(line), std::string::npos) << line << "\n" << first.out;
    const Calibration c = read_calibration(slurp(dir.file(".iolab/calibration.json")), "c");
    EXPECT_EQ(c.cases.size(), 4u);
    EXPECT_EQ(c.twins, 20u);  // 4 cases in 5 runs
    EXPECT_LE(c.called_different, c.twins);
    EXPECT_GT(c.tell_apart, 0);
    // Kept: not replaced without --force, and said before anything is measured.
    const auto again = run_cli("calibrate --save --dir " + dir.path(), dir.path());
    EXPECT_EQ(again.status, 2);
    EXPECT_NE(again.err.find(".iolab/calibration.json exists: --force replaces it"), std::string::npos) << again.err;
    EXPECT_EQ(again.out, "");
}

// The spread between runs is what the gate's interval lacked to hold 1 for the worst pair: none for
// runs that overlap, the gap past the interval for a run that moved.
TEST(Calibrate, BetweenRunsIsTheWideningTheWorstPairNeeded) {
    std::vector<double> run;
    for (int i = 0; i < 10; ++i) run.push_back(1.0 + 0.01 * i);  // 1.00 .. 1.09
    EXPECT_EQ(between_runs({run, run, run}), 0);
    std::vector<double> slower = run;
    for (double& x : slower) x *= 1.5;
    const double moved = between_runs({run, run, slower});
    // The ratio is 1.5; its 99% interval's low end, from these spreads, lies between 1.35 and 1.5.
    EXPECT_GT(moved, 0.35);
    EXPECT_LT(moved, 0.5);
    // Either way round: a faster run moved as far.
    EXPECT_NEAR(between_runs({slower, run}), between_runs({run, slower}), 1e-9);
}

// A saved calibration is this machine's spread between runs for the gate, and a line of a run's
// header; another machine's is said and not used; a damaged one is an error naming the file.
TEST(Calibrate, TheGateAndTheHeaderReadIt) {
    ScratchDir dir;
    Calibration c;
    c.machine = this_machine();
    c.date = "2026-01-02T03:04:05Z";
    c.runs = 5;
    c.samples = 10;
    c.twins = 20;
    c.tell_apart = 0.042;
    c.between = 0.031;
    ASSERT_EQ(::mkdir(dir.file(".iolab").c_str(), 0700), 0);
    std::ofstream(dir.file(".iolab/calibration.json")) << calibration_json(c);
    auto [a, b] = two_runs("read.chunk", 1.2);
    save(dir, {{&a, "a.json"}, {&b, "b.json"}});
    const auto measured = run_cli("compare a.json b.json --fail-if-slower 5%", dir.path());
    EXPECT_EQ(measured.status, 1) << measured.out;
    EXPECT_NE(measured.out.find("widened by 3.1% either way for the spread between runs (measured by iolab "
                                "calibrate here, 2026-01-02T03:04:05Z)"),
              std::string::npos)
        << measured.out;
    const auto given = run_cli("compare a.json b.json --fail-if-slower 5% --between-runs 20%", dir.path());
    EXPECT_EQ(given.status, 0) << given.out;  // 1.2 / 1.2 is not beyond 1.05
    EXPECT_NE(given.out.find("(given: --between-runs)"), std::string::npos) << given.out;
    const auto run = run_cli("run -s read.chunk --size 64K --iterations 3 --dir " + dir.path(), dir.path());
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.out.find("noise here (iolab calibrate, 2026-01-02T03:04:05Z): a run tells apart differences of "
                           "about 4.2% or more; runs moved by up to 3.1% past their intervals"),
              std::string::npos)
        << run.out;
    c.machine = "another";
    std::ofstream(dir.file(".iolab/calibration.json")) << calibration_json(c);
    const auto other = run_cli("compare a.json b.json --fail-if-slower 5%", dir.path());
    EXPECT_NE(other.out.find("(the default: .iolab/calibration.json was made on another machine)"), std::string::npos)
        << other.out;
    std::ofstream(dir.file(".iolab/calibration.json")) << "{\"schema\": \"iolab.calibration/1\", \"machine\": 3}";
    const auto damaged = run_cli("compare a.json b.json --fail-if-slower 5%", dir.path());
    EXPECT_EQ(damaged.status, 2);
    EXPECT_NE(damaged.err.find(".iolab/calibration.json: not a calibration of iolab: machine is not a string"),
              std::string::npos)
        << damaged.err;
}

}  // namespace
}  // namespace iolab
