#pragma once
// Runs every strategy of a family through the harness, as the tests of each kind do.
#include <gtest/gtest.h>

#include "iolab/core/scratch.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/strategies/strategy.hpp"
#include "support.hpp"

namespace iolab::test {

// A case of each strategy `pattern` matches that can run here (Strategy::skip_reason), run with
// three iterations in one scratch folder; `check(strategy, result)` looks at each result, skipped
// ones too. Returns how many were not skipped.
template <class Make, class Check>
int run_each(const char* pattern, Make make, Check check) {
    ScratchDir dir;
    int ran = 0;
    for (const Strategy* s : Registry::builtin().match(pattern)) {
        SCOPED_TRACE(s->name);
        if (s->skip_reason(dir.path())) continue;
        const CaseResult r = run_case(make(*s), three_iterations(), dir);
        check(*s, r);
        if (r.status != Status::skipped) ++ran;
    }
    return ran;
}

}  // namespace iolab::test
