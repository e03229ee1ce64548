// Suites: the loader's errors, finding verdicts and knees on crafted results, and every
// built-in suite run end to end in smoke mode.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <algorithm>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "iolab/core/process.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/report/read/read.hpp"
#include "iolab/report/table.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/suite/findings.hpp"
#include "iolab/suite/suite.hpp"
#include "support.hpp"

namespace iolab {
namespace {

const char* kValid = R"(
name = "demo"
description = "a demo"

[defaults]
size = "64K"
iterations = "3"

[[group]]
id = "g"
strategies = ["copy.chunk", "copy.sendfile"]
buffer = ["4K", "64K"]

[[finding]]
claim = "chunk beats sendfile"
published = 2.0
faster = { group = "g", strategy = "copy.chunk", buffer = "64K" }
slower = { group = "g", strategy = "copy.sendfile" }
at_least = 1.5

[[knee]]
group = "g"
strategy = "copy.chunk"
)";

// byte_slice = "0" means the whole file, in a suite as on the command line.
TEST(SuiteLoader, ByteSliceZeroMeansNoSlice) {
    std::string text = kValid;
    text.replace(text.find("iterations = \"3\""), 16, "iterations = \"3\"\nbyte_slice = \"0\"");
    const Suite s = parse_suite(text, "demo.toml");
    EXPECT_EQ(s.groups[0].plan.byte_slice, UINT64_MAX);
    EXPECT_EQ(byte_slice_from(0), UINT64_MAX);
    EXPECT_EQ(byte_slice_from(4096), 4096u);
}

TEST(SuiteLoader, ParsesAValidSuite) {
    const Suite s = parse_suite(kValid, "demo.toml");
    EXPECT_EQ(s.name, "demo");
    ASSERT_EQ(s.groups.size(), 1u);
    EXPECT_EQ(s.groups[0].plan.sizes, std::vector<std::uint64_t>{65536});
    EXPECT_EQ(s.groups[0].plan.buffers, (std::vector<std::size_t>{4096, 65536}));
    EXPECT_EQ(s.groups[0].options.iterations.count, 3u);
    ASSERT_EQ(s.findings.size(), 1u);
    EXPECT_EQ(s.findings[0].faster.params.size(), 1u);
    EXPECT_DOUBLE_EQ(s.findings[0].at_least, 1.5);
    ASSERT_EQ(s.knees.size(), 1u);
}

struct Broken {
    std::string from, to;  // a replacement in kValid
    std::string mention;   // expected in the message, besides "demo.toml:LINE:"
    int line;
};

void PrintTo(const Broken& b, std::ostream* os) { *os << b.to; }

class SuiteLoaderErrors : public testing::TestWithParam<Broken> {};

TEST_P(SuiteLoaderErrors, NameFileLineAndKey) {
    std::string text = kValid;
    const auto& b = GetParam();
    const auto at = text.find(b.from);
    ASSERT_NE(at, std::string::npos) << b.from;
    text.replace(at, b.from.size(), b.to);
    try {
        parse_suite(text, "demo.toml");
        FAIL() << "accepted: " << b.to;
    } catch (const SuiteError& e) {
        const std::string msg = e.what();
        EXPECT_TRUE(msg.starts_with("demo.toml:" + std::to_string(b.line) + ":")) << msg;
        EXPECT_NE(msg.find(b.mention), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SuiteLoaderErrors,
    testing::Values(
        Broken{"name = \"demo\"\n", "", "name", 1},                                        // missing key
        Broken{"description = \"a demo\"", "description = 3", "description", 3},           // wrong type
        Broken{"\"copy.chunk\", \"copy.sendfile\"", "\"copy.chunkk\"", "copy.chunk", 11},  // unknown strategy
        Broken{"buffer = [\"4K\", \"64K\"]", "chain = \"gzip>file\"", "gzip", 12},         // bad chain
        Broken{"buffer = [\"4K\", \"64K\"]", "buffer = \"12Q\"", "12Q", 12},               // bad size
        Broken{"at_least = 1.5", "at_least = 1.5\nwithin = 0.2", "exactly one", 20},
        // A ratio no run tells (it printed with 300 digits), and a case against itself.
        Broken{"at_least = 1.5", "at_least = 1e308", "no run tells such a ratio", 19},
        Broken{"published = 2.0", "published = 1e300", "no run tells such a ratio", 16},
        Broken{"slower = { group = \"g\", strategy = \"copy.sendfile\" }",
               "slower = { group = \"g\", strategy = \"copy.chunk\", buffer = \"64K\" }", "with itself", 18},
        // A selector's value is one value: a list was read as its first.
        Broken{"slower = { group = \"g\", strategy = \"copy.sendfile\" }",
               "slower = { group = \"g\", strategy = \"copy.sendfile\", buffer = [\"4K\", \"64K\"] }",
               "a selector picks one value of buffer", 18},
        // The same case however it is written (65536 is 64K, a list of one is its name), on either runtime.
        Broken{"slower = { group = \"g\", strategy = \"copy.sendfile\" }",
               "slower = { group = \"g\", strategy = [\"copy.chunk\"], buffer = \"65536\" }", "with itself", 18},
        Broken{"at_least = 1.5",
               "at_least = 1.5\njvm_faster = { group = \"g\", strategy = \"copy.sendfile\" }\n"
               "jvm_slower = { group = \"g\", strategy = \"copy.sendfile\" }",
               "jvm_faster and jvm_slower select the same case", 21},
        Broken{"group = \"g\", strategy = \"copy.sendfile\"", "group = \"nope\", strategy = \"copy.sendfile\"", "nope",
               18},
        Broken{"iterations = \"3\"", "iterations = \"3\"\ncolour = \"red\"", "colour", 8},
        // A time budget with what turns racing off in the same table: it would do nothing.
        Broken{"iterations = \"3\"", "iterations = \"auto\"\ntime_budget = \"10s\"\nprecision = \"5%\"",
               "time_budget and precision exclude each other", 8},
        Broken{"iterations = \"3\"", "time_budget = \"10s\"\niterations = \"3\"", "time_budget needs iterations auto",
               7},
        Broken{"size = \"64K\"", "size = \"64K", "", 6},  // TOML syntax
        Broken{"size = \"64K\"", "size = \"0\"", "from 1 byte to 2^60 bytes", 6},
        // A finding or knee naming a strategy its group does not run: refused at load.
        Broken{"slower = { group = \"g\", strategy = \"copy.sendfile\" }",
               "slower = { group = \"g\", strategy = \"copy.splice\" }", "copy.splice", 18},
        Broken{"[[knee]]\ngroup = \"g\"\nstrategy = \"copy.chunk\"",
               "[[knee]]\ngroup = \"g\"\nstrategy = \"copy.chnuk\"", "copy.chnuk", 23},
        // Escape sequences and line breaks in names never reach a terminal.
        Broken{"name = \"demo\"", "name = \"de\\u001b[2Jmo\"", "control character", 2},
        Broken{"claim = \"chunk beats sendfile\"", "claim = \"chunk\\nbeats\"", "control character", 15}));

CaseResult crafted(const std::string& group, const char* strategy, std::size_t buffer, std::vector<double> walls) {
    CaseResult c;
    c.spec.strategy = Registry::builtin().find(strategy);
    c.spec.group = group;
    c.spec.workload.family = c.spec.strategy->family;
    c.spec.workload.size = 1 << 20;
    c.spec.workload.buffer = buffer;
    for (double w : walls) {
        Sample s;
        s.wall_s = w;
        s.bytes = 1 << 20;
        c.samples.push_back(s);
    }
    c.checked = Checked::content;
    c.verified = true;
    finish(c, RunOptions{}, 1e-9);
    return c;
}

Finding finding(double at_least, double within = 0) {
    Finding f;
    f.claim = "chunk beats sendfile";
    f.faster = Selector{"g", {"copy.chunk"}, {}, false};
    f.slower = Selector{"g", {"copy.sendfile"}, {}, false};
    f.at_least = at_least;
    f.within = within;
    return f;
}

TEST(Findings, ClearWinHolds) {
    const std::vector<CaseResult> cases = {crafted("g", "copy.chunk", 4096, {1.0, 1.01, 0.99, 1.0, 1.02, 0.98}),
                                           crafted("g", "copy.sendfile", 4096, {3.0, 3.02, 2.98, 3.0, 3.01, 2.99})};
    const FindingResult r = evaluate(finding(2.0), cases);
    EXPECT_EQ(r.verdict, Verdict3::holds);
    EXPECT_NEAR(r.ratio, 3.0, 1e-9);
    EXPECT_LT(r.low, 3.0);
    EXPECT_GT(r.high, 3.0);
    EXPECT_GT(r.low, 2.0);
}

// The ratio shown is the ratio judged: with skewed samples it still lies inside its interval.
TEST(Findings, ShownRatioLiesInsideItsInterval) {
    const std::vector<CaseResult> cases = {
        crafted("g", "copy.chunk", 4096, {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 9.0, 9.0}),
        crafted("g", "copy.sendfile", 4096, {1.0, 1.01, 1.0, 1.02, 1.0, 1.01, 1.0, 1.0})};
    const FindingResult r = evaluate(finding(1.0), cases);
    EXPECT_GE(r.ratio, r.low);
    EXPECT_LE(r.ratio, r.high);
    EXPECT_NEAR(r.ratio, 1.0, 0.02);  // the medians, not the means (which differ by 3x)
}

// A side with fewer than 3 samples, an unverified case or an unproven cold case decides nothing,
// however clear the numbers.
TEST(Findings, FewSamplesUnverifiedOrNotColdAreInconclusive) {
    const auto fast = [] { return crafted("g", "copy.chunk", 4096, {1.0, 1.0, 1.0, 1.0, 1.0, 1.0}); };
    const auto slow = [] { return crafted("g", "copy.sendfile", 4096, {9.0, 9.0, 9.0, 9.0, 9.0, 9.0}); };
    std::vector<CaseResult> cases = {crafted("g", "copy.chunk", 4096, {1.0}), slow()};
    FindingResult r = evaluate(finding(2.0), cases);
    EXPECT_EQ(r.verdict, Verdict3::inconclusive);
    EXPECT_NE(r.note.find("too few samples: copy.chunk buffer=4K has 1, fewer than 3"), std::string::npos) << r.note;

    cases = {fast(), slow()};
    EXPECT_EQ(evaluate(finding(2.0), cases).verdict, Verdict3::holds);
    cases[1].checked = Checked::none;
    cases[1].verified = false;
    r = evaluate(finding(2.0), cases);
    EXPECT_EQ(r.verdict, Verdict3::inconclusive);
    EXPECT_NE(r.note.find("unverified"), std::string::npos) << r.note;

    cases = {fast(), slow()};
    cases[0].cold_unproven = true;
    r = evaluate(finding(2.0), cases);
    EXPECT_EQ(r.verdict, Verdict3::inconclusive);
    EXPECT_NE(r.note.find("not proven cold"), std::string::npos) << r.note;

    cases = {fast(), slow()};
    cases[0].checked = Checked::byte_count;  // dd, fio: the whole job was done
    EXPECT_EQ(evaluate(finding(2.0), cases).verdict, Verdict3::holds);
}

TEST(Findings, ClearLossDoesNotHold) {
    const std::vector<CaseResult> cases = {crafted("g", "copy.chunk", 4096, {2.0, 2.01, 1.99, 2.0, 2.02, 1.98}),
                                           crafted("g", "copy.sendfile", 4096, {1.0, 1.01, 0.99, 1.0, 1.02, 0.98})};
    EXPECT_EQ(evaluate(finding(1.0), cases).verdict, Verdict3::does_not_hold);
}

TEST(Findings, OverlappingIntervalsAreInconclusive) {
    const std::vector<CaseResult> cases = {crafted("g", "copy.chunk", 4096, {1.0, 1.5, 0.6, 1.2}),
                                           crafted("g", "copy.sendfile", 4096, {1.1, 1.6, 0.7, 1.3})};
    const FindingResult r = evaluate(finding(1.0), cases);
    EXPECT_EQ(r.verdict, Verdict3::inconclusive);
    EXPECT_LT(r.low, 1.0);
    EXPECT_GT(r.high, 1.0);
}

TEST(Findings, WithinAndMissingCases) {
    std::vector<CaseResult> cases = {crafted("g", "copy.chunk", 4096, {1.0, 1.0, 1.0, 1.0, 1.0, 1.0}),
                                     crafted("g", "copy.sendfile", 4096, {1.05, 1.05, 1.05, 1.05, 1.05, 1.05})};
    EXPECT_EQ(evaluate(finding(0, 0.1), cases).verdict, Verdict3::holds);
    cases[1] = crafted("g", "copy.sendfile", 4096, {2.0, 2.0, 2.0, 2.0, 2.0, 2.0});
    EXPECT_EQ(evaluate(finding(0, 0.1), cases).verdict, Verdict3::does_not_hold);
    cases[1].status = Status::skipped;
    cases[1].reason = "not here";
    const FindingResult r = evaluate(finding(1.0), cases);
    EXPECT_EQ(r.verdict, Verdict3::inconclusive);
    EXPECT_NE(r.note.find("not here"), std::string::npos) << r.note;
}

TEST(Findings, SelectorsPickFastestOrSlowestAndFilterParams) {
    const std::vector<CaseResult> cases = {crafted("g", "copy.chunk", 4096, {4.0, 4.0}),
                                           crafted("g", "copy.chunk", 65536, {1.0, 1.0}),
                                           crafted("h", "copy.chunk", 1 << 20, {0.5, 0.5})};
    EXPECT_EQ(select_case(Selector{"g", {"copy.*"}, {}, false}, cases), &cases[1]);
    EXPECT_EQ(select_case(Selector{"g", {"copy.*"}, {}, true}, cases), &cases[0]);
    EXPECT_EQ(select_case(Selector{"g", {"copy.chunk"}, {{"buffer", "4K"}}, false}, cases), &cases[0]);
    EXPECT_EQ(select_case(Selector{"g", {"copy.sendfile"}, {}, false}, cases), nullptr);
}

TEST(Knee, SmallestBufferWithin95PercentOfTheBest) {
    std::vector<CaseResult> sweep;
    // throughput 1 MiB / wall: 512 B -> 10, 4K -> 50, 64K -> 97, 1M -> 100 MiB/s
    const std::vector<std::pair<std::size_t, double>> points = {
        {512, 0.1}, {4096, 0.02}, {65536, 1.0 / 97}, {1 << 20, 0.01}};
    for (const auto& [b, w] : points) sweep.push_back(crafted("g", "copy.chunk", b, {w, w, w, w, w, w}));
    const KneeResult k = find_knee(KneeSpec{"", "g", "copy.chunk", 0.95}, sweep);
    EXPECT_EQ(k.knee_buffer, 65536u);
    EXPECT_EQ(k.best_buffer, 1u << 20);
    EXPECT_NEAR(k.best_mib_s, 100, 1e-9);
    EXPECT_EQ(find_knee(KneeSpec{"", "g", "copy.chunk", 0.4}, sweep).knee_buffer, 4096u);
}

// The best of a sweep is its winner group's fastest median (the smaller buffer between equals); a
// point is the knee only when its interval surely reaches the fraction, and a noisy point the
// knee might be is named beside it.
TEST(Knee, TiesGoToTheSmallerBufferAndNoiseWidensTheAnswer) {
    std::vector<CaseResult> sweep;
    for (const auto& [b, w] : std::vector<std::pair<std::size_t, double>>{{4096, 0.02}, {65536, 0.01}, {1 << 20, 0.01}})
        sweep.push_back(crafted("g", "copy.chunk", b, {w, w * 1.01, w * 0.99, w, w * 1.02, w * 0.98}));
    KneeResult k = find_knee(KneeSpec{"", "g", "copy.chunk", 0.95}, sweep);
    EXPECT_EQ(k.best_buffer, 65536u);  // tied with 1M: the smaller
    EXPECT_EQ(k.knee_buffer, 65536u);
    EXPECT_TRUE(k.note.empty()) << k.note;
    // 1M's median is now twice as fast, but it varies ±50 %: 64K is not surely within 95 % of it,
    // nor surely short of it. The knee is 1M, and 64K is named as one that might reach it.
    sweep[2] = crafted("g", "copy.chunk", 1 << 20, {0.005, 0.01, 0.0025, 0.006, 0.004, 0.0075, 0.005});
    k = find_knee(KneeSpec{"", "g", "copy.chunk", 0.95}, sweep);
    EXPECT_FALSE(sweep[2].stable);
    EXPECT_EQ(k.best_buffer, 1u << 20);
    EXPECT_EQ(k.knee_buffer, 1u << 20);
    EXPECT_NE(k.note.find("copy.chunk buffer=64K might reach it too"), std::string::npos) << k.note;
    EXPECT_EQ(k.note.find("buffer=4K"), std::string::npos) << k.note;  // surely short of it
}

TEST(BuiltinSuites, AllParseAndTheExperimentsAreThere) {
    const auto names = builtin_suite_names();
    // Read from the suites' own `replicates`, in the write-ups' order: no list in code; the new
    // experiments after them.
    EXPECT_EQ(replication_suites(),
              (std::vector<std::string>{"copy-basics", "log-writer", "buffer-sweep", "compress-order", "read-large",
                                        "durable-log", "safe-save", "small-files"}));
    for (const auto& n : names)
        EXPECT_EQ(builtin_suite(n).replicates.empty(),
                  n == "quick" || n == "scale" || n == "tune" || n == "mmap-vs-read")
            << n;
    for (const auto& n : replication_suites()) {
        EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
        const Suite s = builtin_suite(n);
        EXPECT_FALSE(s.findings.empty()) << n;
        EXPECT_FALSE(s.source.empty()) << n;
    }
    EXPECT_NO_THROW(builtin_suite("quick"));
    EXPECT_THROW(builtin_suite("nope"), SuiteError);
}

// Combined (iolab replicate), each experiment keeps its own time budget: the run's is their sum,
// and each suite's groups share that suite's budget by their cases.
TEST(BuiltinSuites, ACombinedRunGivesEachSuiteItsOwnBudget) {
    std::vector<Suite> suites;
    double sum = 0;
    for (const auto& n : replication_suites()) {
        suites.push_back(builtin_suite(n));
        sum += time_budget(suites.back());
    }
    const Suite all = combine(suites, "replicate");
    EXPECT_NEAR(time_budget(all), sum, 1e-9);
    EXPECT_GT(sum, kDefaultTimeBudget);  // more than one run's default: no suite is squeezed
    for (const Suite& s : suites) {
        double shares = 0;
        std::size_t groups = 0;
        for (const Group& g : all.groups)
            if (g.id.starts_with(s.name + "/")) {
                shares += g.weight;
                ++groups;
            }
        EXPECT_EQ(groups, s.groups.size()) << s.name;
        EXPECT_NEAR(shares, time_budget(s), 1e-6) << s.name;
    }
    // Weighted groups take their weights' part: buffer-sweep's slow device 20 s of its 47.
    const auto slow =
        std::find_if(all.groups.begin(), all.groups.end(), [](const Group& g) { return g.id == "buffer-sweep/slow"; });
    ASSERT_NE(slow, all.groups.end());
    EXPECT_NEAR(slow->weight, 20, 1e-9);
    // The five published ones fit in five minutes with room for what precedes the groups (the
    // ceilings); the new experiments (durable-log, small-files) come on top.
    double published = 0;
    for (const Suite& s : suites)
        if (s.replicates.starts_with("seed")) published += time_budget(s);
    EXPECT_LE(published, 270);
    EXPECT_LT(published, sum);
}

class SmokeRun : public testing::TestWithParam<std::string> {};

TEST_P(SmokeRun, RunsEndToEndAndEvaluatesEveryFinding) {
    ScratchDir dir;
    const std::string json = dir.file("r.json");
    const auto r = test::run_cli("run " + GetParam() + " --smoke --quiet --dir " + dir.path() + " --json " + json);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(test::slurp(json));
    EXPECT_EQ(j["suite"], GetParam());
    const Suite s = builtin_suite(GetParam());
    ASSERT_EQ(j["findings"].size(), s.findings.size());
    for (const auto& f : j["findings"]) {
        // One sample a case decides nothing: a smoke run never gives a verdict.
        EXPECT_EQ(f["verdict"], "INCONCLUSIVE") << f.dump();
        EXPECT_NE(f["note"].get<std::string>().find("fewer than 3"), std::string::npos) << f.dump();
        // In smoke mode every compared case exists, so every finding has a measured ratio; but a
        // tool's one net time on a tiny file (its run less its probe's) may be no time at all, and
        // so may a JVM method's (its run less the round trip beside it).
        const bool tool = [&] {
            for (const char* side : {"faster_case", "slower_case"}) {
                const std::string label = f[side].get<std::string>();
                const Strategy* st = Registry::builtin().find(label.substr(0, label.find(' ')));
                if (st && (st->external() || st->worker())) return true;
            }
            return false;
        }();
        EXPECT_TRUE(f["measured_ratio"].is_number() || tool) << f.dump();
    }
    // Nothing fails but a published bug, which must: its verification names it.
    for (const auto& c : j["cases"]) {
        const bool published_bug = c["strategy"].get<std::string>().ends_with("-as-published");
        EXPECT_EQ(c["status"] == "failed", published_bug) << c.dump();
        if (published_bug) {
            EXPECT_NE(c["reason"].get<std::string>().find("; as published, "), std::string::npos);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Builtin, SmokeRun,
                         testing::Values("copy-basics", "log-writer", "buffer-sweep", "compress-order", "read-large",
                                         "durable-log", "small-files", "scale", "quick"),
                         [](const auto& info) {
                             std::string n = info.param;
                             for (char& c : n)
                                 if (c == '-') c = '_';
                             return n;
                         });

TEST(Replicate, SmokeRunEndsWithEveryFindingAndExportsThemToMarkdown) {
    ScratchDir dir;
    const std::string md = dir.file("r.md");
    const auto r = test::run_cli("replicate --smoke --dir " + dir.path() + " --markdown " + md);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("findings"), std::string::npos);
    const std::string text = test::slurp(md);
    EXPECT_NE(text.find("### Findings"), std::string::npos);
    for (const auto& name : replication_suites()) EXPECT_NE(text.find(name + ": "), std::string::npos) << name;
}

TEST(SuiteFile, UserSuiteRunsAndBadFileIsOneLine) {
    ScratchDir dir;
    const std::string path = dir.file("mine.toml");
    { std::ofstream(path) << kValid; }
    auto r = test::run_cli("run --suite-file " + path + " --quiet --iterations 2 --dir " + dir.path());
    EXPECT_EQ(r.status, 0) << r.err;
    { std::ofstream(path) << "name = \"x\"\n"; }
    r = test::run_cli("run --suite-file " + path + " --dir " + dir.path());
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(path + ":"), std::string::npos) << r.err;
}

TEST(External, MissingToolIsSkippedWithTheReason) {
    ScratchDir dir;
    const std::string json = dir.file("r.json");
    const auto r = test::run_cli("run -s read.dd,read.chunk --size 64K --quiet --dir " + dir.path() + " --json " +
                                 json + " ; true");
    (void)r;
    // With an empty PATH the tool cannot be found: its case is skipped, and a run that measured
    // nothing ends with status 1.
    const std::string cmd = std::string("env PATH=/nonexistent ") + IOLAB_BINARY +
                            " run -s read.dd --size 64K --quiet --dir " + dir.path() + " --json " +
                            dir.file("nopath.json");
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << status;
    ASSERT_EQ(WEXITSTATUS(status), 1);
    const auto j = nlohmann::json::parse(test::slurp(dir.file("nopath.json")));
    ASSERT_EQ(j["cases"].size(), 1u);
    EXPECT_EQ(j["cases"][0]["status"], "skipped");
    EXPECT_NE(j["cases"][0]["reason"].get<std::string>().find("'dd' is not installed"), std::string::npos);
    // With dd there, it runs, net of its fixed cost (the process's time and that cost beside).
    const auto with = nlohmann::json::parse(test::slurp(json));
    for (const auto& c : with["cases"]) {
        EXPECT_EQ(c["status"], "ok") << c.dump();
        EXPECT_EQ(c.contains("fixed"), c["strategy"] == "read.dd") << c.dump();
    }
}

// A tool that takes 200 ms to start (a dd behind a `sleep 0.2`) is ranked by its net time: the
// same command on a one-page input, run beside it, takes the start-up away. (64 MiB: a read of
// tens of milliseconds, well above the few milliseconds a `sleep 0.2` varies by.)
TEST(External, AToolIsRankedByItsTimeLessItsStartUp) {
    ScratchDir dir, bin;
    const auto dd = find_program("dd");
    ASSERT_TRUE(dd);
    { std::ofstream(bin.file("dd")) << "#!/bin/sh\nsleep 0.2\nexec " << *dd << " \"$@\"\n"; }
    ASSERT_EQ(::chmod(bin.file("dd").c_str(), 0755), 0);
    const std::string json = dir.file("r.json");
    const std::string cmd = "env PATH=" + bin.path() + ":$PATH " + IOLAB_BINARY +
                            " run -s read.dd,read.cat --size 64M --buffer 1M --iterations 7 --quiet --dir " +
                            dir.path() + " --json " + json;
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    const Report r = read_report_file(json);
    const CaseResult *slow_dd = nullptr, *cat = nullptr;
    for (const CaseResult& c : r.cases) (c.name() == "read.dd" ? slow_dd : cat) = &c;
    ASSERT_TRUE(slow_dd && cat);
    // Its process and its probe both slept: each took 200 ms at least.
    EXPECT_GE(slow_dd->gross.median, 0.2);
    EXPECT_GE(slow_dd->fixed.median, 0.2);
    // Its figure is the net one: each run less the median of its probes'.
    std::vector<double> net, probes;
    for (const Sample& smp : slow_dd->samples) probes.push_back(smp.fixed_s);
    for (const Sample& smp : slow_dd->samples) net.push_back((smp.wall_s - median(probes)) / smp.passes);
    EXPECT_DOUBLE_EQ(slow_dd->stats.median, median(net));
    EXPECT_DOUBLE_EQ(slow_dd->throughput_mib_s, median(net) > 0 ? 64 / median(net) : 0);
    // So it ranks beside cat, which reads the same 64 MiB: not 200 ms behind it.
    EXPECT_LT(slow_dd->stats.median, 0.1);
    EXPECT_LT(std::fabs(slow_dd->stats.median - cat->stats.median), 0.1);
    // And the table says so.
    const auto tables = ranked_tables(r);
    ASSERT_EQ(tables.size(), 1u);
    const auto& cases = tables[0].cases;
    const auto at = [&](const CaseResult* c) { return std::find(cases.begin(), cases.end(), c) - cases.begin(); };
    if (slow_dd->stable && cat->stable) {
        EXPECT_EQ(at(slow_dd) < at(cat), slow_dd->throughput_mib_s >= cat->throughput_mib_s);
    }
}

}  // namespace
}  // namespace iolab
