#pragma once
// The steps of a measured run that measure_once (one job) and measure_jobs (jobs at once, on
// threads) share: the job and its input's cache state, the timed run, the process's usage around
// it, and the verification of what it produced. Internal to measure.cpp and measure_jobs.cpp.
#include <sys/resource.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "iolab/harness/clock.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/options.hpp"
#include "iolab/harness/result.hpp"
#include "iolab/sys/io.hpp"

namespace iolab::detail {

struct VerificationFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A job for the strategy, with O_DIRECT where the cache mode asks for it.
Job job_for(const Strategy& s, Fixture& fx, Sink& sink, const RunOptions& opts, VerifyMode mode);
// The timeline, when given, cleared and recording the job.
void attach_timeline(Job& job, Timeline* timeline);
// The input put in the cache state asked for; returns its resident share (-1 for writes).
double prepare_input(const Fixture& fx, const RunOptions& opts);
// The strategy's run, and durability when the sync policy puts it inside the timed part.
void run_with_sync(const Strategy& s, const Job& job, const RunOptions& opts);

// The process's CPU time, context switches and faults, its children's included (external tools
// run as child processes).
struct Usage {
    rusage self{}, children{};
    static Usage now();
};
// What happened between two readings of the usage, into a sample.
void add_usage(Sample& smp, const Usage& a, const Usage& b);

// One timed run on the calling thread: the clock and the thread's calls through the syscall layer
// around it.
struct Span {
    std::uint64_t start = 0, end = 0;
    sys::Counters made;
    double seconds() const { return static_cast<double>(end - start) * 1e-9; }
};
template <class Run>
Span timed(Clock& clock, Run&& run) {
    Span span;
    const sys::Counters c0 = sys::thread_counters();
    span.start = clock.now_ns();
    run();
    span.end = clock.now_ns();
    span.made = sys::thread_counters() - c0;
    return span;
}
// A span's calls, added to a sample's.
void add_calls(Sample& smp, const sys::Counters& made);

// Bytes in a file (0 when it does not exist): what a stopped writer left.
std::uint64_t output_bytes(const std::string& path);
// An output that is not what it should be: a failure, unless a stop was asked for meanwhile (a
// tool ended by the signal may leave its output part-written and still exit 0): then the stop.
[[noreturn]] void differs(const std::string& what);
// The job's output verified against its fixture's reference; `who` opens the message when it
// differs ("job 2 of 4: ", or "" for one job). Returns what was checked.
// Throws VerificationFailed when the job's output is not the reference; `bug`: the strategy's known
// bug (Strategy::bug), said with it.
Checked verify_output(const Fixture& fx, const Job& job, const std::string& who, std::string_view bug = {});
// A durable case's calls: a sync for each record (for group commit, for each batch a writer can
// gather), or a VerificationFailed saying how many it made.
void check_syncs(const Strategy& s, const Workload& w, const sys::Counters& made, const std::string& who);
// The weaker of two checks: what a sample of both can claim.
Checked weaker(Checked a, Checked b);

}  // namespace iolab::detail
