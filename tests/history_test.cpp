// Runs over time (report/analysis/history.hpp): each case a line of its medians over the runs in
// date order, machines never joined on one line, the last change tested against a threshold; and
// iolab report --history over the kept baselines and the files given.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

#include <fmt/format.h>

#include "expect.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/report/analysis/compare.hpp"
#include "iolab/report/analysis/history.hpp"
#include "iolab/report/exporter.hpp"
#include "support.hpp"

namespace iolab {
namespace {

using test::run_cli;
using test::slurp;

CaseResult case_of(const char* name, double scale) { return test::spread_case(name, scale); }

// A run of this machine on `date` of read.chunk and read.pread-chunk scaled as given, and copy.chunk
// unless `copy` is 0.
Report run_on(const std::string& date, double chunk, double pread, double copy = 1) {
    Report r;
    r.environment.date = date;
    r.environment.commit = "c" + date.substr(8, 2);
    r.environment.cpu_model = "AMD EPYC";
    r.environment.cpus = 2;
    r.environment.memory_bytes = 24ull << 30;
    r.environment.fs_type = "ext4";
    r.cases = {case_of("read.chunk", chunk), case_of("read.pread-chunk", pread)};
    if (copy > 0) r.cases.push_back(case_of("copy.chunk", copy));
    return r;
}

GateSettings band(double threshold) {
    GateSettings g;
    g.threshold = threshold;
    g.between = 0;
    g.between_source = "given";
    return g;
}

const HistoryLine& line_of(const History& h, const std::string& label, std::size_t machine = 0) {
    for (const HistoryLine& l : h.lines)
        if (l.label == label && l.machine == machine) return l;
    throw std::runtime_error("no line " + label);
}

// Given out of date order, the runs are put in it; each case has a point in every run that measured
// it and a gap in the others, and its last change is between its last two runs.
TEST(History, EachCaseIsALineOfItsMediansInDateOrder) {
    const Report third = run_on("2026-12-03T10:00:00Z", 1, 1), first = run_on("2026-12-01T10:00:00Z", 1, 1),
                 second = run_on("2026-12-02T10:00:00Z", 1, 1, 0);
    const History h = build_history({{&third, "c.json"}, {&first, "a.json"}, {&second, "b.json"}}, band(0.05));
    ASSERT_EQ(h.runs.size(), 3u);
    EXPECT_EQ(h.runs[0].name, "a.json");
    EXPECT_EQ(h.runs[1].name, "b.json");
    EXPECT_EQ(h.runs[2].name, "c.json");
    EXPECT_EQ(h.runs[1].commit, "c02");
    EXPECT_EQ(h.runs[1].cases, 2u);
    ASSERT_EQ(h.machines.size(), 1u);
    ASSERT_EQ(h.lines.size(), 3u);
    const HistoryLine& chunk = line_of(h, "read.chunk buffer=64K size=1M");
    EXPECT_TRUE(chunk.points[0] && chunk.points[1] && chunk.points[2]);
    EXPECT_NEAR(chunk.points[0]->mib_s, first.cases[0].throughput_mib_s, 1e-9);
    EXPECT_GT(chunk.points[0]->high, chunk.points[0]->mib_s);
    EXPECT_LT(chunk.points[0]->low, chunk.points[0]->mib_s);
    EXPECT_EQ(chunk.from, 1u);
    EXPECT_EQ(chunk.to, 2u);
    const HistoryLine& copy = line_of(h, "copy.chunk buffer=64K size=1M");
    EXPECT_TRUE(copy.points[0] && !copy.points[1] && copy.points[2]);
    ASSERT_TRUE(copy.last);
    EXPECT_EQ(copy.from, 0u);
    EXPECT_EQ(copy.to, 2u);
    EXPECT_EQ(copy.last->change, Change::same);
    const Table t = history_lines_table(h);
    ASSERT_EQ(t.rows.size(), 3u);
    EXPECT_EQ(t.rows[2].cells[0], "copy.chunk buffer=64K size=1M");
    EXPECT_EQ(t.rows[2].cells[2], "-");
    // One run: nothing to compare, said.
    const History once = build_history({{&first, "a.json"}}, band(0.05));
    EXPECT_FALSE(once.lines[0].last);
    EXPECT_EQ(history_lines(once)[1], "no case was compared in two runs on one machine: nothing changed to tell");
}

// A last change wholly beyond the threshold is listed, slower or faster; one within it, or an
// earlier change the latest run did not repeat, is not.
TEST(History, ALastChangeBeyondTheThresholdIsListed) {
    const Report a = run_on("2026-12-01T10:00:00Z", 1, 1, 1), b = run_on("2026-12-02T10:00:00Z", 1, 1, 2),
                 c = run_on("2026-12-03T10:00:00Z", 1.5, 0.7, 2.01);
    const History h = build_history({{&a, "a"}, {&b, "b"}, {&c, "c"}}, band(0.05));
    const HistoryLine &chunk = line_of(h, "read.chunk buffer=64K size=1M"),
                      &pread = line_of(h, "read.pread-chunk buffer=64K size=1M"),
                      &copy = line_of(h, "copy.chunk buffer=64K size=1M");
    EXPECT_TRUE(chunk.beyond());
    EXPECT_EQ(chunk.last->change, Change::slower);
    EXPECT_NEAR(chunk.last->ratio, 1.5, 1e-6);
    EXPECT_TRUE(pread.beyond());
    EXPECT_EQ(pread.last->change, Change::faster);
    EXPECT_FALSE(copy.beyond());  // doubled from a to b, the same from b to c
    const Table t = history_changes_table(h);
    ASSERT_EQ(t.rows.size(), 2u);
    EXPECT_TRUE(
        test::cells_are(t.rows[0], {{0, "slower beyond 5%"}, {1, "read.chunk buffer=64K size=1M"}, {2, "#2 to #3"}}));
    EXPECT_TRUE(test::cells_are(t.rows[1], {{0, "faster beyond 5%"}}));
    EXPECT_EQ(history_lines(h)[1], "2 of 3 case(s) compared changed beyond 5% at their last change");
    EXPECT_EQ(change_text(copy, 0.05), "within 5%");
    // A threshold of 60 % holds both changes.
    const History wide = build_history({{&a, "a"}, {&b, "b"}, {&c, "c"}}, band(0.6));
    EXPECT_TRUE(history_changes_table(wide).rows.empty());
    EXPECT_EQ(history_lines(wide)[1], "no case's last change went beyond 60% (3 compared)");
}

// Runs of another machine are lines of their own, numbered and described; a case twice as fast
// there is no change.
TEST(History, MachinesAreNeverJoinedOnOneLine) {
    Report here = run_on("2026-12-01T10:00:00Z", 1, 1), big = run_on("2026-12-02T10:00:00Z", 0.5, 0.5),
           again = run_on("2026-12-03T10:00:00Z", 1, 1);
    big.environment.cpus = 64;
    big.environment.fs_type = "tmpfs";
    const History h = build_history({{&here, "a"}, {&big, "b"}, {&again, "c"}}, band(0.05));
    ASSERT_EQ(h.machines.size(), 2u);
    EXPECT_EQ(h.runs[1].machine, 1u);
    EXPECT_EQ(h.runs[2].machine, 0u);
    EXPECT_EQ(h.lines.size(), 6u);
    const HistoryLine& there = line_of(h, "read.chunk buffer=64K size=1M", 1);
    EXPECT_FALSE(there.last);
    EXPECT_TRUE(there.points[1] && !there.points[0] && !there.points[2]);
    const HistoryLine& ours = line_of(h, "read.chunk buffer=64K size=1M", 0);
    ASSERT_TRUE(ours.last);
    EXPECT_EQ(ours.from, 0u);
    EXPECT_EQ(ours.to, 2u);
    EXPECT_FALSE(ours.beyond());
    const auto said = history_lines(h);
    EXPECT_EQ(said[0].find("3 run(s) from 2026-12-01 10:00 to 2026-12-03 10:00 UTC, on 2 machines"), 0u) << said[0];
    EXPECT_EQ(said[2], "machine 2: 64 cpus AMD EPYC, 24 GiB, tmpfs");
    EXPECT_EQ(history_lines_table(h).columns[1].name, "machine");
    // The same machine under another kernel, with a little less memory, is the same machine.
    Report kernel = again;
    kernel.environment.kernel = "6.18";
    kernel.environment.memory_bytes -= 40ull << 20;
    EXPECT_EQ(build_history({{&here, "a"}, {&kernel, "c"}}, band(0.05)).machines.size(), 1u);
}

// A run that does not say what its machine is joins no other: without it a 64-cpu run's halved
// times would be a change of two runs of one machine. A run joins a machine only when it differs
// from none of that machine's runs, whatever their order.
TEST(History, ARunThatDoesNotDescribeItsMachineJoinsNone) {
    Report bare = run_on("2026-12-01T10:00:00Z", 1, 1), here = run_on("2026-12-02T10:00:00Z", 1, 1),
           big = run_on("2026-12-03T10:00:00Z", 0.5, 0.5);
    bare.environment = Environment{};
    bare.environment.date = "2026-12-01T10:00:00Z";
    big.environment.cpus = 64;
    const History h = build_history({{&bare, "a"}, {&here, "b"}, {&big, "c"}}, band(0.05));
    ASSERT_EQ(h.machines.size(), 3u);
    EXPECT_EQ(h.machines[0], "a machine the run does not describe");
    for (const HistoryLine& l : h.lines) EXPECT_FALSE(l.last) << l.label;
    EXPECT_TRUE(h.gate_failed());  // nothing of the latest run's machine to compare
    std::vector<Report> gib;
    for (const std::uint64_t g : {100, 104, 108}) {
        gib.push_back(run_on(fmt::format("2026-12-0{}T10:00:00Z", gib.size() + 1), 1, 1));
        gib.back().environment.memory_bytes = g << 30;
    }
    for (const auto& order : {std::vector<std::size_t>{0, 1, 2}, std::vector<std::size_t>{1, 0, 2}}) {
        std::vector<std::pair<const Report*, std::string>> given;
        for (std::size_t i : order) given.emplace_back(&gib[i], "r");
        if (order[0] == 1) gib[1].environment.date = "2026-11-30T10:00:00Z";
        EXPECT_EQ(build_history(given, band(0.05)).machines.size(), 2u);
    }
}

// A change is beyond the threshold, within it, or not told apart from it, by its whole interval;
// one without a time to compare is none of them and is not counted as compared.
TEST(History, AChangeIsToldOnlyByItsWholeInterval) {
    Report a = run_on("2026-12-01T10:00:00Z", 1, 1), b = run_on("2026-12-02T10:00:00Z", 1, 1);
    // read.chunk: three samples a side, twice as slow: an interval too wide to tell from 5%.
    a.cases[0] = test::timed_case("read.chunk", {1e-3, 1.3e-3, 0.7e-3});
    b.cases[0] = test::timed_case("read.chunk", {2e-3, 1.2e-3, 2.9e-3});
    // read.pread-chunk: no time in the second run.
    b.cases[1] = test::timed_case("read.pread-chunk", {1e-3});
    b.cases[1].throughput_mib_s = 0;
    b.cases[1].stats.median = 0;
    const History h = build_history({{&a, "a"}, {&b, "b"}}, band(0.05));
    const HistoryLine& chunk = line_of(h, "read.chunk buffer=64K size=1M");
    ASSERT_TRUE(chunk.last);
    EXPECT_EQ(chunk.against, Against::untold) << chunk.last->low << " " << chunk.last->high;
    EXPECT_EQ(change_text(chunk, 0.05), "not told apart from 5%");
    EXPECT_EQ(change_text(line_of(h, "copy.chunk buffer=64K size=1M"), 0.05), "within 5%");
    const HistoryLine& pread = line_of(h, "read.pread-chunk buffer=64K size=1M");
    ASSERT_TRUE(pread.last);
    EXPECT_EQ(pread.against, Against::none);
    EXPECT_EQ(change_text(pread, 0.05), "no time to compare");
    EXPECT_EQ(history_lines(h)[1], "no case's last change went beyond 5% (2 compared)");
}

// Runs of other MPI rank counts moved other amounts of work: each count is a line of its own.
TEST(History, RunsOfOtherRankCountsAreOtherLines) {
    Report one = run_on("2026-12-01T10:00:00Z", 1, 1), four = run_on("2026-12-02T10:00:00Z", 4, 4);
    four.environment.hosts = {"a", "b", "c", "d"};
    const History h = build_history({{&one, "a"}, {&four, "b"}}, band(0.05));
    EXPECT_EQ(h.lines.size(), 6u);
    EXPECT_EQ(h.lines[3].label, "read.chunk buffer=64K size=1M (cache warm, sync none, verify sampled, 4 MPI ranks)");
    for (const HistoryLine& l : h.lines) EXPECT_FALSE(l.last) << l.label;
}

// Dates are ISO 8601, put in UTC before they are ordered; anything else is refused, naming it.
TEST(History, DatesAreOrderedInUtcAndAnythingElseIsRefused) {
    const Report late = run_on("2026-12-05T23:30:00Z", 1, 1), early = run_on("2026-12-06T01:00:00+02:00", 1, 1);
    const History h = build_history({{&late, "late"}, {&early, "early"}}, band(0.05));
    EXPECT_EQ(h.runs[0].name, "early");
    EXPECT_EQ(h.runs[0].date, "2026-12-05 23:00");
    Report bad = run_on("2026-12-05T23:30:00Z", 1, 1);
    for (const char* date : {"yesterday", "2026-12-05", "2026-13-05T10:00:00Z", "2026-12-05T10:00:00", "12345",
                             "2026-02-31T10:00:00Z", "2026-12-05T10:00:60Z", "2026-12-05T10:00:00+25:00"}) {
        bad.environment.date = date;
        try {
            (void)build_history({{&late, "late"}, {&bad, "bad.json"}}, band(0.05));
            ADD_FAILURE() << date;
        } catch (const InputError& e) {
            EXPECT_EQ(std::string(e.what()), fmt::format("invalid date '{}' in bad.json: expected ISO 8601 in UTC or "
                                                         "with an offset (2026-12-06T01:02:03Z)",
                                                         date));
        }
    }
    // Undated runs come first, said.
    Report undated = run_on("2026-12-05T23:30:00Z", 1, 1);
    undated.environment.date.clear();
    const History u = build_history({{&late, "late"}, {&undated, "old"}}, band(0.05));
    EXPECT_EQ(u.runs[0].name, "old");
    EXPECT_NE(history_lines(u)[0].find("from 2026-12-05 23:30 to 2026-12-05 23:30 UTC (1 undated, put first)"),
              std::string::npos)
        << history_lines(u)[0];
}

// As a gate, only the latest run's machine is judged, on the changes that end in its latest run: a
// case slower long ago does not fail it forever, one no longer measured does, and so does a latest
// run with nothing to compare.
TEST(History, TheGateJudgesTheLatestRun) {
    const Report a = run_on("2026-12-01T10:00:00Z", 1, 1), slow = run_on("2026-12-02T10:00:00Z", 2, 1),
                 same = run_on("2026-12-03T10:00:00Z", 2, 1), gone = run_on("2026-12-04T10:00:00Z", 2, 1, 0);
    const History stale = build_history({{&a, "a"}, {&slow, "b"}, {&same, "c"}}, band(0.05));
    EXPECT_FALSE(stale.gate_failed());
    const History tripped = build_history({{&a, "a"}, {&slow, "b"}}, band(0.05));
    EXPECT_TRUE(tripped.gate_failed());
    EXPECT_EQ(tripped.tripped, std::vector<std::string>{"read.chunk buffer=64K size=1M"});
    EXPECT_NE(history_lines(tripped, true)[2].find("REGRESSION: 1 case(s) slower beyond 5% in b: read.chunk"),
              std::string::npos);
    const History missing = build_history({{&a, "a"}, {&same, "c"}, {&gone, "d"}}, band(0.05));
    EXPECT_TRUE(missing.gate_failed());
    EXPECT_EQ(missing.missing, std::vector<std::string>{"copy.chunk buffer=64K size=1M: measured in c and not in d"});
    Report elsewhere = run_on("2026-12-05T10:00:00Z", 1, 1);
    elsewhere.environment.cpus = 64;
    const History nothing = build_history({{&a, "a"}, {&same, "c"}, {&elsewhere, "e"}}, band(0.05));
    EXPECT_FALSE(nothing.gated);
    EXPECT_TRUE(nothing.gate_failed());
    // A latest run a signal stopped fails it, said.
    Report cut = run_on("2026-12-05T10:00:00Z", 2, 1);
    cut.partial = true;
    const History stopped = build_history({{&a, "a"}, {&same, "c"}, {&cut, "cut"}}, band(0.05));
    EXPECT_TRUE(stopped.gated);
    EXPECT_TRUE(stopped.tripped.empty() && stopped.missing.empty());
    EXPECT_TRUE(stopped.gate_failed());
    const auto said = history_lines(stopped, true);
    EXPECT_NE(std::find(said.begin(), said.end(), "the gate fails: a signal stopped cut"), said.end());
}

// A case measured under other options (cache cold against warm) is another line, which names them.
TEST(History, ACaseUnderOtherOptionsIsAnotherLine) {
    Report warm = run_on("2026-12-01T10:00:00Z", 1, 1), cold = run_on("2026-12-02T10:00:00Z", 3, 3);
    cold.options.cache = CacheMode::cold;
    const History h = build_history({{&warm, "a"}, {&cold, "b"}}, band(0.05));
    EXPECT_EQ(h.lines.size(), 6u);
    for (const HistoryLine& l : h.lines) {
        EXPECT_FALSE(l.last) << l.label;
        EXPECT_NE(l.label.find("(cache "), std::string::npos) << l.label;
    }
}

void write(const std::string& path, const Report& r) { std::ofstream(path) << to_json(r); }

// iolab report --history reads every kept baseline and the files given (one given twice is one
// run), prints the tables or writes the page, and with --fail-if-slower exits 1 on a slower last
// change; what it cannot do is one line and exit 2.
TEST(History, TheCommandReadsTheKeptBaselinesAndTheFilesGiven) {
    ScratchDir dir;
    const auto none = run_cli("report --history", dir.path());
    EXPECT_EQ(none.status, 2);
    EXPECT_EQ(none.err,
              "iolab: no runs to draw: .iolab/baselines holds no baseline ('iolab run ... --save-baseline NAME' keeps "
              "one) and no result file was given\n");
    ASSERT_EQ(::mkdir(dir.file(".iolab").c_str(), 0777), 0);
    ASSERT_EQ(::mkdir(dir.file(".iolab/baselines").c_str(), 0777), 0);
    write(dir.file(".iolab/baselines/monday.json"), run_on("2026-12-01T10:00:00Z", 1, 1));
    write(dir.file(".iolab/baselines/tuesday.json"), run_on("2026-12-02T10:00:00Z", 1, 1));
    write(dir.file("slow.json"), run_on("2026-12-03T10:00:00Z", 1.5, 1));
    const auto kept = run_cli("report --history .iolab/baselines/monday.json", dir.path());
    EXPECT_EQ(kept.status, 0) << kept.err;
    EXPECT_NE(kept.out.find("2 run(s) from 2026-12-01 10:00 to 2026-12-02 10:00 UTC"), std::string::npos) << kept.out;
    EXPECT_NE(kept.out.find("baseline tuesday"), std::string::npos) << kept.out;
    const auto slow = run_cli("report --history slow.json --fail-if-slower 5% --between-runs 0", dir.path());
    EXPECT_EQ(slow.status, 1) << slow.out << slow.err;
    EXPECT_NE(slow.out.find("slower beyond 5%  read.chunk buffer=64K size=1M"), std::string::npos) << slow.out;
    // Without --fail-if-slower the band is 5% and the exit 0.
    const auto ungated = run_cli("report --history slow.json --between-runs 0", dir.path());
    EXPECT_EQ(ungated.status, 0);
    EXPECT_NE(ungated.out.find("1 of 3 case(s) compared changed beyond 5% at their last change"), std::string::npos)
        << ungated.out;
    EXPECT_EQ(ungated.out.find("the gate"), std::string::npos) << ungated.out;
    EXPECT_EQ(run_cli("report --history slow.json --fail-if-slower 60% --between-runs 0", dir.path()).status, 0);
    // A page with the gate: its verdict said where a CI job reads it.
    const auto gated_page =
        run_cli("report --history slow.json --fail-if-slower 5% --between-runs 0 --html g.html", dir.path());
    EXPECT_EQ(gated_page.status, 1);
    EXPECT_EQ(gated_page.out.find("REGRESSION: 1 case(s) slower beyond 5% in slow.json: read.chunk"), 0u)
        << gated_page.out;
    // The same run kept and written by --json: two files of one text, one run.
    write(dir.file("tuesday-again.json"), run_on("2026-12-02T10:00:00Z", 1, 1));
    const auto twice = run_cli("report --history tuesday-again.json", dir.path());
    EXPECT_NE(twice.out.find("2 run(s) from"), std::string::npos) << twice.out;
    const auto page = run_cli("report --history slow.json --html h.html", dir.path());
    ASSERT_EQ(page.status, 0) << page.err;
    const std::string html = slurp(dir.file("h.html"));
    EXPECT_NE(html.find("<title>iolab: the history of 3 run(s), 2026-12-01 to 2026-12-03</title>"), std::string::npos);
    EXPECT_NE(html.find("\"history\":{"), std::string::npos);
    for (const char* bad :
         {"report --history slow.json --html h.html", "report", "report --fail-if-slower 5% slow.json",
          "report --between-runs 5% slow.json", "report --history --fail-if-slower fast",
          "report --history nosuch.json", "report --history --html .iolab/baselines/monday.json --force"}) {
        const auto r = run_cli(bad, dir.path());
        EXPECT_EQ(r.status, 2) << bad << ": " << r.out << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << bad << ": " << r.err;
    }
    EXPECT_EQ(slurp(dir.file(".iolab/baselines/monday.json")).find("<html"), std::string::npos);
}

}  // namespace
}  // namespace iolab
