#pragma once
// Strategies and cases the tests make up.
#include <cstdint>
#include <functional>
#include <string>

#include "iolab/harness/result.hpp"
#include "iolab/strategies/strategy.hpp"

namespace iolab::test {

// A strategy of a test's own: its name, kind and what each run does.
inline Strategy made_strategy(const char* name, Family family, std::function<void(const Job&)> run,
                              const char* description = "fake") {
    Strategy s;
    s.name = name;
    s.family = family;
    s.description = description;
    s.run = std::move(run);
    return s;
}

// A case of strategy s reading a generated file of `size` bytes.
inline CaseSpec read_case(const Strategy& s, std::uint64_t size) {
    CaseSpec c;
    c.strategy = &s;
    c.workload.family = Family::read;
    c.workload.size = size;
    return c;
}

}  // namespace iolab::test
