#include "iolab/harness/runner.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <random>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "iolab/core/interrupt.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/cache.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/serialize.hpp"
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

struct VerificationFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Thrown between iterations when a stop was asked for: the case is incomplete.
struct Interrupted : std::runtime_error {
    Interrupted() : std::runtime_error("interrupted") {}
};

std::string file_tag(const std::string& name) {
    std::string t = name;
    for (char& c : t)
        if (c == '.') c = '_';
    return t;
}

Checked checked_by(const Verdict& v) {
    if (v.count_only) return Checked::byte_count;
    return v.checked ? Checked::content : Checked::none;
}

// One run of the strategy: everything but the strategy (and durability, when the sync policy
// puts it inside) happens outside the timed part. Returns the sample and what was checked.
std::pair<Sample, Checked> run_once(const Strategy& s, Fixture& fx, Sink& sink, const RunOptions& opts, Clock& clock,
                                    Timeline* timeline, VerifyMode mode) {
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
        const sys::ScopedThrottle slow_device(opts.throttle);
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

// One case of a group while it is measured.
struct CaseState {
    CaseResult r;
    std::unique_ptr<Fixture> fx;
    Sink sink;
    Checked checked = Checked::content;
    std::uint64_t target = 0;  // a fixed number of measured iterations; 0: adaptive
    double spent_s = 0;        // time spent on its measured iterations, harness work included
    bool done = false;
};

void fail(CaseState& c, const std::exception& e) {
    if (dynamic_cast<const CannotRun*>(&e)) {
        c.r.status = Status::skipped;
        c.r.samples.clear();
    } else {
        c.r.status = Status::failed;
    }
    c.r.reason = e.what();
    c.done = true;
}

// Whether a case has enough measured iterations.
bool enough(const CaseState& c, const RunOptions& opts) {
    const std::size_t n = c.r.samples.size();
    if (n >= opts.max_iterations) return true;
    if (c.target > 0) return n >= c.target;
    if (n < opts.min_iterations) return false;
    if (c.spent_s >= opts.budget_s) return true;
    std::vector<double> walls;
    walls.reserve(n);
    for (const auto& smp : c.r.samples) walls.push_back(smp.wall_s);
    const Summary st = summarize(walls);
    return st.median_confidence >= kMedianConfidence && st.median_precision() <= opts.precision;
}

// The warm-up of one case: its first run verifies every byte; with no warm-up asked for, a
// read still gets that one unmeasured run. Returns the duration of the last run (0: none).
double warm_up(CaseState& c, const RunOptions& opts, Clock& clock, Timeline* tl) {
    const Strategy& s = *c.r.spec.strategy;
    double last = 0;
    std::uint64_t runs = 0;
    const auto once = [&] {
        const VerifyMode mode = runs == 0 ? VerifyMode::full : opts.verify;
        const auto [smp, checked] = run_once(s, *c.fx, c.sink, opts, clock, tl, mode);
        c.checked = checked;
        ++runs;
        last = smp.wall_s;
    };
    if (opts.warmup.seconds > 0) {
        const std::uint64_t start = clock.now_ns();
        do once();
        while (static_cast<double>(clock.now_ns() - start) * 1e-9 < opts.warmup.seconds);
    } else {
        for (std::uint64_t i = 0; i < opts.warmup.count; ++i) once();
    }
    if (runs == 0 && s.family == Family::read && opts.verify != VerifyMode::full) {
        once();
        last = 0;  // not a warm-up: its duration says nothing about the next runs
    }
    return last;
}

}  // namespace

Clock& system_clock() {
    static SystemClock c;
    return c;
}

std::uint64_t iterations_for(double target_s, double run_s, std::uint64_t max_iterations) {
    if (run_s <= 0) return max_iterations;
    const double n = std::ceil(target_s / run_s);
    return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::min(n, 1e12)), 3, max_iterations);
}

