// The exporters on a fixed result set: byte-for-byte against golden files, and the JSON
// against the documented contract.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "expect.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/report/analysis/compare.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/json.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/report/read/read.hpp"
#include "iolab/report/table.hpp"
#include "iolab/sys/error.hpp"
#include "support.hpp"

namespace iolab {
namespace {

Report fixed_report() {
    Report r;
    r.suite = "golden";
    r.environment.iolab_version = "0.1.0";
    r.environment.commit = "abcdef123456";
    r.environment.compiler = "GNU 12.2.0";
    r.environment.build_type = "Release";
    r.environment.kernel = "6.1.0";
    r.environment.cpu_model = "Test CPU";
    r.environment.cpus = 2;
    r.environment.memory_bytes = 8ull << 30;
    r.environment.scratch_dir = "/tmp/iolab.test";
    r.environment.fs_type = "ext4";
    r.environment.mount_options = "rw,relatime";
    r.environment.device = "/dev/vda";
    r.environment.rotational = 0;
    r.environment.date = "2026-01-01T00:00:00Z";
    r.options.iterations = Amount{6, 0};
    const auto& reg = Registry::builtin();
    const auto add = [&](const char* name, std::uint64_t size, std::vector<double> walls, Status st,
                         std::uint64_t full = 0) {
        CaseResult c;
        c.spec.strategy = reg.find(name);
        c.spec.workload.family = c.spec.strategy->family;
        c.spec.workload.size = size;
        c.spec.workload.buffer = 65536;
        c.spec.full_bytes = full;
        c.status = st;
        c.verified = st == Status::ok;
        c.checked = st == Status::ok ? Checked::content : Checked::none;
        if (st == Status::failed) c.reason = "output differs from the input: checksum 0x1, expected 0x2";
        if (st == Status::skipped) c.reason = "this filesystem cannot share extents";
        for (double w : walls) {
            Sample s;
            s.wall_s = w;
            s.user_s = w / 4;
            s.sys_s = w / 2;
            s.bytes = size;
            s.syscalls = size / 65536 + 1;
            s.all_calls = s.syscalls + 3;
            s.resident = 1.0;
            c.samples.push_back(s);
        }
        finish(c, r.options, 1e-9);
        r.cases.push_back(c);
    };
    // Six samples each: the fewest with a 95 % interval of the median.
    add("read.chunk", 1 << 20, {0.001, 0.00105, 0.00095, 0.00101, 0.00099, 0.001}, Status::ok);
    add("read.mmap-scan", 1 << 20, {0.0005, 0.0005, 0.0005, 0.00051, 0.00049, 0.0005}, Status::ok);
    add("read.byte-syscall", 1 << 16, {0.5, 0.52, 0.48, 0.5, 0.51, 0.49}, Status::ok, 1 << 20);
    add("read.stdio-chunk", 1 << 20, {0.0015, 0.0016, 0.0014, 0.0015, 0.00151, 0.00149}, Status::ok);
    add("copy.chunk", 1 << 20, {0.002, 0.002, 0.002, 0.0021, 0.0019, 0.002}, Status::ok);
    add("copy.sendfile", 1 << 20, {}, Status::failed);
    add("copy.reflink", 1 << 20, {}, Status::skipped);
    {  // a patterned case: every operation's latency, and the rate over the run
        CaseResult c;
        c.spec.strategy = reg.find("read.pread-ops");
        Workload& w = c.spec.workload;
        w.family = Family::read;
        w.size = 1 << 20;
        w.patterned = true;
        w.pattern = parse_pattern("random");
        w.block = 4096;
        c.status = Status::ok;
        c.verified = true;
        c.checked = Checked::content;
        for (int k = 0; k < 6; ++k) {
            Sample s;
            s.wall_s = 0.0006 + (k % 3) * 0.00001;
            s.user_s = s.wall_s / 4;
            s.sys_s = s.wall_s / 2;
            s.bytes = w.bytes();
            s.syscalls = w.op_count();
            s.all_calls = s.syscalls + 2;
            s.resident = 1.0;
            auto l = std::make_shared<Latency>();
            for (std::uint64_t i = 0; i < w.op_count(); ++i)
                l->add(800 + 7 * i + (i == 255 ? 90000 : 0), (i < 128 ? i : 2 * i) * 1'000'000);
            s.latency = std::move(l);
            c.samples.push_back(s);
        }
        finish(c, r.options, 1e-9);
        r.cases.push_back(c);
        r.clock_read_ns = 20;
    }
    Finding f;
    f.suite = "golden";
    f.claim = "mmap-scan beats a chunked read";
    f.source = "a test";
    f.published = 1.53;
    f.faster = Selector{"", {"read.mmap-scan"}, {}, false};
    f.slower = Selector{"", {"read.chunk"}, {}, false};
    f.at_least = 1.5;
    r.findings.push_back(evaluate(f, r.cases));
    r.knees.push_back(find_knee(KneeSpec{"golden", "", "read.chunk", 0.95}, r.cases));
    {  // a tool, timed net of its fixed cost, with the time it reports itself
        CaseResult c;
        c.spec.strategy = reg.find("read.dd");
        c.spec.workload.family = Family::read;
        c.spec.workload.size = 1 << 20;
        c.spec.workload.buffer = 65536;
        c.status = Status::ok;
        c.checked = Checked::byte_count;
        for (int k = 0; k < 6; ++k) {
            Sample s;
            s.wall_s = 0.0031 + k * 0.00001;
            s.fixed_s = 0.002 + (k % 2) * 0.00001;
            s.tool_s = 0.0011;
            s.user_s = s.wall_s / 4;
            s.sys_s = s.wall_s / 2;
            s.bytes = 1 << 20;
            s.resident = 1.0;
            c.samples.push_back(s);
        }
        finish(c, r.options, 1e-9);
        r.cases.push_back(c);
    }
    r.limits.ceilings = {{{LimitKind::memcpy_into_buffer, 1 << 20, 65536}, 20000, "memcpy, best of 9"},
                         {{LimitKind::scan, 1 << 20, 0}, 30000, "a scan, best of 9"},
                         {{LimitKind::memcpy, 1 << 20, 0}, 9000, "memcpy, best of 9"},
                         {{LimitKind::byte_loop, 1 << 16, 0}, 2000, "one byte at a time"}};
    return r;
}

void expect_golden(const std::string& name, const std::string& actual) {
    const std::string path = std::string(IOLAB_SOURCE_DIR) + "/tests/golden/" + name;
    if (std::getenv("IOLAB_UPDATE_GOLDEN")) {
        std::remove(path.c_str());
        write_file_atomically(path, actual, true);
    }
    EXPECT_EQ(actual, test::slurp(path)) << "golden file " << name << " differs (IOLAB_UPDATE_GOLDEN=1 rewrites it)";
}

TEST(Export, JsonMatchesGolden) { expect_golden("report.json", to_json(fixed_report())); }
TEST(Export, CsvMatchesGolden) { expect_golden("report.csv", to_csv(fixed_report())); }
TEST(Export, MarkdownMatchesGolden) { expect_golden("report.md", to_markdown(fixed_report())); }
TEST(Export, TerminalMatchesGolden) { expect_golden("report.txt", render_terminal(fixed_report(), {})); }
TEST(Export, TerminalOf80ColumnsMatchesGolden) {
    expect_golden("report-80.txt", render_terminal(fixed_report(), {false, 80, false}));
}

// The contract of docs/results-format.md, checked on any result document.
void expect_contract(const nlohmann::json& j) {
    ASSERT_EQ(j.at("schema"), "iolab.result/1");
    ASSERT_TRUE(j.at("environment").is_object());
    for (const char* k :
         {"iolab_version", "commit", "compiler", "kernel", "cpu_model", "cpus", "memory_bytes", "filesystem", "date"})
        EXPECT_TRUE(j["environment"].contains(k)) << k;
    ASSERT_TRUE(j.at("cases").is_array());
    for (const auto& c : j["cases"]) {
        for (const char* k : {"strategy", "family", "params", "status", "verified", "verification", "samples", "stats"})
            ASSERT_TRUE(c.contains(k)) << k;
        EXPECT_TRUE(c["params"].is_object());
        const std::string st = c["status"];
        EXPECT_TRUE(st == "ok" || st == "failed" || st == "skipped") << st;
        if (st != "ok") {
            EXPECT_TRUE(c.at("reason").is_string());
        }
        EXPECT_TRUE(c["verified"].is_boolean());
        for (const auto& s : c["samples"])
            for (const char* k : {"wall_s", "user_s", "sys_s", "bytes", "syscalls"}) EXPECT_TRUE(s.contains(k)) << k;
        for (const char* k : {"median_s", "mean_s", "stddev_s", "ci999_low_s", "ci999_high_s", "median_ci_low_s",
                              "median_ci_high_s", "median_ci_confidence", "min_s", "max_s", "throughput_mib_s", "n"})
            EXPECT_TRUE(c["stats"].contains(k)) << k;
        EXPECT_EQ(c["stats"]["n"].get<std::size_t>(), c["samples"].size());
    }
}

TEST(Export, JsonFollowsTheContract) { expect_contract(report_to_json(fixed_report())); }

TEST(Export, AFindingsNoteIsShownUnderTheTableAndInTheJson) {
    Report r = fixed_report();
    r.findings[0].finding.explanation = "measured: one call costs 17 ns here";
    // Shown only where the verdict contradicts the write-up; the JSON keeps it always.
    EXPECT_EQ(render_terminal(r, {}).find("why, "), std::string::npos);  // INCONCLUSIVE
    r.findings[0].verdict = Verdict3::does_not_hold;
    const std::string why = "why, golden: mmap-scan beats a chunked read: measured: one call costs 17 ns here";
    EXPECT_NE(render_terminal(r, {}).find(why + "\n"), std::string::npos);
    EXPECT_NE(to_markdown(r).find(why), std::string::npos);
    EXPECT_EQ(report_to_json(r)["findings"][0]["explanation"], "measured: one call costs 17 ns here");
    EXPECT_EQ(render_terminal(fixed_report(), {}).find("why, "), std::string::npos);  // none without a note
}

TEST(Export, RankingPutsFastestFirstAndNeverRanksFailures) {
    const Report r = fixed_report();
    const auto tables = ranked_tables(r);
    const auto table = [&](Family f) {
        for (const auto& t : tables)
            if (t.table.family == f) return t.cases;
        return std::vector<const CaseResult*>{};
    };
    const auto copies = table(Family::copy);
    ASSERT_EQ(copies.size(), 3u);
    EXPECT_EQ(copies[0]->name(), "copy.chunk");
    EXPECT_NE(copies[1]->status, Status::ok);
    const auto reads = table(Family::read);
    EXPECT_EQ(reads[0]->name(), "read.mmap-scan");
    EXPECT_EQ(reads.back()->name(), "read.byte-syscall");
    EXPECT_TRUE(r.any_failed());
}

// A report with groups, a throttle, memcpy limits and a recorded timeline, beside the fixed one's
// findings and knees: everything a result file keeps.
Report full_report() {
    Report r = fixed_report();
    r.options.throttle = Device{840000, 0.045};
    r.options.warmup = Amount{0, 2};
    r.groups.push_back({"", "", r.options});
    auto t = std::make_shared<Timeline>(2);
    t->add(0, {Timeline::Kind::read, true, 1, 1000, 65536});
    t->add(0, {Timeline::Kind::read, false, 1, 5000, 65536});
    t->add(1, {Timeline::Kind::write, true, 7, 5200, 65536});
    t->add(1, {Timeline::Kind::write, false, 7, 9000, 65536});
    r.cases[3].timeline = t;
    r.peers.command = "pg_test_fsync -s 1 -f pg_test_fsync.out";
    r.peers.runs = 3;
    r.peers.figures = {
        {"pg_test_fsync", "fdatasync", "durable.fdatasync-zeroed", 8192, 7314.188, "", {7314.188, 6900.5, 8243.25}},
        {"pg_test_fsync", "fsync_writethrough", "", 8192, 0, "not available here (n/a)", {}}};
    return r;
}

TEST(Export, AResultFileReadsBackWhole) {
    // Written, read back and written again, a result file says the same: nothing an HTML
    // report made later from it needs is lost (findings, knees, options, limits, timelines, peers,
    // the comparison with a baseline).
    Report r = full_report();
    r.baseline = Comparison{"baseline main",
                            "this run",
                            {{comparison_label(r.cases[0]), 900, 700, 1.286, 1.2, 1.4, 0.0002, Change::slower, true},
                             {"copy.chunk size=64M", 500, 505, 0.99, 0.95, 1.03, 0.4, Change::same, false}},
                            {"read.mmap-scan size=64M"},
                            {"read.byte size=64M"},
                            {"copy.sendfile size=64M: failed in this run (EIO)"},
                            {"copy.reflink size=64M: skipped in this run (no shared extents)"},
                            {"copy.reflink size=64M: skipped in this run (no shared extents)"},
                            1.128,
                            0.05,
                            "",
                            "",
                            "",
                            0.083,
                            "measured by iolab calibrate here",
                            false,
                            "the runs were measured on other machines: cpus 64 against 2"};
    const nlohmann::json first = report_to_json(r);
    const Report back = read_report_json(first.dump(), "r.json");
    EXPECT_EQ(report_to_json(back).dump(2), first.dump(2));
    ASSERT_TRUE(back.cases[3].timeline);
    EXPECT_EQ(back.cases[3].timeline->summary(), r.cases[3].timeline->summary());
    EXPECT_EQ(first["cases"][3]["timeline"]["events"],
              nlohmann::json::parse(R"([[0, "read", 0, 4000, 65536], [1, "write", 4200, 8000, 65536]])"));
    EXPECT_EQ(to_markdown(back), to_markdown(r));
    ASSERT_TRUE(back.baseline);
    EXPECT_EQ(back.baseline->tripped(), 1u);
    EXPECT_EQ(back.baseline->broken.size(), 1u);
    EXPECT_EQ(back.baseline->not_compared.size(), 1u);
    EXPECT_EQ(back.baseline->added, std::vector<std::string>{"read.mmap-scan size=64M"});
    EXPECT_EQ(to_csv(back), to_csv(r));
    EXPECT_NE(to_csv(r).find(",1.286,1.2,1.4,0.0002,slower"), std::string::npos) << to_csv(r);
}

// The largest run the limits allow (kMaxCases cases sharing kMaxRunSamples samples; or the most
// cases of kMaxJobs jobs each that keep an interval), every figure at full precision and the
// timelines over kMaxSavedSpans, written as `--json` writes it: iolab reads it back whole.
void expect_largest_reads_back(unsigned jobs) {
    const Report fixed = full_report();
    std::vector<CaseResult> kinds;  // each kind of case a file holds: plain, patterned, a tool, a timeline
    for (const CaseResult& c : fixed.cases)
        if (c.status == Status::ok) kinds.push_back(c);
    CaseSpec one = kinds.front().spec;
    one.workload.jobs = jobs;
    std::size_t cases = kMaxCases;
    while (samples_per_case({std::vector<CaseSpec>(cases, one)}, 1, 10000) < kMinSamples) --cases;
    ASSERT_EQ(cases, jobs == 1 ? kMaxCases : kMaxRunSamples * 16 / (kMinSamples * (16 + jobs)));
    const std::uint64_t each = samples_per_case({std::vector<CaseSpec>(cases, one)}, 1, 10000);
    Report r = fixed;
    r.cases.clear();
    auto t = std::make_shared<Timeline>(2);
    for (std::uint64_t k = 0; k < 60000; ++k) {
        t->add(k % 2, {Timeline::Kind::read, true, k, 1'000'000'000'000 + 3 * k, 1 << 20});
        t->add(k % 2, {Timeline::Kind::read, false, k, 1'000'000'000'001 + 3 * k, 1 << 20});
    }
    for (std::size_t i = 0; i < cases; ++i) {
        CaseResult c = kinds[i % kinds.size()];
        c.spec.workload.jobs = jobs;
        const std::vector<Sample> from = c.samples;
        c.samples.clear();
        for (std::uint64_t k = 0; k < each; ++k) {
            Sample s = from[k % from.size()];
            s.wall_s *= 1 + 1e-13 * static_cast<double>(k + 1);  // seventeen digits
            s.user_s = s.wall_s / 3;
            s.sys_s = s.wall_s / 7;
            s.minor_faults = s.vol_cs = s.invol_cs = 123456789;
            s.resident = 1 / 3.0;
            if (jobs > 1) s.job_s.assign(jobs, s.wall_s / 1.1);
            c.samples.push_back(s);
        }
        c.timeline = i < 4 ? t : nullptr;  // 60,000 spans each: the first keeps them, the others their count
        r.cases.push_back(std::move(c));
    }
    const std::string text = to_json(r);
    EXPECT_LE(text.size(), kMaxResultFileBytes) << cases << " cases of " << each << " samples";
    const Report back = read_report_json(text, "largest.json");
    ASSERT_EQ(back.cases.size(), cases);
    std::size_t kept = 0, timelines = 0;
    for (const CaseResult& c : back.cases) {
        kept += c.samples.size();
        timelines += c.timeline && !c.timeline->lanes()[0].empty();
    }
    EXPECT_EQ(kept, cases * each);
    EXPECT_EQ(timelines, 1u);
}

TEST(Export, TheLargestRunTheLimitsAllowReadsBack) { expect_largest_reads_back(1); }
TEST(Export, TheLargestRunOfManyJobsTheLimitsAllowReadsBack) { expect_largest_reads_back(kMaxJobs); }

// Every option a group ran with and every parameter of a case, set to something other than its
// default, reads back from a result file as it was written (stonewall, shared_file and timeline
// were lost).
TEST(Export, EveryOptionAndParameterReadsBackAsWritten) {
    Report r = fixed_report();
    RunOptions& o = r.options;
    o.warmup = Amount{3, 0};
    o.iterations = Amount{7, 0};
    o.precision = 0.07;
    o.case_budget_s = 2.5;
    o.min_iterations = 9;
    o.race = false;
    o.time_budget_s = 30;
    o.verify = VerifyMode::full;
    o.order_seed = 42;
    o.cache = CacheMode::cold;
    o.sync = SyncPolicy::fsync;
    o.drop_caches = true;
    o.forks = 2;
    o.throttle = Device{1e6, 0.01};
    o.timeline = true;
    o.stonewall = true;
    o.shared_file = false;  // with stonewall, refused (check_options): its own group below
    o.cache_budget = 64u << 20;
    o.jvm_heap = 256u << 20;
    o.jvm_deadline_s = 45;
    o.margin = 0.05;
    RunOptions shared;
    shared.shared_file = true;
    r.groups = {{"g", "a group", o}, {"s", "a shared file", shared}};
    // A case of some strategy that takes each parameter, with a value that is not its default.
    const std::pair<const char*, const char*> values[] = {{"buffer", "128K"},
                                                          {"record", "8K"},
                                                          {"queue", "16"},
                                                          {"iov", "4"},
                                                          {"producers", "3"},
                                                          {"files", "33"},
                                                          {"file_size", "2K"},
                                                          {"folders", "3"},
                                                          {"chain", "deflate:1>file"},
                                                          {"feed", "byte"},
                                                          {"pattern", "strided:12K"},
                                                          {"block", "8K"},
                                                          {"ops", "100"},
                                                          {"span", "2M"},
                                                          {"seed", "7"},
                                                          {"count", "33"},
                                                          {"size", "3M"},
                                                          {"jobs", "3"},
                                                          {"slice_of", "2M"},
                                                          {"data", "zeros"}};
    std::vector<CaseResult> made;
    for (const auto& [key, value] : values) {
        const Parameter* p = find_parameter(key);
        ASSERT_NE(p, nullptr) << key;
        bool found = false;
        for (const Strategy& st : Registry::builtin().all()) {
            CaseResult c;
            c.spec.strategy = &st;
            c.spec.group = "g";
            c.spec.workload.family = st.family;
            if (std::string_view(key) == "pattern" || std::string_view(key) == "block" ||
                std::string_view(key) == "ops" || std::string_view(key) == "span" || std::string_view(key) == "seed")
                c.spec.workload.patterned = true;
            if (std::string_view(key) == "slice_of") c.spec.full_bytes = 1;  // a byte-at-a-time case's slice
            if (!p->has(c.spec)) continue;
            c.spec.workload.size = 4u << 20;
            p->set(c.spec, value);
            c.status = Status::ok;
            Sample smp;
            smp.wall_s = 0.01;
            smp.bytes = 4u << 20;
            c.samples.assign(3, smp);
            finish(c, o, 1e-9);
            made.push_back(c);
            found = true;
            break;
        }
        EXPECT_TRUE(found) << "no strategy takes " << key;
    }
    r.cases = made;
    const Report back = read_report_json(to_json(r), "r.json");
    const RunOptions& b = back.group("g").options;
    EXPECT_EQ(b.warmup.describe(), o.warmup.describe());
    EXPECT_EQ(b.iterations.describe(), o.iterations.describe());
    EXPECT_EQ(b.precision, o.precision);
    EXPECT_EQ(b.case_budget_s, o.case_budget_s);
    EXPECT_EQ(b.min_iterations, o.min_iterations);
    EXPECT_EQ(b.race, o.race);
    EXPECT_EQ(b.time_budget_s, o.time_budget_s);
    EXPECT_EQ(b.verify, o.verify);
    EXPECT_EQ(b.order_seed, o.order_seed);
    EXPECT_EQ(b.cache, o.cache);
    EXPECT_EQ(b.sync, o.sync);
    EXPECT_EQ(b.drop_caches, o.drop_caches);
    EXPECT_EQ(b.forks, o.forks);
    EXPECT_EQ(b.throttle.bytes_per_s, o.throttle.bytes_per_s);
    EXPECT_EQ(b.throttle.latency_s, o.throttle.latency_s);
    EXPECT_EQ(b.timeline, o.timeline);
    EXPECT_EQ(b.stonewall, o.stonewall);
    EXPECT_TRUE(back.group("s").options.shared_file);
    EXPECT_EQ(b.cache_budget, o.cache_budget);
    EXPECT_EQ(b.jvm_heap, o.jvm_heap);
    EXPECT_EQ(b.jvm_deadline_s, o.jvm_deadline_s);
    EXPECT_EQ(b.margin, o.margin);
    // Every row of the parameter table is covered: a run setting set above to a value that is not
    // its default reads back as its own words, and every case parameter has a value above.
    for (const Parameter& p : parameters()) {
        if (p.run_setting()) {
            // shared_file is set in its own group ("s").
            const bool own = p.key == "shared_file";
            const RunOptions& set = own ? shared : o;
            EXPECT_NE(p.print(set), p.print(RunOptions{})) << p.key << ": set it above to a value not its default";
            EXPECT_EQ(p.print(own ? back.group("s").options : b), p.print(set)) << p.key;
        }
        if (p.case_param()) {
            EXPECT_TRUE(
                std::any_of(std::begin(values), std::end(values), [&](const auto& kv) { return kv.first == p.key; }))
                << p.key << ": give it a value above";
        }
    }
    ASSERT_EQ(back.cases.size(), made.size());
    for (std::size_t i = 0; i < made.size(); ++i)
        for (const Parameter& p : parameters()) {
            if (p.case_param() && p.has(made[i].spec)) {
                EXPECT_EQ(p.get(back.cases[i].spec), p.get(made[i].spec)) << made[i].spec.label() << ": " << p.key;
            }
        }
}

// A parameter is held to its setting's range: a queue of 2^32 - 1 was accepted.
TEST(Export, AParameterOutsideItsSettingsRangeIsRefused) {
    nlohmann::json j = report_to_json(fixed_report());
    for (auto& c : j["cases"])
        if (c["params"].contains("buffer")) {
            c["params"]["queue"] = "4294967295";
            break;
        }
    EXPECT_TRUE(test::result_refused(j.dump(), "params.queue"));
}

TEST(Export, AResultFileWithAWrongFindingOrTimelineIsRefusedWithTheReason) {
    nlohmann::json j = report_to_json(full_report());
    j["findings"][0]["verdict"] = "MAYBE";
    EXPECT_THROW(
        {
            try {
                read_report_json(j.dump(), "r.json");
            } catch (const InputError& e) {
                EXPECT_STREQ(e.what(),
                             "r.json: finding 1: verdict 'MAYBE' is not HOLDS, DOES NOT HOLD or INCONCLUSIVE");
                throw;
            }
        },
        InputError);
    j = report_to_json(full_report());
    j["cases"][3]["timeline"]["events"][0][0] = 5;  // lane 5 of 2
    EXPECT_THROW(read_report_json(j.dump(), "r.json"), InputError);
    j = report_to_json(full_report());
    j["groups"][0]["options"]["cache"] = "lukewarm";
    EXPECT_THROW(read_report_json(j.dump(), "r.json"), InputError);
}

// A patterned case's latency that cannot be: negative or fractional counts, counts that overflow,
// a largest value outside the highest bucket, slices with more operations than the histogram.
TEST(Export, AResultFileWithImpossibleLatencyIsRefused) {
    const nlohmann::json good = report_to_json(fixed_report());
    std::size_t at = 0;
    while (!good["cases"][at].contains("latency")) ++at;
    const auto refused = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& why) {
        nlohmann::json j = good;
        edit(j["cases"][at]["latency"]);
        EXPECT_TRUE(test::result_refused(j.dump(), why));
    };
    refused([](auto& l) { l["max_ns"] = -1; }, "max_ns is not a whole number");
    refused([](auto& l) { l["buckets_upper_ns_count"][0][1] = -5; }, "count is not a whole number");
    refused([](auto& l) { l["buckets_upper_ns_count"][0][1] = 1e300; }, "count is not a whole number");
    refused([](auto& l) { l["buckets_upper_ns_count"][0].push_back(7); }, "a bucket is not");
    refused(
        [](auto& l) { l["buckets_upper_ns_count"] = nlohmann::json::parse("[[500, 18446744073709551615], [600, 1]]"); },
        "overflow");
    refused([](auto& l) { l["max_ns"] = 1; }, "max_ns is not in the highest bucket");
    refused([](auto& l) { l["ops_per_slice"][0] = 1u << 30; }, "more operations than the histogram");
    EXPECT_NO_THROW(read_report_json(good.dump(), "r.json"));
}

TEST(Export, AResultFileWithImpossibleFiguresIsRefused) {
    const auto refused = [](const std::function<void(nlohmann::json&)>& spoil, const std::string& why) {
        nlohmann::json j = report_to_json(full_report());
        spoil(j);
        EXPECT_TRUE(test::result_refused(j.dump(), why));
    };
    refused([](auto& j) { j["findings"][0]["measured_ratio"] = 5e-324; }, "measured_ratio is not a ratio");
    refused([](auto& j) { j["findings"][0]["published_ratio"] = -2; }, "published_ratio is not a ratio");
    refused([](auto& j) { j["findings"][0]["ratio_interval"] = {10, 1}; }, "ratio_interval ends before it begins");
    refused([](auto& j) { j["environment"]["cpus"] = -1; }, "environment.cpus is not a whole number");
    refused([](auto& j) { j["cases"][0]["samples"][0]["wall_s"] = 5e-324; }, "at least 1 ns");
    refused([](auto& j) { j["cases"][3]["timeline"]["lanes"] = 1.5; }, "lanes is not a whole number");
    // Sample numbers: a negative or huge byte count (which wrapped, or was an undefined cast),
    // an absurd time (which printed a 300-digit median), a count that is not whole.
    refused([](auto& j) { j["cases"][0]["samples"][0]["bytes"] = -5; }, "bytes is not a whole number from 0 to");
    refused([](auto& j) { j["cases"][0]["samples"][0]["bytes"] = 1e300; }, "bytes is not a whole number");
    refused([](auto& j) { j["cases"][0]["samples"][0]["bytes"] = (1ull << 53) + 1; }, "bytes is not a whole number");
    refused([](auto& j) { j["cases"][0]["samples"][0]["wall_s"] = 1e308; }, "wall_s is not a time from 0 to 1e6 s");
    refused([](auto& j) { j["cases"][0]["samples"][0]["user_s"] = -1; }, "user_s is not a time");
    refused([](auto& j) { j["cases"][0]["samples"][0]["syscalls"] = 2.5; }, "syscalls is not a whole number");
    refused([](auto& j) { j["cases"][0]["samples"][0]["job_s"] = {1e7}; }, "job_s is not a time");
    refused([](auto& j) { j["cases"][0]["samples"][0]["resident"] = 3; }, "resident is not a fraction");
    refused([](auto& j) { j["cases"][0]["samples"][0] = 7; }, "a sample is malformed");
    // A word for a flag ("yes" was read as not partial), and a file without its options.
    refused([](auto& j) { j["partial"] = "yes"; }, "partial is \"yes\", not true or false");
    refused([](auto& j) { j["groups"][0]["partial"] = 1; }, "a group's partial is 1, not true or false");
    refused([](auto& j) { j.erase("options"); }, "it has no options object");
    nlohmann::json j = report_to_json(full_report());
    j["cases"][0]["samples"][0]["bytes"] = 1ull << 53;
    EXPECT_NO_THROW(read_report_json(j.dump(), "r.json"));
}

// A key twice in one object was last-wins: now the file is refused, naming the key.
TEST(Export, AResultFileWithAKeyTwiceIsRefusedNamingIt) {
    const std::string text = report_to_json(full_report()).dump();
    const auto refused = [](const std::string& t, const std::string& why) {
        EXPECT_TRUE(test::result_refused(t, why));
    };
    refused("{\"suite\":\"x\"," + text.substr(1), "r.json: the key 'suite' is there twice in one object");
    std::string in_sample = text;
    const auto at = in_sample.find("\"wall_s\":");
    ASSERT_NE(at, std::string::npos);
    in_sample.insert(at, "\"wall_s\":1,");
    refused(in_sample, "the key 'wall_s' is there twice");
    EXPECT_NO_THROW(read_report_json(text, "r.json"));
}

// C1 controls (U+009B is a CSI of its own) and the bidirectional overrides and isolates reach
// neither a terminal nor a Markdown file, from a result file or from anywhere else.
TEST(Export, C1AndBidiControlsAreShownEscaped) {
    const std::string csi = "\xc2\x9b", osc = "\xc2\x9d", rlo = "\xe2\x80\xae", lri = "\xe2\x81\xa6";
    nlohmann::json j = report_to_json(fixed_report());
    j["suite"] = "s" + csi + "2J" + rlo;
    j["cases"][0]["group"] = "g" + osc + "0;x" + lri;
    j["cases"][5]["reason"] = "r" + rlo + "evil";
    const Report from_file = read_report_json(j.dump(), "r.json");
    const Report made = [&] {
        Report m = fixed_report();
        m.cases[5].reason = "m" + csi + "31m\x9b" + lri;  // a raw 0x9b, as a tool may print it
        return m;
    }();
    for (const Report* r : {&from_file, &made}) {
        for (const std::string& out : {render_terminal(*r, {}), to_markdown(*r)}) {
            for (const std::string& control : {csi, osc, rlo, lri, std::string("\x9b")})
                EXPECT_EQ(out.find(control), std::string::npos) << out;
        }
    }
    const std::string shown = render_terminal(from_file, {});
    EXPECT_NE(shown.find("r\\u202eevil"), std::string::npos) << shown;
    EXPECT_NE(to_markdown(made).find("m\\u009b31m\\x9b\\u2066"), std::string::npos) << to_markdown(made);
    EXPECT_EQ(one_line("caf\xc3\xa9 \xe2\x80\x94 ok"), "caf\xc3\xa9 \xe2\x80\x94 ok");  // other text is kept
    EXPECT_EQ(one_line("a\xe2\x80\x8f"
                       "b\xe2\x80\xa8"
                       "c"),
              "a\\u200fb\\u2028c");  // a bidi mark, a line separator
    // A tag in a name is text in Markdown, not markup.
    Report tagged = fixed_report();
    tagged.cases[5].reason = "<b>bold</b>";
    EXPECT_NE(to_markdown(tagged).find("&lt;b>bold&lt;/b>"), std::string::npos) << to_markdown(tagged);
}

TEST(Export, ACaseOfAGroupTheFileDoesNotListIsStillShown) {
    nlohmann::json j = report_to_json(fixed_report());
    j["cases"][0]["group"] = "elsewhere";
    j["suite"] = "a\x1b[2Jb";
    j["cases"][5]["reason"] = "x\x1b[31my\nz";
    const Report r = read_report_json(j.dump(), "r.json");
    const std::string out = render_terminal(r, {});
    EXPECT_NE(out.find("elsewhere: read"), std::string::npos) << out;
    EXPECT_NE(out.find("read.chunk"), std::string::npos) << out;
    // Control characters from a file are shown escaped, never sent to the terminal.
    EXPECT_EQ(out.find('\x1b'), std::string::npos);
    EXPECT_NE(out.find("x\\x1b[31my\\nz"), std::string::npos) << out;
}

TEST(Html, IsOnePageThatFetchesNothing) {
    const std::string html = to_html(full_report());
    // Chart.js is inlined (with its licence header), and the policy forbids every fetch.
    EXPECT_NE(html.find("Chart.js v"), std::string::npos);
    EXPECT_NE(html.find("Released under the MIT License"), std::string::npos);
    EXPECT_NE(html.find("content=\"default-src 'none';"), std::string::npos);
    for (const char* fetch : {" src=", "<link", " href=", "@import", "url("})
        EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;
    // The run is there as data for the charts: cases, samples, the finding, the timeline.
    EXPECT_NE(html.find(R"("label":"read.chunk buffer=64K")"), std::string::npos);
    EXPECT_NE(html.find(R"("claim":"golden: mmap-scan beats a chunked read")"), std::string::npos);
    EXPECT_NE(html.find(R"("events":[[0,"read",0.0,0.004,65536],[1,"write",0.0042,0.008,65536]])"), std::string::npos);
}

TEST(Html, TextFromARunCannotEndItsScript) {
    Report r = full_report();
    const std::string evil = "</script><script>alert(1)</script><!--";
    r.suite = evil;
    r.groups[0].title = evil;
    r.cases[5].reason = evil;
    r.findings[0].finding.claim = evil;
    const std::string html = to_html(r);
    EXPECT_EQ(html.find(evil), std::string::npos);
    // Three script elements (the data, Chart.js, the page's own) and three ends, no more.
    std::size_t ends = 0;
    for (std::size_t at = html.find("</script"); at != std::string::npos; at = html.find("</script", at + 1)) ++ends;
    EXPECT_EQ(ends, 3u);
    EXPECT_NE(html.find("<title>iolab: &lt;/script&gt;"), std::string::npos);
}

// A header names up to three sizes; more are a range (each table names its own); the page's title is
// the run's kind and the date it was measured.
TEST(Export, AHeaderNamesAFewSizesAndARangeOfMore) {
    Report r = fixed_report();
    const auto sized = [&](std::size_t n) {
        Report copy = r;
        copy.cases.resize(n, r.cases.front());
        for (std::size_t i = 0; i < n; ++i) {
            copy.cases[i].spec.workload.size = std::uint64_t{1024} << (2 * i);
            copy.cases[i].spec.full_bytes = 0;
        }
        return copy.header().substr(0, copy.header().find(" of random"));
    };
    EXPECT_EQ(sized(3), "iolab golden: 1 KiB, 4 KiB, 16 KiB");
    EXPECT_EQ(sized(5), "iolab golden: 5 sizes from 1 KiB to 256 KiB");
    r.environment.date = "2026-12-06T01:02:03Z";
    EXPECT_NE(to_html(r).find("<title>iolab: golden, 2026-12-06 01:02 UTC</title>"), std::string::npos);
}

// The page's script only draws: what each cell sorts by and each violin's outline come in the
// model, made here from the figures.
TEST(Html, TheModelSaysWhatEachCellSortsByAndDrawsEachViolin) {
    Report r = fixed_report();
    CaseResult& many = r.cases[0];  // read.chunk: twelve samples, a violin
    for (int k = 0; k < 6; ++k) many.samples.push_back(many.samples[static_cast<std::size_t>(k)]);
    finish(many, r.options, 1e-9);
    const std::string html = to_html(r);
    const std::string open = R"(<script type="application/json" id="iolab-data">)";
    const auto start = html.find(open) + open.size();
    const nlohmann::json model = nlohmann::json::parse(html.substr(start, html.find("</script>", start) - start));
    std::size_t times = 0, cells = 0;
    for (const auto& block : model["runs"][0]["blocks"]) {
        if (!block.contains("table")) continue;
        for (const auto& row : block["table"]["rows"]) {
            ASSERT_EQ(row["keys"].size(), row["cells"].size()) << row.dump();
            for (std::size_t i = 0; i < row["cells"].size(); ++i) {
                const std::string cell = row["cells"][i];
                const nlohmann::json& key = row["keys"][i];
                ++cells;
                std::string_view figure = cell;
                for (std::string_view mark : {"~", "±"})
                    if (figure.starts_with(mark)) figure.remove_prefix(mark.size());
                double shown = 0;
                int used = 0;
                if (std::sscanf(std::string(figure).c_str(), "%lf%n", &shown, &used) != 1 ||
                    !std::isdigit(static_cast<unsigned char>(figure[figure.starts_with('-')]))) {
                    EXPECT_TRUE(key.is_null()) << cell;
                    continue;
                }
                ASSERT_TRUE(key.is_number()) << cell;
                const std::string_view unit = figure.substr(static_cast<std::size_t>(used));
                const double scale = unit.starts_with(" GiB/s") ? 1024
                                     : unit.starts_with(" ms")  ? 1e-3
                                     : unit.starts_with(" us")  ? 1e-6
                                     : unit.starts_with(" ns")  ? 1e-9
                                                                : 1;
                EXPECT_DOUBLE_EQ(key.get<double>(), shown * scale) << cell;
                times += scale < 1;
            }
        }
    }
    EXPECT_GT(cells, 20u);
    EXPECT_GT(times, 0u);
    std::size_t violins = 0;
    for (const auto& block : model["runs"][0]["blocks"])
        for (const auto& c : block.value("cases", nlohmann::json::array())) {
            const auto n = c.value("samples", nlohmann::json::array()).size();
            EXPECT_EQ(c.contains("violin"), n >= model["violin_min"].get<std::size_t>()) << c.dump();
            if (!c.contains("violin")) continue;
            ++violins;
            double top = 0, lo = 1e300, hi = 0;
            for (const auto& p : c["violin"]) {
                top = std::max(top, p["d"].get<double>());
                lo = std::min(lo, p["x"].get<double>());
                hi = std::max(hi, p["x"].get<double>());
            }
            EXPECT_EQ(c["violin"].size(), 49u);
            EXPECT_DOUBLE_EQ(top, 0.42);  // its peak, the half-width of a row
            std::vector<double> xs = c["samples"];
            EXPECT_DOUBLE_EQ(lo, *std::min_element(xs.begin(), xs.end()));  // cut at the samples
            EXPECT_DOUBLE_EQ(hi, *std::max_element(xs.begin(), xs.end()));
        }
    EXPECT_EQ(violins, 1u);
}

TEST(Html, SeveralRunsAreDrawnSideBySideOnTheCasesTheyShare) {
    Report a = fixed_report(), b = fixed_report();
    b.cases.erase(b.cases.begin());  // read.chunk only in a
    const std::string html = to_html({&a, &b}, {"before.json", "after.json"});
    const auto start = html.find(R"("comparison":{"labels":[)");
    ASSERT_NE(start, std::string::npos);
    const std::string cmp = html.substr(start, html.find("]", start) - start);
    EXPECT_EQ(cmp.find("read.chunk buffer"), std::string::npos) << cmp;
    EXPECT_NE(cmp.find("read.mmap-scan"), std::string::npos) << cmp;
    EXPECT_EQ(to_html(a).find(R"("comparison":{)"), std::string::npos);
}

TEST(OutputFile, NeverOverwritesWithoutForceAndReplacesWithIt) {
    ScratchDir dir;
    const std::string path = dir.file("result.json");
    write_file_atomically(path, "first", false);
    EXPECT_THROW(write_file_atomically(path, "second", false), IoError);
    EXPECT_EQ(test::slurp(path), "first");
    EXPECT_THROW(check_output_path(path, false, "--json"), std::invalid_argument);
    EXPECT_NO_THROW(check_output_path(path, true, "--json"));
    write_file_atomically(path, "third", true);
    EXPECT_EQ(test::slurp(path), "third");
    EXPECT_THROW(check_output_path(dir.file("missing/r.json"), true, "--json"), std::invalid_argument);
    // No temporary files are left behind (beside the result, only the folder's own lock).
    int entries = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        entries += !ScratchDir::bookkeeping(e.path().filename().string());
    EXPECT_EQ(entries, 1);
}

}  // namespace
}  // namespace iolab

