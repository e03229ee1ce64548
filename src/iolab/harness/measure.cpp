#include "iolab/harness/measure.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>

#include <sys/stat.h>

#include <barrier>
#include <csignal>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/harness/cache.hpp"
#include "iolab/harness/serialize.hpp"
#include "iolab/harness/team.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"
#include "iolab/sys/stop.hpp"
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

// A job for the strategy, with O_DIRECT where the cache mode asks for it.
Job job_for(const Strategy& s, Fixture& fx, Sink& sink, const RunOptions& opts, VerifyMode mode) {
    Job job = fx.job(s, sink, mode);
    job.direct = opts.cache == CacheMode::direct;
    return job;
}

// The input put in the cache state asked for; returns its resident share (-1 for writes).
double prepare_input(const Fixture& fx, const RunOptions& opts) {
    hold_cache_budget();
    if (fx.workload().family == Family::write) return -1;
    if (opts.cache == CacheMode::cold) evict_file(fx.input_path(), opts.drop_caches);
    return resident_fraction(fx.input_path());
}

// The strategy's run, and durability when the sync policy puts it inside the timed part.
void run_with_sync(const Strategy& s, const Job& job, const RunOptions& opts) {
    s.run(job);
    if (job.family != Family::read && opts.sync != SyncPolicy::none) {
        const sys::Fd out = sys::open(job.dst, O_RDONLY);
        opts.sync == SyncPolicy::fsync ? sys::fsync(out) : sys::fdatasync(out);
    }
}

// The process's CPU time, context switches and faults, its children's included (external tools
// run as child processes).
struct Usage {
    rusage self{}, children{};
    static Usage now() {
        Usage u;
        ::getrusage(RUSAGE_SELF, &u.self);
        ::getrusage(RUSAGE_CHILDREN, &u.children);
        return u;
    }
};

// What happened between two readings of the usage, into a sample.
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

// Bytes in a file (0 when it does not exist): what a stopped writer left.
std::uint64_t output_bytes(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

// An output that is not what it should be: a failure, unless a stop was asked for meanwhile (a
// tool ended by the signal may leave its output part-written and still exit 0): then the stop.
[[noreturn]] void differs(const std::string& what) {
    if (interrupt::requested()) throw Interrupted();
    throw VerificationFailed(what);
}

Checked checked_by(const Verdict& v) {
    if (v.count_only) return Checked::byte_count;
    return v.checked ? Checked::content : Checked::none;
}

}  // namespace

std::pair<Sample, Checked> measure_once(const Strategy& s, Fixture& fx, Sink& sink, const RunOptions& opts,
                                        Clock& clock, Timeline* timeline, VerifyMode mode, bool keep_output) {
    if (interrupt::requested()) throw Interrupted();
    Job job = job_for(s, fx, sink, opts, mode);
    if (timeline) {
        timeline->clear();
        job.timeline = timeline;
    }
    Sample smp;
    if (fx.workload().patterned) {
        auto latency = std::make_shared<Latency>();
        job.latency = latency.get();
        smp.latency = std::move(latency);
    }
    smp.resident = prepare_input(fx, opts);
    smp.passes = job.passes;
    job.tool_s = &smp.tool_s;

    const Usage u0 = Usage::now();
    const sys::Counters c0 = sys::thread_counters();
    const std::uint64_t t0 = clock.now_ns();
    try {
        const sys::ScopedThrottle slow_device(opts.throttle.bytes_per_s, opts.throttle.latency_s);
        run_with_sync(s, job, opts);
    } catch (const std::exception&) {
        // A stop cancels the calls in progress and ends the child processes: what that makes a
        // strategy throw (ECANCELED, a tool ended by a signal) is the stop, not a failure.
        if (interrupt::requested()) throw Interrupted();
        throw;
    }
    const std::uint64_t t1 = clock.now_ns();
    const sys::Counters made = sys::thread_counters() - c0;
    add_usage(smp, u0, Usage::now());

    smp.wall_s = static_cast<double>(t1 - t0) * 1e-9;
    smp.syscalls = made.data_calls();
    smp.all_calls = made.total_calls();
    smp.bytes = fx.workload().bytes();
    if (opts.cache_budget > 0 && fx.workload().family != Family::write)
        smp.resident_after = resident_fraction(fx.input_path());

    const Verdict v = fx.verify(job);
    if (!v.ok) differs("output differs from the input: " + v.describe());
    if (!keep_output) fx.remove_output();  // a group keeps one output on disk at a time
    return {smp, checked_by(v)};
}

namespace {

// What a rank sends rank 0 after an iteration.
std::string rank_report(const Sample& smp, Checked checked) {
    nlohmann::json j;
    j["sample"] = smp;
    j["checked"] = static_cast<int>(checked);
    return j.dump();
}

}  // namespace

