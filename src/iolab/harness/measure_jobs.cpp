// measure_jobs: a case's jobs at once, one thread each, and under MPI every rank's at once; and
// combine_ranks, which makes one sample of every rank's.
#include <fcntl.h>

#include <atomic>
#include <barrier>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/harness/measure.hpp"
#include "iolab/harness/measure_steps.hpp"
#include "iolab/harness/serialize.hpp"
#include "iolab/harness/team.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"
#include "iolab/sys/stop.hpp"
#include "iolab/sys/throttle.hpp"

namespace iolab {

namespace {

using detail::add_calls;
using detail::add_usage;
using detail::differs;
using detail::output_bytes;
using detail::Span;
using detail::Usage;
using detail::weaker;

// One run of a case's jobs in this process, step by step (measure_jobs has the order).
class JobsRun {
public:
    JobsRun(const Strategy& s, const std::vector<Fixture*>& fixtures, const std::vector<Sink*>& sinks,
            const RunOptions& opts, Clock& clock)
        : s_(s),
          fixtures_(fixtures),
          sinks_(sinks),
          opts_(opts),
          clock_(clock),
          w_(fixtures.front()->workload()),
          latencies_(w_.op_bytes() > 0 ? fixtures.size() : 0),
          out_(fixtures.size()) {}

    // Every job's input in its cache state before any starts (the proof of cold is the worst),
    // and a shared file's output made for its jobs to write their parts. The timeline, when
    // given, records the first job.
    void prepare(Timeline* timeline, VerifyMode mode) {
        if (interrupt::requested()) throw Interrupted();
        jobs_.reserve(fixtures_.size());
        for (std::size_t i = 0; i < fixtures_.size(); ++i)
            jobs_.push_back(detail::job_for(s_, *fixtures_[i], *sinks_[i], opts_, mode));
        for (std::size_t i = 0; i < latencies_.size(); ++i) jobs_[i].latency = &latencies_[i];
        if (s_.prepare)  // before the clock: a durable log laid out
            for (const Job& j : jobs_) s_.prepare(j);
        detail::attach_timeline(jobs_.front(), timeline);
        if (makes_shared_output()) sys::open(jobs_.front().dst, O_WRONLY | O_CREAT | O_EXCL, 0600).close();
        for (Fixture* fx : fixtures_) smp_.resident = std::max(smp_.resident, detail::prepare_input(*fx, opts_));
    }

    // The jobs, one thread each, released together once every thread exists; returns once every
    // thread is joined. A thread that could not start: its job failed; the others run.
    void run() {
        const std::size_t n = jobs_.size();
        std::barrier start_line(static_cast<std::ptrdiff_t>(n));
        const Usage u0 = Usage::now();
        {
            const sys::ScopedThrottle slow_device(opts_.throttle.bytes_per_s, opts_.throttle.latency_s);
            std::vector<std::jthread> threads;
            threads.reserve(n);
            try {
                for (std::size_t i = 0; i < n; ++i)
                    threads.emplace_back([this, i, &start_line] {
                        start_line.arrive_and_wait();
                        run_job(i);
                    });
            } catch (...) {
                for (std::size_t k = threads.size(); k < n; ++k) {
                    out_[k].error = std::current_exception();
                    start_line.arrive_and_drop();
                }
            }
        }  // every thread joined
        add_usage(smp_, u0, Usage::now());
    }

    // Each job's outcome and output: a job's failure fails the run, naming it; a stop is the
    // stop. Returns what was checked.
    Checked check() {
        // A job ended by a stop (its calls cancelled) was stopped, not failed.
        if (interrupt::requested() && std::any_of(out_.begin(), out_.end(), [](const JobEnd& o) { return o.error; }))
            throw Interrupted();
        rethrow_failure();
        Checked checked = Checked::content;
        for (std::size_t i = 0; i < jobs_.size(); ++i) {
            if (out_[i].stopped) {
                smp_.bytes += stopped_bytes(i);
                checked = weaker(checked, Checked::byte_count);
                continue;
            }
            smp_.bytes += w_.bytes();
            checked = weaker(checked, detail::verify_output(*fixtures_[i], jobs_[i], job_name(i) + ": "));
            detail::check_syncs(s_, w_, out_[i].span.made, job_name(i) + ": ");
        }
        if (makes_shared_output()) check_shared_output();
        return checked;
    }

    // The sample of this process's jobs: from the first start to the last end.
    Sample sample() {
        std::uint64_t first = UINT64_MAX, last = 0;
        for (const JobEnd& o : out_) {
            first = std::min(first, o.span.start);
            last = std::max(last, o.span.end);
            smp_.job_s.push_back(o.span.seconds());
            add_calls(smp_, o.span.made);
        }
        smp_.wall_s = static_cast<double>(last - first) * 1e-9;
        if (!latencies_.empty()) {
            auto all = std::make_shared<Latency>();
            for (const Latency& l : latencies_) all->merge(l);
            smp_.latency = std::move(all);
        }
        return smp_;
    }

private:
    struct JobEnd {
        Span span;
        std::exception_ptr error;
        bool stopped = false;  // by --stonewall, when another job had ended
    };

