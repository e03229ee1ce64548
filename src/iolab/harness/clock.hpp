#pragma once
// The time source of the harness, replaceable in tests.
#include <cstdint>

namespace iolab {

class Clock {
public:
    virtual ~Clock() = default;
    virtual std::uint64_t now_ns() = 0;
    virtual double resolution_s() = 0;
};
Clock& system_clock();

}  // namespace iolab
