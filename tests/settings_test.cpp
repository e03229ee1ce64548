// The settings table: the command line and suite files read every setting the same way, and
// name the key and the value in their errors; case parameters read back what they print.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "iolab/harness/params.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/report/analysis/compare.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/json.hpp"
#include "iolab/report/read/read.hpp"
#include "iolab/strategies/kind.hpp"
#include "iolab/suite/findings.hpp"
#include "iolab/suite/suite.hpp"
#include "support.hpp"

namespace iolab {
namespace {

std::string suite_with(const std::string& line) {
    return fmt::format("name = \"s\"\ndescription = \"d\"\n[[group]]\nid = \"g\"\nstrategies = [\"read.chunk\"]\n{}\n",
                       line);
}

std::string suite_error(const std::string& line) {
    try {
        parse_suite(suite_with(line), "s.toml");
    } catch (const SuiteError& e) {
        return e.what();
    }
    return "no error";
}

TEST(Settings, EveryRowIsASuiteKeyAndACommandLineOption) {
    const auto help = test::run_cli("run --help");
    for (const Parameter& s : parameters()) {
        if (!s.setting()) continue;
        EXPECT_NE(help.out.find(setting_name(s.key, Syntax::command_line) + " "), std::string::npos) << s.key;
        EXPECT_FALSE(s.help.empty()) << s.key;
        // An unknown key is refused by the suite loader: a known one gets past the key check.
        const std::string err =
            suite_error(fmt::format("{} = {}", s.key, s.kind == Parameter::Kind::flag ? "7" : "\"\\u0001bad\""));
        EXPECT_EQ(err.find("unknown key"), std::string::npos) << err;
    }
    EXPECT_NE(suite_error("no_such_setting = \"1\"").find("unknown key"), std::string::npos);
}

// A kind's case parameters (KindModule::params) are rows of the table, after the table's own case
// parameters and before the settings: parsed to their range, crossed into cases, read back.
TEST(Settings, EachKindsParametersAreRowsOfTheTable) {
    ASSERT_FALSE(kind_parameters().empty());
    for (const KindParam* k : kind_parameters()) {
        SCOPED_TRACE(k->key);
        const Parameter* p = find_parameter(k->key);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(p->of_kind, k);
        EXPECT_TRUE(p->setting() && p->case_param() && p->crossed());
        PlanRequest plan;
        RunOptions options;
        // A list refused leaves nothing behind: the key keeps its default.
        EXPECT_THROW(apply_setting(*p, "1,0", Syntax::suite, plan, options), InputError);
        EXPECT_FALSE(plan.kind_values.contains(k->key));
        EXPECT_EQ(p->value_count(plan), 1u);  // none given: the Workload's default
        // A case of a strategy that takes it (a kind's values are its own kind's cases' only).
        CaseSpec c;
        const auto& all = Registry::builtin().all();
        const auto taker = std::find_if(all.begin(), all.end(), [&](const Strategy& s) { return p->taken_by(s); });
        ASSERT_NE(taker, all.end());
        c.strategy = &*taker;
        c.workload.family = taker->family;
        p->take_value(plan, 0, c);
        EXPECT_EQ(k->get(c.workload), default_of(*k));
        apply_setting(*p, "2,3", Syntax::suite, plan, options);
        ASSERT_EQ(p->value_count(plan), 2u);
        p->take_value(plan, 1, c);
        EXPECT_EQ(k->get(c.workload), 3u);
        EXPECT_EQ(p->get(c), "3");
        EXPECT_THROW(apply_setting(*p, k->size ? "2G" : std::to_string(k->max + 1), Syntax::suite, plan, options),
                     InputError);
    }
    // Where they stand: after every case parameter of the table's own, before the first setting.
    const auto rows = parameters();
    const auto first_kind =
        std::find_if(rows.begin(), rows.end(), [](const Parameter& p) { return p.of_kind != nullptr; });
    ASSERT_NE(first_kind, rows.end());
    EXPECT_TRUE(std::prev(first_kind)->case_param());
    const auto after = std::find_if(first_kind, rows.end(), [](const Parameter& p) { return p.of_kind == nullptr; });
    EXPECT_EQ(static_cast<std::size_t>(after - first_kind), kind_parameters().size());
    ASSERT_NE(after, rows.end());
    EXPECT_FALSE(after->case_param());
}

// A case holds the values of its own kind and no other's (CaseValues::kind): a read has no records
// and no tree, a replacement's count is its files, not records; asking a case for another kind's
// values is a mistake that throws.
TEST(Settings, EachCaseHoldsTheValuesOfItsOwnKindOnly) {
    PlanRequest plan;
    RunOptions options;
    for (const auto& [key, value] :
         {std::pair{"files", "50"}, {"file_size", "8K"}, {"count", "7"}, {"record", "4K"}, {"chain", "zstd:3>file"}})
        apply_setting(*find_parameter(key), value, Syntax::suite, plan, options);
    const auto one_case = [&](const char* name) {
        const std::vector<CaseSpec> cases = cross(*Registry::builtin().find(name), plan);
        EXPECT_EQ(cases.size(), 1u) << name;
        return cases.at(0).workload;
    };
    const Workload read = one_case("read.chunk");
    EXPECT_TRUE(std::holds_alternative<FileValues>(read.kind));
    EXPECT_EQ(read.item_count(), nullptr);
    EXPECT_EQ(read.each_file_size(), nullptr);
    const Workload tree = one_case("files.read-openat");
    ASSERT_TRUE(std::holds_alternative<TreeValues>(tree.kind));
    EXPECT_EQ(tree.tree_of().files, 50u);
    EXPECT_EQ(tree.tree_of().file_size, 8192u);
    EXPECT_EQ(*tree.item_count(), 50u);
    EXPECT_THROW(tree.records_of(), std::logic_error);
    const Workload set = one_case("replace.rename-fsync");
    ASSERT_TRUE(std::holds_alternative<SetValues>(set.kind));
    EXPECT_EQ(set.set_of().count, 7u);
    EXPECT_EQ(set.set_of().file_size, 8192u);
    EXPECT_EQ(set.bytes(), 7u * 8192u);
    EXPECT_THROW(set.tree_of(), std::logic_error);
    Workload write = one_case("write.record-syscall");
    ASSERT_TRUE(std::holds_alternative<RecordValues>(write.kind));
    EXPECT_EQ(write.records_of().record, 4096u);
    EXPECT_THROW(write.set_of(), std::logic_error);
    // A value of its kind that its strategy does not take stays the default (a write of records has
    // no chain), and the strategy that takes it has it.
    EXPECT_EQ(write.records_of().chain, RecordValues{}.chain);
    EXPECT_EQ(one_case("write.chain").records_of().chain, "zstd:3>file");
    EXPECT_THROW(write.tree_of().files = 3, std::logic_error);
}

// A group's weight is a positive number; it becomes the group's share of the time budget.
TEST(Settings, AGroupWeightIsAPositiveNumber) {
    for (const std::string bad : {"weight = 0", "weight = -1", "weight = \"x\"", "weight = 1e9"})
        EXPECT_NE(suite_error(bad).find("weight"), std::string::npos) << bad << ": " << suite_error(bad);
    EXPECT_DOUBLE_EQ(parse_suite(suite_with("weight = 2.5"), "s.toml").groups[0].weight, 2.5);
    EXPECT_DOUBLE_EQ(parse_suite(suite_with(""), "s.toml").groups[0].weight, 0);
}

TEST(Settings, CommandLineAndSuiteGiveTheSameErrorForTheSameValue) {
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{{"queue", "2s"},
                                                                                     {"queue", "4,,8"},
                                                                                     {"queue", "0"},
                                                                                     {"iov", "5000"},
                                                                                     {"buffer", "4Q"},
                                                                                     {"size", "0"},
                                                                                     {"cache", "tepid"},
                                                                                     {"sync", "always"},
                                                                                     {"verify", "some"},
                                                                                     {"feed", "bytes"},
                                                                                     {"warmup", "1x"},
                                                                                     {"iterations", "0"},
                                                                                     {"precision", "0%"},
                                                                                     {"budget", "5"},
                                                                                     {"forks", "65"},
                                                                                     {"throttle", "0/s"},
                                                                                     {"data", "noise"},
                                                                                     {"byte_slice", "x"},
                                                                                     {"count", "2s"}}) {
        const Parameter* s = find_parameter(key);
        ASSERT_NE(s, nullptr) << key;
        const auto cli =
            test::run_cli(fmt::format("run -s read.chunk {} '{}'", setting_name(key, Syntax::command_line), value));
        EXPECT_EQ(cli.status, 2) << key << "=" << value;
        // Both name the key and the value, then say the same thing: what is wrong, what is expected.
        const std::string cli_head =
            fmt::format("iolab: invalid {} '{}': ", setting_name(key, Syntax::command_line), value);
        const std::string suite_head = fmt::format("s.toml:6: invalid {} '{}': ", key, value);
        const std::string in_suite = suite_error(fmt::format("{} = \"{}\"", key, value));
        ASSERT_TRUE(cli.err.starts_with(cli_head)) << cli.err;
        ASSERT_TRUE(in_suite.starts_with(suite_head)) << in_suite;
        EXPECT_EQ(cli.err.substr(cli_head.size()), in_suite.substr(suite_head.size()) + "\n");
        EXPECT_TRUE(in_suite.ends_with("expected " + std::string(s->expected))) << in_suite;
    }
}

TEST(Settings, AListNamesItsWrongItem) {
    const auto r = test::run_cli("run -s read.chunk --size 1M,abc");
    EXPECT_EQ(r.err, "iolab: invalid --size '1M,abc': 'abc' is wrong; expected " +
                         std::string(find_parameter("size")->expected) + "\n");
    EXPECT_EQ(suite_error("queue = \"4,,8\""), "s.toml:6: invalid queue '4,,8': an empty item; expected " +
                                                   std::string(find_parameter("queue")->expected));
}

TEST(Settings, ChainErrorsSayWhichLayerIsWrong) {
    const auto cli = test::run_cli("run -s write.chain --chain 'buffer:8K>bad:3>file'");
    EXPECT_EQ(cli.status, 2);
    EXPECT_NE(cli.err.find("invalid --chain 'buffer:8K>bad:3>file': unknown layer 'bad'"), std::string::npos)
        << cli.err;
    EXPECT_NE(suite_error("chain = \"buffer:8K>bad:3>file\"")
                  .find("invalid chain 'buffer:8K>bad:3>file': unknown layer 'bad'"),
              std::string::npos);
}

TEST(Settings, ListsAndFlagsApply) {
    PlanRequest p;
    RunOptions o;
    apply_setting(*find_parameter("queue"), "1,4,16", Syntax::suite, p, o);
    EXPECT_EQ(p.queues, (std::vector<unsigned>{1, 4, 16}));
    apply_setting(*find_parameter("buffer"), "4K..16K,1M", Syntax::suite, p, o);
    EXPECT_EQ(p.buffers, (std::vector<std::size_t>{4096, 8192, 16384, 1u << 20}));
    apply_setting(*find_parameter("feed"), "byte,record", Syntax::suite, p, o);
    EXPECT_EQ(p.feeds, (std::vector<bool>{true, false}));
    apply_setting(*find_parameter("cache"), "cold", Syntax::suite, p, o);
    apply_setting(*find_parameter("drop_caches"), "true", Syntax::suite, p, o);
    EXPECT_NO_THROW(check_settings(p, o, Syntax::suite));
    apply_setting(*find_parameter("cache"), "warm", Syntax::suite, p, o);
    EXPECT_THROW(check_settings(p, o, Syntax::suite), InputError);
    EXPECT_NE(suite_error("drop_caches = true").find("drop_caches needs cache cold"), std::string::npos);
}

TEST(Settings, CaseParametersReadBackWhatTheyPrint) {
    CaseSpec c;
    c.strategy = Registry::builtin().find("write.chain");
    c.workload.family = Family::write;
    c.workload.buffer = 12345;
    c.workload.records_of().chain = "buffer:64K>zstd:3>file";
    c.workload.records_of().feed_bytes = true;
    c.full_bytes = 1 << 20;
    std::size_t checked = 0;
    for (const Parameter& p : parameters()) {
        if (!p.case_param() || !p.has(c)) continue;
        CaseSpec copy;
        copy.strategy = c.strategy;
        copy.workload.family = Family::write;
        copy.workload.records_of().chain = "file";
        p.set(copy, p.get(c));
        EXPECT_EQ(p.get(copy), p.get(c)) << p.key;
        ++checked;
    }
    EXPECT_GE(checked, 7u);  // record, chain, feed, count, size, slice_of, data
    EXPECT_EQ(c.label(), "write.chain record=1K chain=buffer:64K>zstd:3>file feed=byte");
}

TEST(Settings, CsvTellsEveryCaseApart) {
    // Two chains, both feeds: four cases of one strategy, four different rows before "status".
    Report r;
    const std::string group = "g";
    for (const char* chain : {"buffer:8K>deflate:6>file", "deflate:6>buffer:8K>file"})
        for (bool feed : {false, true}) {
            CaseResult c;
            c.spec.strategy = Registry::builtin().find("write.chain");
            c.spec.workload.family = Family::write;
            c.spec.workload.records_of().chain = chain;
            c.spec.workload.records_of().feed_bytes = feed;
            c.spec.group = group;
            r.cases.push_back(c);
        }
    const std::string csv = to_csv(r);
    std::set<std::string> keys;
    std::size_t start = csv.find('\n') + 1;
    while (start < csv.size()) {
        const std::size_t end = csv.find('\n', start);
        const std::string row = csv.substr(start, end - start);
        keys.insert(row.substr(0, row.find(",ok,") == std::string::npos ? row.size() : row.find(",ok,")));
        start = end + 1;
    }
    EXPECT_EQ(keys.size(), 4u) << csv;
    EXPECT_NE(csv.find(",chain,feed,"), std::string::npos);
}

TEST(Settings, ASwitchCanBeTurnedOffOnTheCommandLine) {
    ScratchDir dir;
    std::ofstream(dir.file("s.toml")) << "name = \"s\"\ndescription = \"d\"\n[[group]]\nid = \"g\"\n"
                                         "strategies = [\"copy.pipelined-threads\"]\ntimeline = true\nsize = \"1M\"\n";
    const std::string common =
        " --iterations 1 --warmup 0 -q --dir " + dir.path() + " --suite-file " + dir.file("s.toml");
    ASSERT_EQ(test::run_cli("run --json " + dir.file("on.json") + common).status, 0);
    ASSERT_EQ(test::run_cli("run --timeline=false --json " + dir.file("off.json") + common).status, 0);
    // The case's timeline (an object), and the option itself.
    EXPECT_NE(test::slurp(dir.file("on.json")).find("\"timeline\": {"), std::string::npos);
    EXPECT_EQ(test::slurp(dir.file("off.json")).find("\"timeline\": {"), std::string::npos);
    EXPECT_NE(test::slurp(dir.file("on.json")).find("\"timeline\": true"), std::string::npos);
    EXPECT_NE(test::slurp(dir.file("off.json")).find("\"timeline\": false"), std::string::npos);
}

TEST(Settings, RulesThatJoinSettingsAreCheckedOnEachGroupsFinalSettings) {
    const std::string head = "name = \"s\"\ndescription = \"d\"\n[defaults]\ndrop_caches = true\n";
    const std::string cold = "[[group]]\nid = \"g\"\ncache = \"cold\"\nstrategies = [\"read.chunk\"]\n";
    EXPECT_NO_THROW(parse_suite(head + cold, "s.toml"));
    try {
        parse_suite(head + cold + "[[group]]\nid = \"h\"\nstrategies = [\"read.chunk\"]\n", "s.toml");
        ADD_FAILURE() << "a warm group with drop_caches was accepted";
    } catch (const SuiteError& e) {
        EXPECT_EQ(std::string(e.what()), "s.toml:9: group 'h': drop_caches needs cache cold");
    }
}

TEST(Settings, EveryFindingThatMayNotHoldHereCarriesANote) {
    // The five findings that do not hold on a machine like this one say why, in the suite.
    std::size_t notes = 0;
    for (const auto& name : replication_suites())
        for (const auto& f : builtin_suite(name).findings) notes += !f.explanation.empty();
    EXPECT_EQ(notes, 5u);
}

TEST(Settings, ARequiredTextIsNotEmpty) {
    const std::string empty_id =
        "name = \"s\"\ndescription = \"d\"\n[[group]]\nid = \"\"\nstrategies = [\"read.chunk\"]\n";
    try {
        parse_suite(empty_id, "s.toml");
        ADD_FAILURE() << "an empty group id was accepted";
    } catch (const SuiteError& e) {
        EXPECT_EQ(std::string(e.what()), "s.toml:4: id: expected a non-empty string");
    }
}

TEST(Settings, SuiteNumbersAreReadAndOtherTypesAreNamed) {
    EXPECT_NO_THROW(parse_suite(suite_with("precision = 0.03"), "s.toml"));
    EXPECT_EQ(suite_error("precision = true"),
              "s.toml:6: precision: invalid value true: expected a string or a number");
    EXPECT_EQ(suite_error("timeline = \"yes\""), "s.toml:6: timeline: invalid value 'yes': expected true or false");
}

TEST(Settings, RepeatedValuesMakeOneCaseAndASingleValueIsGivenOnce) {
    PlanRequest p;
    RunOptions o;
    apply_setting(*find_parameter("buffer"), "4K, 4096,8K", Syntax::suite, p, o);
    EXPECT_EQ(p.buffers, (std::vector<std::size_t>{4096, 8192}));
    apply_setting(*find_parameter("chain"), "deflate>file,deflate:6>file,buffer:8192>file", Syntax::suite, p, o);
    EXPECT_EQ(p.chains, (std::vector<std::string>{"deflate:6>file", "buffer:8K>file"}));
    // A count makes every size the same write: one case.
    p = PlanRequest{};
    p.strategies = {"write.record-syscall"};
    p.sizes = {64 << 10, 128 << 10};
    p.count = 10;
    EXPECT_EQ(build_plan(p).size(), 1u);
    const auto twice = test::run_cli("run -s read.chunk --warmup 0 --warmup 4");
    EXPECT_EQ(twice.status, 2);
    EXPECT_EQ(twice.err, "iolab: --warmup is given 2 times ('0', '4'): give it once\n");
}

TEST(Settings, TheDefaultBufferNeverRefusesASmallFileToAStrategyWithoutOne) {
    PlanRequest p;
    p.strategies = {"read.byte-syscall", "write.record-syscall"};
    p.sizes = {1024};
    EXPECT_EQ(build_plan(p).size(), 2u);
    p.strategies = {"read.chunk"};
    EXPECT_THROW(build_plan(p), InputError);  // the 64K buffer of a strategy that takes one
}

TEST(Settings, ToolsReadARelativeInputAndLongResultNamesWork) {
    ScratchDir dir;
    std::ofstream(dir.file("in.bin")) << std::string(300000, 'x');
    const std::string name(250, 'r');
    const std::string cmd = "cd " + dir.path() + " && " + IOLAB_BINARY +
                            " run -s read.dd,read.cat,copy.dd,copy.cp --input in.bin --iterations 1 --warmup 0 -q "
                            "--dir . --json " +
                            name + " >out 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << test::slurp(dir.file("out"));
    const auto j = nlohmann::json::parse(test::slurp(dir.file(name)));
    ASSERT_EQ(j["cases"].size(), 4u);
    for (const auto& c : j["cases"]) EXPECT_EQ(c["status"], "ok") << c.dump();
    // dd repeats by reading a longer input, and none is made of the user's: it reads it once a run
    // (a 300 KB read asked for ~300 passes, so every figure was that many times too fast).
    const std::string more = "cd " + dir.path() + " && " + IOLAB_BINARY +
                             " run -s read.dd --input in.bin --iterations 3 --warmup 1 -q --dir . --json more.json "
                             ">out 2>&1";
    EXPECT_EQ(std::system(more.c_str()), 0) << test::slurp(dir.file("out"));
    const auto dd = nlohmann::json::parse(test::slurp(dir.file("more.json")))["cases"][0];
    ASSERT_EQ(dd["samples"].size(), 3u) << dd.dump();
    for (const auto& smp : dd["samples"]) EXPECT_EQ(smp.value("passes", 1), 1) << smp.dump();
    const auto long_name = test::run_cli("run -s read.chunk --json " + dir.file(std::string(260, 'x')));
    EXPECT_EQ(long_name.status, 2);
    EXPECT_NE(long_name.err.find("the file name is longer than 255 bytes"), std::string::npos) << long_name.err;
}

TEST(Settings, TraceAndForksAreRefusedTogether) {
    const auto r = test::run_cli("run -s copy.pipelined-threads --forks 2 --trace /nonexistent/t.json");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "iolab: --trace needs the timelines of one process; it cannot be used with --forks\n");
}

