#pragma once
// Fault injection for tests: make the nth call of a chosen kind (and the `repeat - 1` calls of
// that kind after it) return a short count, EINTR, EAGAIN, ENOSPC or EIO. The plan is global,
// so it reaches worker threads too; when nothing is armed the cost is one relaxed load.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string_view>

#include "iolab/sys/io.hpp"

namespace iolab::sys {

// errno_value: fail with FaultPlan::err (e.g. EXDEV, to test a fallback).
// hook: run FaultPlan::hook, then let the call proceed (to change the world mid-run in tests).
enum class Fault : std::uint8_t { none, short_count, eintr, eagain, enospc, eio, errno_value, hook };
std::string_view fault_name(Fault f);

struct FaultPlan {
    std::uint64_t calls_mask = 0;  // bit i set: Call i is targeted
    std::uint64_t nth = 1;         // 1-based, counted over the targeted calls since arming
    std::uint64_t repeat = 1;
    Fault fault = Fault::none;
    int err = 0;                 // for Fault::errno_value
    std::function<void()> hook;  // for Fault::hook
};

// A plan: `repeat` faults of one kind from the nth targeted call on (UINT64_MAX: every one from
// then on, a persistent fault).
inline FaultPlan fault_at(std::uint64_t mask, std::uint64_t nth, std::uint64_t repeat, Fault f, int err = 0) {
    FaultPlan p;
    p.calls_mask = mask;
    p.nth = nth;
    p.repeat = repeat;
    p.fault = f;
    p.err = err;
    return p;
}

constexpr std::uint64_t call_bit(Call c) { return std::uint64_t{1} << static_cast<unsigned>(c); }
std::uint64_t calls_mask(std::initializer_list<Call> calls);
// The calls that move file data in or out, the ones the fault matrix targets.
std::uint64_t data_calls_mask();
std::uint64_t read_calls_mask();
std::uint64_t write_calls_mask();

void arm_fault(const FaultPlan& plan);
void disarm_faults();
std::uint64_t faults_fired();

// RAII: arm on construction, disarm on destruction.
class ScopedFault {
public:
    explicit ScopedFault(const FaultPlan& plan) { arm_fault(plan); }
    ~ScopedFault() { disarm_faults(); }
    ScopedFault(const ScopedFault&) = delete;
    ScopedFault& operator=(const ScopedFault&) = delete;
};

namespace detail {
// Called by the wrappers: the fault to apply to this call of kind c, if any.
Fault take_fault(Call c);
// The errno of the armed plan's errno_value fault.
int fault_errno();
}  // namespace detail

}  // namespace iolab::sys
