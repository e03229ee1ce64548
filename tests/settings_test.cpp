// The settings table: the command line and suite files read every setting the same way, and
// name the key and the value in their errors; case parameters read back what they print.
#include <gtest/gtest.h>

#include <set>

#include <fmt/format.h>

#include "iolab/harness/settings.hpp"
#include "iolab/report/exporter.hpp"
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
    for (const Setting& s : settings()) {
        EXPECT_NE(help.out.find(setting_name(s.key, Syntax::command_line) + " "), std::string::npos) << s.key;
        EXPECT_NE(s.apply, nullptr) << s.key;
        EXPECT_FALSE(s.help.empty()) << s.key;
        // An unknown key is refused by the suite loader: a known one gets past the key check.
        const std::string err = suite_error(fmt::format("{} = {}", s.key, s.flag ? "7" : "\"\\u0001bad\""));
        EXPECT_EQ(err.find("unknown key"), std::string::npos) << err;
    }
    EXPECT_NE(suite_error("no_such_setting = \"1\"").find("unknown key"), std::string::npos);
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
        const Setting* s = find_setting(key);
        ASSERT_NE(s, nullptr) << key;
        const auto cli =
            test::run_cli(fmt::format("run -s read.chunk {} '{}'", setting_name(key, Syntax::command_line), value));
        EXPECT_EQ(cli.status, 2) << key << "=" << value;
        const std::string expected_cli = fmt::format("iolab: invalid {} '{}': expected {}\n",
                                                     setting_name(key, Syntax::command_line), value, s->expected);
        EXPECT_EQ(cli.err, expected_cli);
        const std::string expected_suite =
            fmt::format("s.toml:6: invalid {} '{}': expected {}", key, value, s->expected);
        EXPECT_EQ(suite_error(fmt::format("{} = \"{}\"", key, value)), expected_suite);
    }
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
    apply_setting(*find_setting("queue"), "1,4,16", Syntax::suite, p, o);
    EXPECT_EQ(p.queues, (std::vector<unsigned>{1, 4, 16}));
    apply_setting(*find_setting("buffer"), "4K..16K,1M", Syntax::suite, p, o);
    EXPECT_EQ(p.buffers, (std::vector<std::size_t>{4096, 8192, 16384, 1u << 20}));
    apply_setting(*find_setting("feed"), "byte,record", Syntax::suite, p, o);
    EXPECT_EQ(p.feeds, (std::vector<bool>{true, false}));
    apply_setting(*find_setting("cache"), "cold", Syntax::suite, p, o);
    apply_setting(*find_setting("drop_caches"), "true", Syntax::suite, p, o);
    EXPECT_NO_THROW(check_settings(p, o, Syntax::suite));
    apply_setting(*find_setting("cache"), "warm", Syntax::suite, p, o);
    EXPECT_THROW(check_settings(p, o, Syntax::suite), InputError);
    EXPECT_NE(suite_error("drop_caches = true").find("drop_caches needs cache cold"), std::string::npos);
}

TEST(Settings, CaseParametersReadBackWhatTheyPrint) {
    CaseSpec c;
    c.strategy = Registry::builtin().find("write.chain");
    c.workload.family = Family::write;
    c.workload.buffer = 12345;
    c.workload.chain = "buffer:64K>zstd:3>file";
    c.workload.feed_bytes = true;
    c.full_bytes = 1 << 20;
    std::size_t checked = 0;
    for (const CaseParam& p : case_params()) {
        if (!p.has(c)) continue;
        CaseSpec copy;
        copy.strategy = c.strategy;
        copy.workload.family = Family::write;
        copy.workload.chain = "file";
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
    for (const char* chain : {"buffer:8K>deflate:6>file", "deflate:6>buffer:8K>file"})
        for (bool feed : {false, true}) {
            CaseResult c;
            c.spec.strategy = Registry::builtin().find("write.chain");
            c.spec.workload.family = Family::write;
            c.spec.workload.chain = chain;
            c.spec.workload.feed_bytes = feed;
            c.spec.group = "g";
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

}  // namespace
}  // namespace iolab