    // Job i on its own thread. --stonewall: the first job to end sets wall_, and the others'
    // next call then fails with ECANCELED.
    void run_job(std::size_t i) {
        JobEnd& o = out_[i];
        std::optional<sys::ThreadStop> stop;
        if (opts_.stonewall) stop.emplace(&wall_);
        o.span = detail::timed(clock_, [&] {
            try {
                detail::run_with_sync(s_, jobs_[i], opts_);
                wall_.store(true, std::memory_order_relaxed);
            } catch (const IoError& e) {
                if (opts_.stonewall && e.code() == ECANCELED && wall_.load() && !sys::stop_requested_by_signal())
                    o.stopped = true;
                else
                    o.error = std::current_exception();
            } catch (...) {
                o.error = std::current_exception();
            }
        });
    }

    std::string job_name(std::size_t i) const { return fmt::format("job {} of {}", i + 1, jobs_.size()); }

    // The first failed job's error, naming the job; a CannotRun as it is (the strategy cannot do
    // this job at all: a skip, as for one job).
    void rethrow_failure() const {
        for (std::size_t i = 0; i < out_.size(); ++i)
            if (out_[i].error) {
                try {
                    std::rethrow_exception(out_[i].error);
                } catch (const CannotRun&) {
                    throw;
                } catch (const std::exception& e) {
                    throw std::runtime_error(fmt::format("{}: {}", job_name(i), e.what()));
                }
            }
    }

    // A job stopped by the stonewall did part of the work: its bytes are what its sink took in
    // (reads) or its output holds (writes, copies), checked by count only. A patterned write's
    // output is laid out whole: its operations count what it did.
    std::uint64_t stopped_bytes(std::size_t i) const {
        const std::uint64_t done = w_.patterned && w_.family == Family::write ? latencies_[i].count() * w_.block
                                   : !has_trait(w_.family, kTraitOutput)      ? sinks_[i]->bytes()
                                                                              : output_bytes(jobs_[i].dst);
        if (done > w_.bytes())
            differs(
                fmt::format("{}: stopped after {} bytes, more than the {} asked for", job_name(i), done, w_.bytes()));
        return done;
    }

    // Whether this process makes (and checks the size of) the output the jobs write parts of.
    bool makes_shared_output() const {
        return jobs_.front().part.length > 0 && has_trait(w_.family, kTraitOutput) && fixtures_.front()->makes_output();
    }

    // A shared output holds every part and nothing more: a job that wrote past its part's end
    // (the last part's, where no other part's check would see it) fails here. Every rank has
    // ended (measure_jobs's barrier), so the maker sees all the parts.
    void check_shared_output() const {
        const unsigned parts = w_.jobs * static_cast<unsigned>(team().size());
        const std::uint64_t whole = w_.bytes() * w_.jobs * static_cast<std::uint64_t>(team().size());
        if (const std::uint64_t size = output_bytes(jobs_.front().dst); size != whole)
            differs(fmt::format("the shared output holds {} bytes, not the {} of its {} parts", size, whole, parts));
    }

    const Strategy& s_;
    const std::vector<Fixture*>& fixtures_;
    const std::vector<Sink*>& sinks_;
    const RunOptions& opts_;
    Clock& clock_;
    const Workload& w_;
    std::vector<Job> jobs_;
    std::vector<Latency> latencies_;  // each job's operations, merged after
    std::vector<JobEnd> out_;
    std::atomic<bool> wall_{false};
    Sample smp_;
};

// What a rank sends rank 0 after an iteration.
std::string rank_report(const Sample& smp, Checked checked) {
    nlohmann::json j;
    j["sample"] = smp;
    j["checked"] = static_cast<int>(checked);
    return j.dump();
}

// Under MPI: this rank's own time, the span from barrier to barrier (span_s), and rank 0 takes
// every rank's sample and check.
std::pair<Sample, Checked> gather_ranks(Sample smp, Checked checked, double span_s) {
    Team& tm = team();
    smp.rank_s = {smp.wall_s};
    smp.wall_s = span_s;
    const auto reports = tm.gather(rank_report(smp, checked));
    if (tm.rank() != 0) return {smp, checked};
    std::vector<Sample> ranks;
    for (const std::string& text : reports) {
        const auto j = nlohmann::json::parse(text);
        ranks.push_back(j.at("sample").get<Sample>());
        checked = weaker(checked, static_cast<Checked>(j.at("checked").get<int>()));
    }
    return {combine_ranks(ranks), checked};
}

}  // namespace

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
    JobsRun run(s, fixtures, sinks, opts, clock);
    // Step 1, on every rank: the inputs in their cache states, a shared output made.
    const std::uint64_t entered = clock.now_ns();
    raise(tm.agree(outcome_of([&] { run.prepare(timeline, mode); })));
    std::uint64_t setup_ns = clock.now_ns() - entered;
    // Step 2: the ranks start together, and meet again once each has ended.
    if (tm.mpi()) tm.barrier();
    const std::uint64_t released = clock.now_ns();
    run.run();
    if (tm.mpi()) tm.barrier();
    const std::uint64_t met = clock.now_ns();
    // Step 3: each job's outcome and output, on every rank.
    Checked checked = Checked::content;
    raise(tm.agree(outcome_of([&] { checked = run.check(); })));
    // Only once every rank has checked its part of a shared output.
    const std::uint64_t removing = clock.now_ns();
    for (Fixture* fx : fixtures) fx->remove_output();
    setup_ns += clock.now_ns() - removing;
    Sample smp = run.sample();
    smp.setup_s = static_cast<double>(setup_ns) * 1e-9;
    if (!tm.mpi()) return {smp, checked};
    auto all = gather_ranks(smp, checked, static_cast<double>(met - released) * 1e-9);
    all.first.setup_s = smp.setup_s;  // this rank's: rank 0's decides the group's deadline
    return all;
}

}  // namespace iolab