TEST(Settings, CompareMatchesCasesByEveryParameter) {
    // Two byte-at-a-time cases share a label and a slice size, but stand for different files.
    Report r;
    for (std::uint64_t full : {2u << 20, 4u << 20}) {
        CaseResult c;
        c.spec.strategy = Registry::builtin().find("read.byte-syscall");
        c.spec.workload.size = 64 << 10;
        c.spec.full_bytes = full;
        for (double w : {0.010, 0.011, 0.012, 0.010, 0.011}) {
            Sample s;
            s.wall_s = w * static_cast<double>(full >> 20);
            s.bytes = 64 << 10;
            c.samples.push_back(s);
        }
        finish(c, r.options, 1e-9);
        r.cases.push_back(c);
    }
    const std::string out = render_comparison(r, r, false);
    EXPECT_NE(out.find("read.byte-syscall size=2M"), std::string::npos) << out;
    EXPECT_NE(out.find("read.byte-syscall size=4M"), std::string::npos) << out;
    EXPECT_NE(out.find("over 2 case(s): 1.000"), std::string::npos) << out;  // each matched with itself
}

TEST(Settings, ASizeSelectorPicksTheWriteOfThatSize) {
    std::vector<CaseResult> cases;
    for (std::uint64_t count : {64u, 1024u}) {
        CaseResult c;
        c.spec.strategy = Registry::builtin().find("write.record-syscall");
        c.spec.workload.family = Family::write;
        c.spec.workload.records_of().record = 1024;
        c.spec.workload.records_of().count = count;
        c.throughput_mib_s = 100.0 / static_cast<double>(count);  // the small one is the fastest
        cases.push_back(c);
    }
    const auto pick = [&](const char* size) {
        return select_case(Selector{"", {"write.record-syscall"}, {{"size", size}}, false}, cases);
    };
    EXPECT_EQ(pick("1M"), &cases[1]);
    EXPECT_EQ(pick("64K"), &cases[0]);
    EXPECT_EQ(pick("7G"), nullptr);
}

