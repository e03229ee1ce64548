#pragma once
// Helpers shared by the tests that run the iolab binary.
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "iolab/core/scratch.hpp"
#include "iolab/harness/runner.hpp"

namespace iolab::test {

// A clock that moves only when a test moves it.
class FakeClock : public Clock {
public:
    std::uint64_t now_ns() override { return t; }
    double resolution_s() override { return 1e-9; }
    std::uint64_t t = 0;
};

// One warm-up and three measured iterations: the fewest that make a case with samples.
inline RunOptions three_iterations() {
    RunOptions o;
    o.warmup = Amount{1, 0};
    o.iterations = Amount{3, 0};
    return o;
}

struct CliResult {
    int status = -1;
    std::string out;
    std::string err;
};

inline std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// Runs `iolab ARGS` through the shell (args are pasted as given), capturing both streams; in the
// folder `cwd` when one is given.
inline CliResult run_cli(const std::string& args, const std::string& cwd = {}) {
    ScratchDir io;
    const std::string cmd = (cwd.empty() ? std::string() : "cd '" + cwd + "' && ") + "NO_COLOR=1 " + IOLAB_BINARY +
                            " " + args + " >" + io.file("out") + " 2>" + io.file("err") + " </dev/null";
    const int raw = std::system(cmd.c_str());
    CliResult r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    r.out = slurp(io.file("out"));
    r.err = slurp(io.file("err"));
    return r;
}

}  // namespace iolab::test
