// Every command the README shows runs, in smoke form: a new user's first commands never fail.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "iolab/core/scratch.hpp"
#include "support.hpp"

namespace iolab {
namespace {

// The `build/iolab ...` lines of the README's "Using it" block, without their comments.
std::vector<std::string> readme_commands() {
    const std::string text = test::slurp(std::string(IOLAB_SOURCE_DIR) + "/README.md");
    const auto start = text.find("## Using it");
    const auto open = text.find("```sh\n", start);
    const auto close = text.find("```", open + 6);
    if (start == std::string::npos || open == std::string::npos || close == std::string::npos) return {};
    std::vector<std::string> out;
    std::size_t at = open + 6;
    while (at < close) {
        const auto end = text.find('\n', at);
        std::string line = text.substr(at, end - at);
        at = end + 1;
        if (const auto hash = line.find(" #"); hash != std::string::npos) line.resize(hash);
        while (!line.empty() && line.back() == ' ') line.pop_back();
        if (line.rfind("build/iolab ", 0) == 0) out.push_back(line.substr(12));
    }
    return out;
}

std::string word(const std::string& args) { return args.substr(0, args.find(' ')); }

TEST(Readme, EveryCommandRunsInSmokeForm) {
    const std::vector<std::string> commands = readme_commands();
    // The block holds the commands people start with; fewer means the block was not found whole.
    ASSERT_GE(commands.size(), 20u);
    ScratchDir cwd;  // where the commands' own files (copy.json, r.html, .iolab/) land
    ScratchDir scratch;
    // What compare and report read: two small runs saved first.
    for (const char* name : {"a.json", "b.json"}) {
        const auto r = test::run_cli(
            std::string("run -s read.chunk --smoke -q --dir ") + scratch.path() + " --json " + name, cwd.path());
        ASSERT_EQ(r.status, 0) << r.err;
    }
    for (std::string args : commands) {
        const std::string verb = word(args);
        if (verb == "run" || verb == "replicate" || verb == "tune") {
            if (verb == "tune") args = "tune --dir " + scratch.path();  // not the README's /data
            args += " --smoke";
            if (verb != "tune") args += " --dir " + scratch.path();
        } else if (verb == "clean" || verb == "calibrate") {
            args += " --dir " + scratch.path();  // this test's folder, never the machine's
        }
        const auto r = test::run_cli(args, cwd.path());
        if (args.find("--save-baseline") != std::string::npos) {
            // A smoke run measures nothing, so it is never kept as a baseline (docs/ci.md).
            EXPECT_EQ(r.status, 2) << args;
            EXPECT_NE(r.err.find("--smoke"), std::string::npos) << args << ": " << r.err;
            continue;
        }
        EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
        // Each says what it did, but report, whose work is the file it names (checked below).
        if (verb != "report") {
            EXPECT_FALSE(r.out.empty() && r.err.empty()) << args << " said nothing";
        }
    }
    // The files the README's commands name were written where it said.
    for (const char* f : {"copy.json", "r.html", "ab.html", ".iolab/calibration.json"})
        EXPECT_FALSE(test::slurp(cwd.file(f)).empty()) << f;
}

}  // namespace
}  // namespace iolab