TEST(Settings, ResultsWrittenBeforeTheToolsWereRenamedStillRead) {
    nlohmann::json j = report_to_json(Report{});
    j["cases"] = nlohmann::json::array();
    for (const char* old_name : {"external.dd", "external.cat", "external.fio", "external.dd-copy", "external.cp"})
        j["cases"].push_back({{"strategy", old_name},
                              {"params", nlohmann::json::object()},
                              {"status", "skipped"},
                              {"samples", nlohmann::json::array()}});
    const Report r = read_report_json(j.dump(), "old.json");
    std::vector<std::string> names;
    for (const auto& c : r.cases) names.push_back(c.name());
    EXPECT_EQ(names, (std::vector<std::string>{"read.dd", "read.cat", "read.fio", "copy.dd", "copy.cp"}));
}

TEST(Settings, AResultFileNamesTheParameterItCannotRead) {
    nlohmann::json j = report_to_json(Report{});
    j["cases"] = nlohmann::json::array({{{"strategy", "read.chunk"},
                                         {"params", {{"buffer", "0"}}},
                                         {"status", "skipped"},
                                         {"samples", nlohmann::json::array()}}});
    try {
        read_report_json(j.dump(), "r.json");
        ADD_FAILURE() << "buffer 0 was read";
    } catch (const ResultFormatError& e) {
        EXPECT_NE(std::string(e.what()).find("params.buffer: invalid buffer '0': expected buffer sizes from 1 byte"),
                  std::string::npos)
            << e.what();
    }
}