std::vector<CaseResult> run_group(const std::vector<CaseSpec>& specs, const RunOptions& opts, const ScratchDir& dir,
                                  Clock& clock, const ProgressFn& progress) {
    std::vector<CaseState> cases(specs.size());
    InputPool pool(dir);
    // 1. Skips, inputs and fixtures.
    for (std::size_t i = 0; i < specs.size(); ++i) {
        CaseState& c = cases[i];
        c.r.spec = specs[i];
        const Strategy& s = *specs[i].strategy;
        if (auto why = s.skip_reason(dir.path())) {
            c.r.status = Status::skipped;
            c.r.reason = *why;
            c.done = true;
        } else if (opts.cache == CacheMode::direct && !s.direct_capable()) {
            c.r.status = Status::skipped;
            c.r.reason = "does not use O_DIRECT, which --cache direct asks for";
            c.done = true;
        } else if (opts.throttle > 0 && s.family != Family::read && (!s.throttleable() || !s.in_syscall_layer())) {
            c.r.status = Status::skipped;
            c.r.reason = "its writes bypass iolab's syscall layer, so --throttle cannot slow them down";
            c.done = true;
        }
        if (c.done) continue;
        try {
            c.fx = std::make_unique<Fixture>(specs[i].workload, dir, fmt::format("{}-{}", file_tag(s.name), i),
                                             pool.get(specs[i].workload));
            if (opts.timeline && s.records_timeline()) c.r.timeline = std::make_shared<Timeline>();
        } catch (const std::exception& e) {
            fail(c, e);
        }
    }
    // 2. One canonical warm state: every input evicted, then read back once in order (the
    // state of a file that has been read, whatever wrote it).
    if (opts.cache == CacheMode::warm)
        for (const auto& f : pool.files()) {
            if (interrupt::requested()) break;
            evict_file(f, false);
            warm_file(f);
        }
    // 3. Warm-ups, case by case.
    for (auto& c : cases) {
        if (c.done) continue;
        try {
            const double last = warm_up(c, opts, clock, c.r.timeline.get());
            if (opts.iterations.seconds > 0)
                c.target = last > 0 ? iterations_for(opts.iterations.seconds, last, opts.max_iterations) : 0;
            else if (!opts.iterations.adaptive)
                c.target = opts.iterations.count;
        } catch (const Interrupted& e) {
            fail(c, e);
            break;
        } catch (const std::exception& e) {
            fail(c, e);
        }
    }
    // 4. Measured rounds: every unfinished case once per round, in a seeded random order, so
    // that drift of a shared machine falls on every case alike.
    std::mt19937_64 rng(opts.seed);
    std::vector<std::size_t> order;
    for (std::uint64_t round = 0; !interrupt::requested(); ++round) {
        order.clear();
        for (std::size_t i = 0; i < cases.size(); ++i)
            if (!cases[i].done) order.push_back(i);
        if (order.empty()) break;
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t i : order) {
            CaseState& c = cases[i];
            if (progress) progress(i, c.r.spec);
            const Strategy& s = *c.r.spec.strategy;
            try {
                const std::uint64_t t0 = clock.now_ns();
                const auto [smp, checked] = run_once(s, *c.fx, c.sink, opts, clock, c.r.timeline.get(), opts.verify);
                c.checked = checked;
                c.r.samples.push_back(smp);
                c.spent_s += static_cast<double>(clock.now_ns() - t0) * 1e-9;
                // A time target without a warm-up: the first measured run tells.
                if (opts.iterations.seconds > 0 && c.target == 0)
                    c.target = iterations_for(opts.iterations.seconds, smp.wall_s, opts.max_iterations);
                if (enough(c, opts)) {
                    c.done = true;
                    c.r.precision_met = opts.iterations.adaptive && c.spent_s < opts.budget_s &&
                                        c.r.samples.size() < opts.max_iterations;
                }
            } catch (const Interrupted& e) {
                fail(c, e);
                break;
            } catch (const std::exception& e) {
                fail(c, e);
            }
        }
    }
    std::vector<CaseResult> out;
    out.reserve(cases.size());
    for (auto& c : cases) {
        if (c.r.status == Status::ok) {
            c.r.checked = c.checked;
            c.r.verified = c.checked == Checked::content;
        } else {
            c.r.verified = false;
            c.r.checked = Checked::none;
        }
        finish(c.r, opts, clock.resolution_s());
        c.fx.reset();
        out.push_back(std::move(c.r));
    }
    return out;
}

CaseResult run_case(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir, Clock& clock) {
    return std::move(run_group({spec}, opts, dir, clock).front());
}

}  // namespace iolab