bool agreed(const std::exception& e) { return !team().mpi() || dynamic_cast<const Agreed*>(&e) != nullptr; }

void raise(const Outcome& o) {
    switch (o.kind) {
        case Outcome::Kind::ok: return;
        case Outcome::Kind::skipped: throw AgreedSkip(o.why);
        case Outcome::Kind::interrupted: interrupt::request(SIGTERM); throw AgreedStop(o.why);
        case Outcome::Kind::failed: throw AgreedFailure(o.why);
    }
}

Sample combine_ranks(const std::vector<Sample>& ranks) {
    Sample all;
    std::shared_ptr<Latency> latency;
    for (const Sample& r : ranks) {
        if (r.latency) {
            if (!latency) latency = std::make_shared<Latency>();
            latency->merge(*r.latency);
        }
        all.wall_s = std::max(all.wall_s, r.wall_s);
        all.user_s += r.user_s;
        all.sys_s += r.sys_s;
        all.vol_cs += r.vol_cs;
        all.invol_cs += r.invol_cs;
        all.minor_faults += r.minor_faults;
        all.major_faults += r.major_faults;
        all.bytes += r.bytes;
        all.syscalls += r.syscalls;
        all.all_calls += r.all_calls;
        all.resident = std::max(all.resident, r.resident);
        all.job_s.insert(all.job_s.end(), r.job_s.begin(), r.job_s.end());
        all.rank_s.insert(all.rank_s.end(), r.rank_s.begin(), r.rank_s.end());
    }
    all.latency = std::move(latency);
    return all;
}

