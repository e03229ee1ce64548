#include "iolab/harness/measure.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/harness/cache.hpp"
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

struct VerificationFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

Checked checked_by(const Verdict& v) {
    if (v.count_only) return Checked::byte_count;
    return v.checked ? Checked::content : Checked::none;
}

}  // namespace

std::pair<Sample, Checked> measure_once(const Strategy& s, Fixture& fx, Sink& sink, const RunOptions& opts,
                                        Clock& clock, Timeline* timeline, VerifyMode mode) {
    if (interrupt::requested()) throw Interrupted();
    Job job = fx.job(s, sink, mode);
    job.direct = opts.cache == CacheMode::direct;
    if (timeline) {
        timeline->clear();
        job.timeline = timeline;
    }
    const bool has_input = fx.workload().family != Family::write;
    if (has_input && opts.cache == CacheMode::cold) evict_file(fx.input_path(), opts.drop_caches);
    Sample smp;
    if (has_input) smp.resident = resident_fraction(fx.input_path());
    const bool sync_inside = fx.workload().family != Family::read && opts.sync != SyncPolicy::none;

    // The children's usage counts too: external tools run as child processes.
    rusage r0{}, r1{}, c0r{}, c1r{};
    ::getrusage(RUSAGE_SELF, &r0);
    ::getrusage(RUSAGE_CHILDREN, &c0r);
    const sys::Counters c0 = sys::thread_counters();
    const std::uint64_t t0 = clock.now_ns();
    {
        const sys::ScopedThrottle slow_device(opts.throttle.bytes_per_s, opts.throttle.latency_s);
        s.run(job);
        if (sync_inside) {
            const sys::Fd out = sys::open(job.dst, O_RDONLY);
            opts.sync == SyncPolicy::fsync ? sys::fsync(out) : sys::fdatasync(out);
        }
    }
    const std::uint64_t t1 = clock.now_ns();
    const sys::Counters made = sys::thread_counters() - c0;
    ::getrusage(RUSAGE_SELF, &r1);
    ::getrusage(RUSAGE_CHILDREN, &c1r);

    smp.wall_s = static_cast<double>(t1 - t0) * 1e-9;
    smp.user_s = seconds(r1.ru_utime) - seconds(r0.ru_utime);
    smp.user_s += seconds(c1r.ru_utime) - seconds(c0r.ru_utime);
    smp.sys_s = seconds(r1.ru_stime) - seconds(r0.ru_stime) + seconds(c1r.ru_stime) - seconds(c0r.ru_stime);
    smp.vol_cs = r1.ru_nvcsw - r0.ru_nvcsw;
    smp.invol_cs = r1.ru_nivcsw - r0.ru_nivcsw;
    smp.minor_faults = r1.ru_minflt - r0.ru_minflt;
    smp.major_faults = r1.ru_majflt - r0.ru_majflt;
    smp.syscalls = made.data_calls();
    smp.all_calls = made.total_calls();
    smp.bytes = fx.workload().bytes();

    const Verdict v = fx.verify(job);
    if (!v.ok) throw VerificationFailed("output differs from the input: " + v.describe());
    fx.remove_output();  // a group keeps one output on disk at a time
    return {smp, checked_by(v)};
}

Clock& system_clock() {
    static SystemClock c;
    return c;
}

}  // namespace iolab
