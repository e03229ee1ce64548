#include "iolab/sys/fault.hpp"

#include <atomic>
#include <mutex>

namespace iolab::sys {

namespace {
std::atomic<bool> g_armed{false};
std::mutex g_mutex;
FaultPlan g_plan;
std::uint64_t g_seen = 0;
std::atomic<std::uint64_t> g_fired{0};
}  // namespace

std::string_view fault_name(Fault f) {
    static constexpr std::pair<Fault, std::string_view> kNames[] = {
        {Fault::none, "none"},         {Fault::short_count, "short count"},
        {Fault::eintr, "EINTR"},       {Fault::eagain, "EAGAIN"},
        {Fault::enospc, "ENOSPC"},     {Fault::eio, "EIO"},
        {Fault::errno_value, "errno"}, {Fault::hook, "hook"}};
    for (const auto& [fault, name] : kNames)
        if (fault == f) return name;
    return "?";
}

std::uint64_t calls_mask(std::initializer_list<Call> calls) {
    std::uint64_t m = 0;
    for (Call c : calls) m |= call_bit(c);
    return m;
}

std::uint64_t read_calls_mask() { return calls_mask({Call::read, Call::pread, Call::readv, Call::uring_read}); }

std::uint64_t write_calls_mask() { return calls_mask({Call::write, Call::pwrite, Call::writev, Call::uring_write}); }

std::uint64_t data_calls_mask() {
    return read_calls_mask() | write_calls_mask() |
           calls_mask({Call::sendfile, Call::copy_file_range, Call::splice, Call::uring_enter});
}

void arm_fault(const FaultPlan& plan) {
    std::lock_guard lock(g_mutex);
    g_plan = plan;
    g_seen = 0;
    g_fired.store(0, std::memory_order_relaxed);
    g_armed.store(plan.fault != Fault::none && plan.calls_mask != 0, std::memory_order_release);
}

void disarm_faults() {
    std::lock_guard lock(g_mutex);
    g_armed.store(false, std::memory_order_release);
}

std::uint64_t faults_fired() { return g_fired.load(std::memory_order_relaxed); }

namespace detail {
Fault take_fault(Call c) {
    if (!g_armed.load(std::memory_order_relaxed)) return Fault::none;
    std::function<void()> hook;
    {
        std::lock_guard lock(g_mutex);
        if (!g_armed.load(std::memory_order_relaxed) || !(g_plan.calls_mask & call_bit(c))) return Fault::none;
        const std::uint64_t index = ++g_seen;
        if (index < g_plan.nth || index - g_plan.nth >= g_plan.repeat)
            return Fault::none;  // no overflow: repeat may be "forever"
        g_fired.fetch_add(1, std::memory_order_relaxed);
        if (g_plan.fault != Fault::hook) return g_plan.fault;
        hook = g_plan.hook;
    }
    if (hook) hook();  // outside the lock: the hook may make calls of its own
    return Fault::none;
}
int fault_errno() {
    std::lock_guard lock(g_mutex);
    return g_plan.err;
}
}  // namespace detail

}  // namespace iolab::sys