std::pair<Sample, Checked> measure_jobs(const Strategy& s, const std::vector<Fixture*>& fixtures,
                                        const std::vector<Sink*>& sinks, const RunOptions& opts, Clock& clock,
                                        Timeline* timeline, VerifyMode mode) {
    Team& tm = team();
    const std::size_t n = fixtures.size();
    const Workload& w = fixtures.front()->workload();
    std::vector<Job> jobs;
    std::vector<Latency> latencies(w.patterned ? n : 0);  // each job's operations, merged after
    // Whether this process makes (and checks the size of) the output the jobs write parts of.
    const auto makes_shared_output = [&] {
        return jobs.front().length > 0 && w.family != Family::read && fixtures.front()->makes_output();
    };
    Sample smp;
    // Step 1, on every rank: every job's input in its cache state before any starts (the proof
    // of cold is the worst), and a shared file's output made for its jobs to write their parts.
    raise(tm.agree(outcome_of([&] {
        if (interrupt::requested()) throw Interrupted();
        jobs.reserve(n);
        for (std::size_t i = 0; i < n; ++i) jobs.push_back(job_for(s, *fixtures[i], *sinks[i], opts, mode));
        for (std::size_t i = 0; i < latencies.size(); ++i) jobs[i].latency = &latencies[i];
        if (timeline) {
            timeline->clear();
            jobs.front().timeline = timeline;
        }
        if (makes_shared_output()) sys::open(jobs.front().dst, O_WRONLY | O_CREAT | O_EXCL, 0600).close();
        for (Fixture* fx : fixtures) smp.resident = std::max(smp.resident, prepare_input(*fx, opts));
    })));

    struct JobEnd {
        std::uint64_t start = 0, end = 0;
        sys::Counters made;
        std::exception_ptr error;
        bool stopped = false;  // by --stonewall, when another job had ended
    };
    std::vector<JobEnd> out(n);
    // --stonewall: set when the first job ends; the others' next call then fails with ECANCELED.
    std::atomic<bool> wall{false};
    std::barrier start_line(static_cast<std::ptrdiff_t>(n));
    // Step 2: the ranks start together, and meet again once each has ended.
    if (tm.mpi()) tm.barrier();
    const std::uint64_t released = clock.now_ns();
    const Usage u0 = Usage::now();
    {
        const sys::ScopedThrottle slow_device(opts.throttle.bytes_per_s, opts.throttle.latency_s);
        std::vector<std::jthread> threads;
        threads.reserve(n);
        const auto job_thread = [&](std::size_t i) {
            return [&, i] {
                JobEnd& o = out[i];
                start_line.arrive_and_wait();  // released together, once every thread exists
                const sys::Counters c0 = sys::thread_counters();
                std::optional<sys::ThreadStop> stop;
                if (opts.stonewall) stop.emplace(&wall);
                o.start = clock.now_ns();
                try {
                    run_with_sync(s, jobs[i], opts);
                    wall.store(true, std::memory_order_relaxed);
                } catch (const IoError& e) {
                    if (opts.stonewall && e.code() == ECANCELED && wall.load() && !sys::stop_requested_by_signal())
                        o.stopped = true;
                    else
                        o.error = std::current_exception();
                } catch (...) {
                    o.error = std::current_exception();
                }
                o.end = clock.now_ns();
                o.made = sys::thread_counters() - c0;
            };
        };
        try {
            for (std::size_t i = 0; i < n; ++i) threads.emplace_back(job_thread(i));
        } catch (...) {
            // A thread that could not start: its job failed (and the ranks agree on it below);
            // the others are released, run, and are joined.
            for (std::size_t k = threads.size(); k < n; ++k) {
                out[k].error = std::current_exception();
                start_line.arrive_and_drop();
            }
        }
    }  // every thread joined
    add_usage(smp, u0, Usage::now());
    if (tm.mpi()) tm.barrier();
    const std::uint64_t met = clock.now_ns();

    // Step 3: each job's outcome and output, on every rank.
    Checked checked = Checked::content;
    raise(tm.agree(outcome_of([&] {
        // A job ended by a stop (its calls cancelled) was stopped, not failed.
        if (interrupt::requested() && std::any_of(out.begin(), out.end(), [](const JobEnd& o) { return o.error; }))
            throw Interrupted();
        for (std::size_t i = 0; i < n; ++i)
            if (out[i].error) {
                try {
                    std::rethrow_exception(out[i].error);
                } catch (const CannotRun&) {
                    throw;  // the strategy cannot do this job at all: a skip, as for one job
                } catch (const std::exception& e) {
                    throw std::runtime_error(fmt::format("job {} of {}: {}", i + 1, n, e.what()));
                }
            }
        for (std::size_t i = 0; i < n; ++i) {
            if (out[i].stopped) {
                // A job stopped by the stonewall did part of the work: its bytes are what its sink
                // took in (reads) or its output holds (writes, copies), checked by count only.
                // A patterned write's output is laid out whole: its operations count what it did.
                const std::uint64_t done = w.patterned && w.family == Family::write ? latencies[i].count() * w.block
                                           : w.family == Family::read               ? sinks[i]->bytes()
                                                                                    : output_bytes(jobs[i].dst);
                if (done > w.bytes())
                    differs(fmt::format("job {} of {}: stopped after {} bytes, more than the {} asked for", i + 1, n,
                                        done, w.bytes()));
                smp.bytes += done;
                if (checked == Checked::content) checked = Checked::byte_count;
                continue;
            }
            smp.bytes += w.bytes();
            const Verdict v = fixtures[i]->verify(jobs[i]);
            if (!v.ok) differs(fmt::format("job {} of {}: output differs from the input: {}", i + 1, n, v.describe()));
            const Checked c = checked_by(v);
            if (c == Checked::none || (c == Checked::byte_count && checked == Checked::content)) checked = c;
        }
        // A shared output holds every part and nothing more: a job that wrote past its part's end
        // (the last part's, where no other part's check would see it) fails here. Every rank has
        // ended (the barrier above), so the maker sees all the parts.
        if (makes_shared_output()) {
            const std::uint64_t whole = w.bytes() * w.jobs * static_cast<std::uint64_t>(tm.size());
            if (const std::uint64_t size = output_bytes(jobs.front().dst); size != whole)
                differs(fmt::format("the shared output holds {} bytes, not the {} of its {} parts", size, whole,
                                    w.jobs * static_cast<unsigned>(tm.size())));
        }
    })));
    // Only once every rank has checked its part of a shared output.
    for (Fixture* fx : fixtures) fx->remove_output();

    std::uint64_t first = UINT64_MAX, last = 0;
    for (const JobEnd& o : out) {
        first = std::min(first, o.start);
        last = std::max(last, o.end);
        smp.job_s.push_back(static_cast<double>(o.end - o.start) * 1e-9);
        smp.syscalls += o.made.data_calls();
        smp.all_calls += o.made.total_calls();
    }
    smp.wall_s = static_cast<double>(last - first) * 1e-9;
    if (!latencies.empty()) {
        auto all = std::make_shared<Latency>();
        for (const Latency& l : latencies) all->merge(l);
        smp.latency = std::move(all);
    }
    if (!tm.mpi()) return {smp, checked};

    // Under MPI: this rank's own time, the span from barrier to barrier, and rank 0 takes all.
    smp.rank_s = {smp.wall_s};
    smp.wall_s = static_cast<double>(met - released) * 1e-9;
    const auto reports = tm.gather(rank_report(smp, checked));
    if (tm.rank() != 0) return {smp, checked};
    std::vector<Sample> ranks;
    for (const std::string& text : reports) {
        const auto j = nlohmann::json::parse(text);
        ranks.push_back(j.at("sample").get<Sample>());
        const auto c = static_cast<Checked>(j.at("checked").get<int>());
        if (c == Checked::none || (c == Checked::byte_count && checked == Checked::content)) checked = c;
    }
    return {combine_ranks(ranks), checked};
}

Clock& system_clock() {
    static SystemClock c;
    return c;
}

}  // namespace iolab