namespace iolab {
namespace {

using test::timed_case;

// A change is shown only where the ratio's whole interval (widened by the between-run margin, none
// here) excludes 1; the U test's p is shown beside it.
TEST(Compare, SignificantChangesOnlyWithIntervalPValueAndGeometricMean) {
    Report before, after;
    const std::vector<double> base = {1.00, 1.01, 0.99, 1.02, 0.98, 1.005, 1.015, 0.995};  // no ties
    before.cases = {timed_case("read.chunk", base), timed_case("copy.chunk", base),
                    timed_case("read.mmap-scan", {1, 1, 1})};
    std::vector<double> slower;
    for (double w : base) slower.push_back(2 * w);
    after.cases = {timed_case("read.chunk", base), timed_case("copy.chunk", slower),
                   timed_case("read.mmap-scan", {3, 3, 3})};
    const std::string out = render_comparison(before, after, false);
    std::istringstream lines(out);
    std::string verdicts, header, unchanged, doubled, few;
    std::getline(lines, verdicts);
    EXPECT_EQ(verdicts, "3 case(s) compared: 2 slower, 1 the same, 0 faster") << out;
    std::getline(lines, header);
    std::getline(lines, unchanged);
    std::getline(lines, doubled);
    std::getline(lines, few);
    EXPECT_NE(header.find("99% interval"), std::string::npos) << out;
    EXPECT_NE(header.find("p (U test)"), std::string::npos) << out;
    EXPECT_TRUE(unchanged.starts_with("read.chunk")) << out;
    EXPECT_TRUE(unchanged.ends_with("~")) << out;
    EXPECT_TRUE(doubled.starts_with("copy.chunk")) << out;
    EXPECT_NE(doubled.find("2.000"), std::string::npos) << out;
    EXPECT_TRUE(doubled.ends_with("slower")) << out;
    // 8 against 8, every after above every before: exact p = 2 / C(16, 8).
    EXPECT_NE(doubled.find("0.000155"), std::string::npos) << out;
    // Three samples a side: the envelope (2.5x for three), with the default 10 % between runs: 3x
    // apart is still slower.
    EXPECT_TRUE(few.starts_with("read.mmap-scan")) << out;
    EXPECT_TRUE(few.ends_with("slower")) << out;
    // Geometric mean of 1.0, 2.0 and 3.0.
    EXPECT_NE(out.find("geometric mean of the time ratios over 3 case(s): 1.817"), std::string::npos) << out;
    EXPECT_NE(out.find("2 change(s) whose whole interval excludes 1"), std::string::npos) << out;
}

// A cold case whose input stayed cached is shown, but not ranked.
TEST(Export, UnprovenColdCaseIsNotRanked) {
    Report r;
    r.options.cache = CacheMode::cold;
    r.groups.push_back(ReportGroup{"", "", r.options});
    for (double resident : {0.0, 0.9}) {
        CaseResult c = timed_case(resident > 0 ? "read.pread-chunk" : "read.chunk", {1, 1, 1, 1, 1, 1});
        for (auto& s : c.samples) s.resident = resident;
        finish(c, r.options, 1e-9);
        r.cases.push_back(c);
    }
    EXPECT_FALSE(r.cases[0].cold_unproven);
    EXPECT_TRUE(r.cases[1].cold_unproven);
    const std::string out = render_terminal(r, {false, 0, true});
    EXPECT_NE(out.find("1  read.chunk"), std::string::npos) << out;
    EXPECT_NE(out.find("-  read.pread-chunk"), std::string::npos) << out;
    EXPECT_NE(out.find("not ranked: not proven cold (90% of the input cached, median)"), std::string::npos) << out;
    const auto j = report_to_json(r);
    EXPECT_TRUE(j["cases"][1]["cold_unproven"].get<bool>());
}

// Under --cache cold, the tables of the kinds that read an input they evict say how much of it stayed
// cached; the kinds that read nothing (records and trees written, trees removed) have no such column.
TEST(Export, OnlyTheKindsThatReadAnInputShowACachedColumn) {
    Report r;
    r.options.cache = CacheMode::cold;
    r.groups.push_back(ReportGroup{"", "", r.options});
    for (const char* name : {"read.chunk", "copy.chunk", "files.read-openat", "files.copy-std-filesystem",
                             "files.write-ofstream", "files.remove-std-filesystem", "write.record-stdio"})
        r.cases.push_back(timed_case(name, {1, 1, 1}));
    std::map<std::string, bool> cached;
    for (const auto& t : ranked_tables(r)) {
        const bool has = std::any_of(t.table.columns.begin(), t.table.columns.end(),
                                     [](const Column& c) { return c.name == "cached"; });
        cached[std::string(to_string(t.table.family))] = has;
    }
    EXPECT_EQ(cached, (std::map<std::string, bool>{{"read", true},
                                                   {"copy", true},
                                                   {"files-read", true},
                                                   {"files-copy", true},
                                                   {"files-write", false},
                                                   {"files-remove", false},
                                                   {"write", false}}));
}

// A table of items counts every call per item: a tree's opens, stats and closes as much as its reads
// (data calls per MiB said 0.0 for files.read-mmap, whose reads are page faults).
TEST(Export, ATableOfFilesCountsEveryCallPerFile) {
    Report r;
    r.groups.push_back(ReportGroup{"", "", r.options});
    CaseResult c = timed_case("files.read-openat", {1, 1, 1});
    c.spec.workload.tree_of().files = 256;
    c.spec.workload.tree_of().file_size = 4096;
    for (auto& s : c.samples) {
        s.syscalls = 256;   // a read a file
        s.all_calls = 768;  // and its open and close
    }
    finish(c, r.options, 1e-9);
    r.cases.push_back(c);
    const auto tables = ranked_tables(r);
    ASSERT_EQ(tables.size(), 1u);
    const Table& t = tables[0].table;
    const auto col =
        std::find_if(t.columns.begin(), t.columns.end(), [](const Column& k) { return k.name.starts_with("calls/"); });
    ASSERT_NE(col, t.columns.end());
    EXPECT_EQ(col->name, "calls/file");
    const auto at = static_cast<std::size_t>(col - t.columns.begin());
    ASSERT_GT(t.rows.at(0).cells.size(), at);
    EXPECT_EQ(t.rows[0].cells[at], "3.0");
    EXPECT_DOUBLE_EQ(calls_per_item(c), 3.0);
    EXPECT_DOUBLE_EQ(calls_per_mib(c), 256.0);
}

// The time a run took laying out its inputs is outside its budget, and the header says how long it
// was beside the time it took; a result file keeps it.
TEST(Export, TheSetupTimeIsSaidBesideTheBudget) {
    Report r;
    r.groups.push_back(ReportGroup{"", "", r.options});
    r.cases.push_back(timed_case("read.chunk", {1, 1, 1}));
    r.time_budget_s = 60;
    r.elapsed_s = 75.4;
    r.setup_s = 15.2;
    EXPECT_NE(to_markdown(r).find("time: 75 s of a budget of 60 s, of it 15 s setting up (the inputs, the warm-ups, "
                                  "each run's own), outside the "
                                  "budget"),
              std::string::npos)
        << to_markdown(r);
    r.peers.runs = 3;
    r.peers.between = 2;
    r.peers.seconds = 48.6;
    r.peers.figures = {{"pg_test_fsync", "fsync", "", 8192, 100, "", {100, 90, 110}}};
    EXPECT_NE(to_markdown(r).find("of it 15 s setting up (the inputs, the warm-ups, each run's own), and 49 s running "
                                  "pg_test_fsync, outside the "
                                  "budget"),
              std::string::npos)
        << to_markdown(r);
    const Report back = read_report_json(to_json(r), "r.json");
    EXPECT_DOUBLE_EQ(back.setup_s, 15.2);
    EXPECT_DOUBLE_EQ(back.peers.seconds, 48.6);
    EXPECT_EQ(back.peers.between, 2u);
    r.peers = Peers{};
    r.setup_s = 0;
    EXPECT_NE(to_markdown(r).find("time: 75 s of a budget of 60 s\n"), std::string::npos) << to_markdown(r);
}

}  // namespace
}  // namespace iolab
