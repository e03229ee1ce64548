// The harness's own cost: what it measures for a strategy that does nothing (the floor under
// every figure), and the full wall-clock cost of one iteration around it (output removal,
// residency check, verification, accounting).
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "iolab/core/scratch.hpp"
#include "iolab/harness/runner.hpp"

int main() {
    using namespace iolab;
    Strategy noop;
    noop.name = "read.noop";
    noop.family = Family::read;
    noop.description = "does nothing";
    noop.run = [](const Job&) {};
    CaseSpec c;
    c.strategy = &noop;
    c.workload.family = Family::read;
    c.workload.size = 0;
    RunOptions opts;
    opts.warmup = Amount{100, 0};
    opts.iterations = Amount{10000, 0};
    ScratchDir dir;
    const auto t0 = std::chrono::steady_clock::now();
    const CaseResult r = run_case(c, opts, dir);
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("timed overhead per iteration (median of {} empty runs): {:.1f} ns (min {:.1f} ns)\n", r.stats.n,
               r.stats.median * 1e9, r.stats.min * 1e9);
    fmt::print("full harness cost per iteration (untimed set-up, checks, accounting): {:.1f} us\n",
               total / static_cast<double>(opts.warmup.count + opts.iterations.count) * 1e6);
    return r.status == Status::ok ? 0 : 1;
}