// A result file's `stopped` is one of the reasons (or absent, in files older than racing), and
// its `limits` an array: anything else is an error naming it, not a default.
TEST(Settings, AResultFileWithAnUnknownStopOrLimitsIsRefused) {
    nlohmann::json j = report_to_json(Report{});
    const nlohmann::json c = {{"strategy", "read.chunk"},
                              {"params", {{"buffer", "64K"}}},
                              {"status", "skipped"},
                              {"samples", nlohmann::json::array()}};
    j["cases"] = nlohmann::json::array({c});
    EXPECT_NO_THROW(read_report_json(j.dump(), "r.json"));
    j["cases"][0]["stopped"] = "clearly slower";
    EXPECT_EQ(read_report_json(j.dump(), "r.json").cases[0].stopped, StopReason::clearly_slower);
    j["cases"][0]["stopped"] = "bored";
    try {
        read_report_json(j.dump(), "r.json");
        ADD_FAILURE() << "stopped 'bored' was read";
    } catch (const ResultFormatError& e) {
        EXPECT_NE(std::string(e.what()).find("stopped 'bored' is not"), std::string::npos) << e.what();
    }
    j["cases"][0].erase("stopped");
    j["limits"] = "fast";
    EXPECT_THROW(read_report_json(j.dump(), "r.json"), ResultFormatError);
}

// The rules between settings hold for a result file's options as for a command line and a suite: a
// file whose options could not have run (hand-edited, or written wrong) is refused, naming the rule,
// in the run's options and in a group's.
TEST(Settings, AResultFileWhoseOptionsBreakARuleBetweenSettingsIsRefused) {
    const nlohmann::json good = report_to_json(Report{});
    EXPECT_NO_THROW(read_report_json(good.dump(), "r.json"));
    const auto refused = [&](nlohmann::json j, const std::string& words) {
        try {
            read_report_json(j.dump(), "r.json");
            ADD_FAILURE() << "read: " << j.dump();
        } catch (const ResultFormatError& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    nlohmann::json j = good;
    j["options"]["drop_caches"] = true;  // with cache warm
    refused(j, "r.json: options: drop_caches needs cache cold");
    j = good;
    j["options"]["shared_file"] = true;
    j["options"]["stonewall"] = true;
    refused(j, "shared_file with stonewall");
    j = good;
    nlohmann::json options = good["options"];
    options["drop_caches"] = true;
    j["groups"] = nlohmann::json::array({{{"id", "g"}, {"title", "g"}, {"options", options}}});
    refused(j, "drop_caches needs cache cold");
}

}  // namespace
}  // namespace iolab
