// The parameter table (harness/params.hpp) read the same way everywhere: the command line, suite
// files and result files take the same keys with the same ranges.
#include <atomic>
#include <charconv>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "expect.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/report/json.hpp"
#include "iolab/report/read/read.hpp"
#include "iolab/suite/suite.hpp"
#include "support.hpp"

namespace iolab {
namespace {

// Values of every shape a setting takes, in and out of their ranges.
const std::vector<std::string> kProbes = {
    "byte", "0",     "1",    "7",    "16",   "4096",       "4097",           "64K",    "1G",
    "2G",   "1P",    "-1",   "abc",  "1.5s", "90s",        "86401s",         "3%",     "0.5",
    "auto", "zeros", "full", "cold", "none", "strided:4K", "deflate:6>file", "1MiB/s", "18446744073709551616"};

// A strategy that takes the parameter, for a case that has it.
const Strategy& taker(const Parameter& p) {
    for (const Strategy& s : Registry::builtin().all())
        if (p.taken_by(s) && !s.byte_at_a_time()) return s;
    throw std::logic_error("no strategy takes " + std::string(p.key));
}

bool refused_by_parser(const std::string& error, const Parameter& p, Syntax syntax) {
    return error.find(fmt::format("invalid {} '", setting_name(p.key, syntax))) != std::string::npos;
}

// An unknown strategy stops the run after the settings are read: nothing is measured.
std::string cli_probe(const Parameter& p, const std::string& value) {
    return fmt::format("run -s no.such '--{}={}'", setting_name(p.key, Syntax::command_line).substr(2), value);
}

bool cli_refuses(const Parameter& p, const std::string& value, const test::CliResult& r) {
    EXPECT_EQ(r.status, 2) << p.key << " " << value;
    return refused_by_parser(r.err, p, Syntax::command_line);
}

bool cli_refuses(const Parameter& p, const std::string& value) {
    return cli_refuses(p, value, test::run_cli(cli_probe(p, value)));
}

// The command line's answer to each of `args`, four processes at a time: each is a whole start of
// iolab, over half a second under the sanitizers, and a thousand of them one by one neared the
// test's time limit.
std::vector<test::CliResult> run_all(const std::vector<std::string>& args) {
    std::vector<test::CliResult> out(args.size());
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < 4; ++t)
        pool.emplace_back([&] {
            for (std::size_t i; (i = next++) < args.size();) out[i] = test::run_cli(args[i]);
        });
    for (auto& t : pool) t.join();
    return out;
}

bool suite_refuses(const Parameter& p, const std::string& value) {
    const std::string toml = fmt::format(
        "name = \"t\"\ndescription = \"d\"\n[defaults]\n{} = \"{}\"\n[[group]]\nid = \"g\"\ntitle = \"g\"\n"
        "strategies = [\"{}\"]\n",
        p.key, value, taker(p).name);
    try {
        parse_suite(toml, "t.toml");
        return false;
    } catch (const InputError& e) {
        return refused_by_parser(e.what(), p, Syntax::suite);
    }
}

// A result file with one case of a strategy that takes the parameter.
nlohmann::json result_file(const Parameter& p) {
    Report r;
    r.suite = "t";
    CaseResult c;
    c.spec.strategy = &taker(p);
    c.spec.workload.family = c.spec.strategy->family;
    c.spec.workload.patterned = c.spec.strategy->honours(kParamPattern);
    c.status = Status::ok;
    Sample smp;
    smp.wall_s = 0.01;
    smp.bytes = c.spec.workload.bytes();
    c.samples.assign(3, smp);
    finish(c, r.options, 1e-9);
    r.cases = {c};
    return report_to_json(r);
}

// As a result file writes the value: a case's parameter is text; a run setting's number or
// time a number, and its other values text.
nlohmann::json as_kept(const Parameter& p, const std::string& value) {
    std::string_view number = value;
    if (p.json == JsonForm::seconds && number.ends_with("s")) number.remove_suffix(1);
    double d = 0;
    const bool numeric =
        std::from_chars(number.data(), number.data() + number.size(), d).ptr == number.data() + number.size();
    if ((p.json == JsonForm::number && numeric && number == value) ||
        (p.json == JsonForm::seconds && numeric && number != value))
        return nlohmann::json::parse(std::string(number));
    return value;
}

bool result_refuses(const Parameter& p, const std::string& value) {
    nlohmann::json j = result_file(p);
    if (p.case_param())
        j["cases"][0]["params"][std::string(p.key)] = value;
    else
        j["options"][std::string(p.json_name())] = as_kept(p, value);
    try {
        read_report_json(j.dump(), "r.json");
        return false;
    } catch (const InputError& e) {
        return refused_by_parser(e.what(), p, Syntax::suite);
    }
}

// The settings result files keep, as a case's parameter or a run setting (byte_slice is kept as
// each case's slice_of; a device as two figures; a switch: below), one test each: each is some
// thirty starts of iolab, and all of them in one test neared its time limit under the sanitizers.
std::vector<std::string> kept_settings() {
    std::vector<std::string> keys;
    for (const Parameter& p : parameters())
        if (p.setting() && p.kind != Parameter::Kind::flag && p.json != JsonForm::device) keys.emplace_back(p.key);
    return keys;
}

class EverySetting : public testing::TestWithParam<std::string> {};

TEST_P(EverySetting, TheCommandLineSuiteFilesAndResultFilesTakeTheSameKeysAndRanges) {
    const Parameter& p = *find_parameter(GetParam());
    if (!p.case_param() && !p.run_setting()) {
        EXPECT_EQ(p.key, "byte_slice") << "a setting that result files do not keep";
        return;
    }
    int refused = 0, taken = 0;
    std::vector<std::string> probes;
    for (const std::string& v : kProbes) probes.push_back(cli_probe(p, v));
    const std::vector<test::CliResult> answers = run_all(probes);
    for (std::size_t k = 0; k < kProbes.size(); ++k) {
        const std::string& v = kProbes[k];
        const bool cli = cli_refuses(p, v, answers[k]);
        EXPECT_EQ(suite_refuses(p, v), cli) << p.key << " = " << v;
        EXPECT_EQ(result_refuses(p, v), cli) << p.key << " = " << v;
        (cli ? refused : taken) += 1;
    }
    // Each setting meets values of both kinds: the comparisons above compare something.
    EXPECT_GT(refused, 0) << p.key;
    EXPECT_GT(taken, 0) << p.key;
}

INSTANTIATE_TEST_SUITE_P(Parameters, EverySetting, testing::ValuesIn(kept_settings()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

// A switch or a simulated device goes through the three the same way.
TEST(Parameters, SwitchesAndADeviceReadBackFromEveryPlace) {
    for (const Parameter& p : parameters()) {
        if (p.kind != Parameter::Kind::flag && p.json != JsonForm::device) continue;
        const std::string value = p.kind == Parameter::Kind::flag ? "true" : "1MiB/s+45ms";
        PlanRequest plan;
        RunOptions set;
        apply_setting(p, value, Syntax::suite, plan, set);
        EXPECT_NE(p.print(set), p.print(RunOptions{})) << p.key;
        // With what it needs: a result file of options no run could have is refused (check_options).
        if (p.key == "drop_caches") set.cache = CacheMode::cold;
        nlohmann::json j = result_file(p);
        j["options"] = options_json(set);
        EXPECT_EQ(p.print(read_report_json(j.dump(), "r.json").options), p.print(set)) << p.key;
        EXPECT_FALSE(cli_refuses(p, value)) << p.key;
    }
}

// A case has one value of each parameter: a list in a result file is refused.
TEST(Parameters, AResultFileCaseWithAListForAParameterIsRefused) {
    const Parameter& queue = *find_parameter("queue");
    EXPECT_FALSE(result_refuses(queue, "4"));
    nlohmann::json j = result_file(queue);
    j["cases"][0]["params"]["queue"] = "4,8";
    EXPECT_TRUE(test::result_refused(j.dump(), "invalid queue '4,8': expected one value"));
}

// A strategy given an option it does not take says so, naming those that do.
TEST(Parameters, AnOptionNoChosenStrategyTakesIsRefused) {
    EXPECT_TRUE(
        test::cli_refused("run -s read.chunk --size 1M --block 64K", "--block is taken only by read.pread-ops"));
    EXPECT_TRUE(test::cli_refused("run -s write.chain --size 1M --queue 4 --iterations 1 --warmup 0",
                                  "--queue is taken only by"));
    // One of the chosen takes it: the others run without it.
    const auto r = test::run_cli("run -s read.chunk,read.pread-ops --size 1M --block 64K --smoke");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("block=64K"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace iolab

namespace iolab {
namespace {

std::string suite_error(const std::string& toml) {
    try {
        parse_suite(toml, "t.toml");
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

// A suite's group given a setting none of its strategies takes says so; a default is held to all
// the groups' strategies together.
TEST(Parameters, ASuiteSettingNoStrategyOfItsGroupTakesIsRefused) {
    const std::string head = "name = \"t\"\ndescription = \"d\"\n";
    EXPECT_NE(suite_error(head + "[[group]]\nid = \"g\"\nstrategies = [\"read.chunk\"]\nblock = \"8K\"\n")
                  .find("group 'g': block is taken only by read.pread-ops"),
              std::string::npos);
    const std::string two =
        "[[group]]\nid = \"a\"\nstrategies = [\"read.chunk\"]\n"
        "[[group]]\nid = \"b\"\nstrategies = [\"read.pread-ops\"]\n";
    EXPECT_EQ(suite_error(head + "[defaults]\nblock = \"8K\"\nbuffer = \"4K\"\n" + two), "");
    EXPECT_NE(suite_error(head + "[defaults]\nqueue = \"4\"\n" + two).find("[defaults]: queue is taken only by"),
              std::string::npos);
}

// A result file's case with a parameter its strategy does not take is refused, naming both.
TEST(Parameters, AResultFileParameterTheStrategyDoesNotTakeIsRefused) {
    nlohmann::json j = result_file(*find_parameter("buffer"));
    j["cases"][0]["params"]["seed"] = "5";
    try {
        read_report_json(j.dump(), "r.json");
        ADD_FAILURE() << "taken";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("params.seed: " + std::string(taker(*find_parameter("buffer")).name) +
                                             " does not take seed"),
                  std::string::npos)
            << e.what();
    }
}

// Lists whose product is beyond the limit of cases are refused before any case is made (a
// hundred million cases would take gigabytes).
TEST(Parameters, TooManyCasesAreRefusedBeforeTheyAreMade) {
    PlanRequest req;
    req.strategies = {"read.readv"};
    req.sizes = {1ull << 30};
    req.buffers.clear();
    for (std::size_t b = 1; b <= 100000; ++b) req.buffers.push_back(b);
    req.iovs.clear();
    for (unsigned v = 1; v <= 1024; ++v) req.iovs.push_back(v);
    try {
        build_plan(req);
        ADD_FAILURE() << "made";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(fmt::format("more than {} cases", kMaxCases)), std::string::npos)
            << e.what();
    }
}

// A run keeps at most kMaxRunSamples samples, shared by its cases by weight (a job's or rank's own
// time a sixteenth of a sample), so that its result file stays one iolab reads back.
TEST(Parameters, ARunsSamplesAreSharedWithinTheLimit) {
    CaseSpec one;
    one.workload.jobs = 1;
    EXPECT_EQ(samples_per_case({{one}}, 1, 10000), 10000u);
    EXPECT_EQ(samples_per_case({std::vector<CaseSpec>(kMaxCases / 2, one), std::vector<CaseSpec>(kMaxCases / 2, one)},
                               1, 10000),
              kMaxRunSamples / kMaxCases);
    EXPECT_EQ(samples_per_case({std::vector<CaseSpec>(100, one)}, 4, 10000), kMaxRunSamples * 16 / (100 * (16 + 4)));
    CaseSpec jobs = one;
    jobs.workload.jobs = kMaxJobs;
    EXPECT_EQ(samples_per_case({std::vector<CaseSpec>(3922, jobs)}, 1, 10000), 2u);
}

// A simulated device's figures read back as written; beyond the setting's range they are refused,
// and an empty value of a setting in a result file is not taken for its default.
TEST(Parameters, ResultFileOptionsOutsideTheirRangeOrEmptyAreRefused) {
    const Parameter& throttle = *find_parameter("throttle");
    for (const char* bad : {"10000TiB/s", "0.5/s"}) EXPECT_TRUE(cli_refuses(throttle, bad)) << bad;
    nlohmann::json j = result_file(throttle);
    j["options"]["throttle_bytes_per_s"] = 1e17;
    EXPECT_THROW(read_report_json(j.dump(), "r.json"), InputError);
    j["options"]["throttle_bytes_per_s"] = 0;
    j["options"]["throttle_latency_s"] = 0.01;  // a latency without a rate
    EXPECT_THROW(read_report_json(j.dump(), "r.json"), InputError);
    for (const char* key : {"cache", "warmup", "iterations", "verify", "sync"}) {
        nlohmann::json k = result_file(throttle);
        k["options"][key] = "";
        EXPECT_THROW(read_report_json(k.dump(), "r.json"), InputError) << key;
    }
}

}  // namespace
}  // namespace iolab
