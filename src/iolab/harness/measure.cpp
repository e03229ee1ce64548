#include "iolab/harness/measure.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>

#include <sys/stat.h>

#include <csignal>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/harness/cache.hpp"
#include "iolab/harness/measure_steps.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/harness/team.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"
#include "iolab/sys/throttle.hpp"

namespace iolab {

namespace {

class SystemClock : public Clock {
public:
    std::uint64_t now_ns() override {
        timespec ts{};
        ::clock_gettime(CLOCK_MONOTONIC, &ts);
        return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
    }
    double resolution_s() override {
        timespec ts{};
        ::clock_getres(CLOCK_MONOTONIC, &ts);
        return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    }
};

double seconds(const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6; }

Checked checked_by(const Verdict& v) {
    if (v.count_only) return Checked::byte_count;
    return v.checked ? Checked::content : Checked::none;
}

}  // namespace

namespace detail {

Job job_for(const Strategy& s, Fixture& fx, Sink& sink, const RunOptions& opts, VerifyMode mode) {
    Job job;
    try {
        job = fx.job(s, sink, mode);  // a kind's output laid out (a tree to remove, old files to replace)
    } catch (const std::exception&) {
        // A stop cancels the laying out (ECANCELED): that is the stop, not a failure of the case.
        if (interrupt::requested()) throw Interrupted();
        throw;
    }
    job.direct = opts.cache == CacheMode::direct;
    job.worker.heap = opts.jvm_heap;
    job.worker.deadline_s = opts.jvm_deadline_s;
    return job;
}

void attach_timeline(Job& job, Timeline* timeline) {
    if (!timeline) return;
    timeline->clear();
    job.timeline = timeline;
}

double prepare_input(const Fixture& fx, const RunOptions& opts) {
    hold_cache_budget();
    // Nothing read: records written, a tree written or laid out for removal.
    if (fx.input_path().empty()) return -1;
    if (opts.cache == CacheMode::cold) evict_file(fx.input_path(), opts.drop_caches);
    return resident_fraction(fx.input_path());
}

void run_with_sync(const Strategy& s, const Job& job, const RunOptions& opts) {
    s.run(job);
    // A durable case's records are durable already: a sync after it would only add to its time. A
    // tree or a set has no one file to sync (files.write-fsync-*, replace.* make their own syncs).
    if (has_trait(job.family, kTraitSyncAfter) && opts.sync != SyncPolicy::none) {
        const sys::Fd out = sys::open(job.dst, O_RDONLY);
        opts.sync == SyncPolicy::fsync ? sys::fsync(out) : sys::fdatasync(out);
    }
}

Usage Usage::now() {
    Usage u;
    ::getrusage(RUSAGE_SELF, &u.self);
    ::getrusage(RUSAGE_CHILDREN, &u.children);
    return u;
}

void add_usage(Sample& smp, const Usage& a, const Usage& b) {
    smp.user_s = seconds(b.self.ru_utime) - seconds(a.self.ru_utime) + seconds(b.children.ru_utime) -
                 seconds(a.children.ru_utime);
    smp.sys_s = seconds(b.self.ru_stime) - seconds(a.self.ru_stime) + seconds(b.children.ru_stime) -
                seconds(a.children.ru_stime);
    smp.vol_cs = b.self.ru_nvcsw - a.self.ru_nvcsw;
    smp.invol_cs = b.self.ru_nivcsw - a.self.ru_nivcsw;
    smp.minor_faults = b.self.ru_minflt - a.self.ru_minflt;
    smp.major_faults = b.self.ru_majflt - a.self.ru_majflt;
}

void add_calls(Sample& smp, const sys::Counters& made) {
    smp.syscalls += made.data_calls();
    smp.all_calls += made.total_calls();
}

std::uint64_t output_bytes(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

void differs(const std::string& what) {
    if (interrupt::requested()) throw Interrupted();
    throw VerificationFailed(what);
}

Checked verify_output(const Fixture& fx, const Job& job, const std::string& who, std::string_view bug) {
    const Verdict v = fx.verify(job);
    if (!v.ok)
        differs(who + "output differs from the input: " + v.describe() +
                (bug.empty() ? "" : "; as published, " + std::string(bug)));
    return checked_by(v);
}

void check_syncs(const Strategy& s, const Workload& w, const sys::Counters& made, const std::string& who) {
    const std::uint64_t needed = syncs_per_job(s, w);
    if (made.syncs() >= needed) return;
    const KindModule& k = kind_module(w.family);
    differs(who + fmt::format(fmt::runtime(k.sync_shortfall), fmt::arg("made", made.syncs()),
                              fmt::arg("count", w.item_count() ? *w.item_count() : 0), fmt::arg("needed", needed)));
}

Checked weaker(Checked a, Checked b) {
    return b == Checked::none || (b == Checked::byte_count && a == Checked::content) ? b : a;
}

}  // namespace detail

using detail::add_calls;
using detail::add_usage;
using detail::attach_timeline;
using detail::job_for;
using detail::prepare_input;
using detail::run_with_sync;
using detail::Span;
using detail::timed;
using detail::Usage;
using detail::verify_output;

std::pair<Sample, Checked> measure_once(const Strategy& s, Fixture& fx, Sink& sink, const RunOptions& opts,
                                        Clock& clock, Timeline* timeline, VerifyMode mode, bool keep_output) {
    if (interrupt::requested()) throw Interrupted();
    const std::uint64_t entered = clock.now_ns();
    Job job = job_for(s, fx, sink, opts, mode);
    attach_timeline(job, timeline);
    Sample smp;
    if (fx.workload().op_bytes() > 0) {
        auto latency = std::make_shared<Latency>();
        job.latency = latency.get();
        smp.latency = std::move(latency);
    }
    smp.resident = prepare_input(fx, opts);
    try {
        if (s.prepare) s.prepare(job);  // before the clock (a worker started, its garbage collected)
    } catch (const std::exception&) {
        if (interrupt::requested()) throw Interrupted();  // a stop ends the worker
        throw;
    }
    smp.passes = job.tool.passes;
    job.tool.seconds = &smp.tool_s;

    const Usage u0 = Usage::now();
    const Span span = timed(clock, [&] {
        try {
            const sys::ScopedThrottle slow_device(opts.throttle.bytes_per_s, opts.throttle.latency_s);
            run_with_sync(s, job, opts);
        } catch (const std::exception&) {
            // A stop cancels the calls in progress and ends the child processes: what that makes a
            // strategy throw (ECANCELED, a tool ended by a signal) is the stop, not a failure.
            if (interrupt::requested()) throw Interrupted();
            throw;
        }
    });
    add_usage(smp, u0, Usage::now());

    smp.wall_s = span.seconds();
    smp.setup_s = static_cast<double>(span.start - entered) * 1e-9;
    add_calls(smp, span.made);
    smp.bytes = fx.workload().bytes();
    if (opts.cache_budget > 0 && !fx.input_path().empty()) smp.resident_after = resident_fraction(fx.input_path());

    const Checked checked = verify_output(fx, job, "", s.bug);
    detail::check_syncs(s, fx.workload(), span.made, "");
    const std::uint64_t removing = clock.now_ns();
    if (!keep_output) fx.remove_output();  // a group keeps one output on disk at a time
    smp.setup_s += static_cast<double>(clock.now_ns() - removing) * 1e-9;
    return {smp, checked};
}

bool agreed(const std::exception& e) { return !team().mpi() || dynamic_cast<const Agreed*>(&e) != nullptr; }

void raise(const Outcome& o) {
    switch (o.kind) {
        case Outcome::Kind::ok: return;
        case Outcome::Kind::skipped: throw AgreedSkip(o.why);
        case Outcome::Kind::interrupted: interrupt::request(SIGTERM); throw AgreedStop(o.why);
        case Outcome::Kind::failed: throw AgreedFailure(o.why);
    }
}

Clock& system_clock() {
    static SystemClock c;
    return c;
}

}  // namespace iolab
