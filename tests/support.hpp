#pragma once
// Helpers shared by the tests that run the iolab binary.
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "iolab/core/scratch.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/strategies/strategy.hpp"

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

// A verified case of the strategy `name` on 1 MiB, one sample of 1 MiB per wall time given.
inline CaseResult timed_case(const char* name, const std::vector<double>& walls) {
    CaseResult c;
    c.spec.strategy = Registry::builtin().find(name);
    c.spec.workload.family = c.spec.strategy->family;
    c.spec.workload.size = 1 << 20;
    c.checked = Checked::content;
    c.verified = true;
    for (double w : walls) {
        Sample s;
        s.wall_s = w;
        s.bytes = 1 << 20;
        c.samples.push_back(s);
    }
    finish(c, RunOptions{}, 1e-9);
    return c;
}

// A case of 12 samples of 1 MiB whose times are `scale` times a fixed spread (no two equal).
inline CaseResult spread_case(const char* name, double scale) {
    std::vector<double> walls;
    for (double w : {1.000, 1.012, 0.991, 1.021, 0.983, 1.005, 1.016, 0.996, 1.009, 0.987, 1.003, 1.025})
        walls.push_back(w * scale * 1e-3);
    return timed_case(name, walls);
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
