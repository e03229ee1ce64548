#include "iolab/harness/runner.hpp"

#include <cerrno>
#include <cmath>
#include <csignal>
#include <random>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/harness/cache.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/measure.hpp"
#include "iolab/harness/team.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

namespace {

std::string file_tag(const std::string& name) {
    std::string t = name;
    for (char& c : t)
        if (c == '.') c = '_';
    return t;
}

// One case of a group while it is measured.
struct CaseState {
    CaseResult r;
    std::unique_ptr<Fixture> fx;
    Sink sink;
    // Jobs 2 and up (--jobs): each its own fixture and sink.
    std::vector<std::unique_ptr<Fixture>> more_fx;
    std::vector<std::unique_ptr<Sink>> more_sinks;
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

// One run of a case: its one job, or all of its jobs at once.
std::pair<Sample, Checked> run_once(CaseState& c, const RunOptions& opts, Clock& clock, Timeline* tl, VerifyMode mode) {
    const Strategy& s = *c.r.spec.strategy;
    if (c.more_fx.empty() && !team().mpi()) return measure_once(s, *c.fx, c.sink, opts, clock, tl, mode);
    std::vector<Fixture*> fixtures{c.fx.get()};
    std::vector<Sink*> sinks{&c.sink};
    for (std::size_t j = 0; j < c.more_fx.size(); ++j) {
        fixtures.push_back(c.more_fx[j].get());
        sinks.push_back(c.more_sinks[j].get());
    }
    return measure_jobs(s, fixtures, sinks, opts, clock, tl, mode);
}

// The warm-up of one case: its first run verifies every byte; with no warm-up asked for, a
// read still gets that one unmeasured run. Returns the duration of the last run (0: none).
double warm_up(CaseState& c, const RunOptions& opts, Clock& clock, Timeline* tl) {
    const Strategy& s = *c.r.spec.strategy;
    double last = 0;
    std::uint64_t runs = 0;
    const auto once = [&] {
        const VerifyMode mode = runs == 0 ? VerifyMode::full : opts.verify;
        const auto [smp, checked] = run_once(c, opts, clock, tl, mode);
        c.checked = checked;
        ++runs;
        last = smp.wall_s;
    };
    if (opts.warmup.seconds > 0) {
        const std::uint64_t start = clock.now_ns();
        do once();  // rank 0's clock says when the warm-up is over, for every rank
        while (team().leader(static_cast<double>(clock.now_ns() - start) * 1e-9 < opts.warmup.seconds));
    } else {
        for (std::uint64_t i = 0; i < opts.warmup.count; ++i) once();
    }
    if (runs == 0 && s.family == Family::read && opts.verify != VerifyMode::full) {
        once();
        last = 0;  // not a warm-up: its duration says nothing about the next runs
    }
    return last;
}

// Whether the case's jobs share one file: --shared-file with more than one job in all (of all
// ranks, under MPI).
bool shares_file(const RunOptions& opts, const Workload& w) {
    return opts.shared_file && w.jobs * static_cast<unsigned>(team().size()) > 1;
}

// Why a strategy cannot run under these options here, or "".
std::string skip_reason(const Strategy& s, const Workload& w, const RunOptions& opts, const ScratchDir& dir) {
    if (auto why = s.skip_reason(dir.path())) return *why;
    if (opts.cache == CacheMode::direct && !s.direct_capable())
        return "does not use O_DIRECT, which --cache direct asks for";
    if (opts.throttle.active() && s.family != Family::read && (!s.throttleable() || !s.in_syscall_layer()))
        return "its writes bypass iolab's syscall layer, so --throttle cannot slow them down";
    if (team().source_rank() != team().rank() && s.external() && w.family != Family::write)
        return "runs in another process, which cannot reach another rank's scratch folder through iolab's "
               "descriptors; --rank-shift cannot shift it";
    if (shares_file(opts, w) && !s.does_parts())
        return "works on whole files only; --shared-file gives each job a part of one file";
    if (opts.stonewall && (s.external() || s.own_threads()))
        return "--stonewall stops a job between the system calls of its own thread; this strategy moves data in "
               "another process or on threads of its own";
    return {};
}

// The input a case of this rank reads: its own, or under MPI with --rank-shift the same input of
// the rank it is shifted to (the same name in that rank's scratch folder).
void shift_input(Fixture& fx, const ScratchDir& dir) {
    const Team& tm = team();
    if (!tm.mpi() || tm.source_rank() == tm.rank() || fx.workload().family == Family::write) return;
    const std::string& own = fx.input_path();
    fx.read_from(dir.sibling_at(tm.scratch_names().at(static_cast<std::size_t>(tm.source_rank())),
                                own.substr(own.rfind('/') + 1)));
}

// Step 1: skips, inputs and fixtures. Under MPI the ranks agree on each case: one rank's skip or
// failure is every rank's.
void prepare(std::vector<CaseState>& cases, const std::vector<CaseSpec>& specs, const RunOptions& opts,
             const ScratchDir& dir, InputPool& pool) {
    Team& tm = team();
    for (std::size_t i = 0; i < specs.size(); ++i) {
        CaseState& c = cases[i];
        c.r.spec = specs[i];
        const Strategy& s = *specs[i].strategy;
        const Workload& w = specs[i].workload;
        const std::string tag = fmt::format("{}-{}", file_tag(s.name), i);
        const bool shared = shares_file(opts, w);
        const unsigned parts = w.jobs * static_cast<unsigned>(tm.size());
        Outcome o = tm.agree(outcome_of([&] {
            if (std::string why = skip_reason(s, w, opts, dir); !why.empty()) throw CannotRun(why);
            if (shared) {
                if (tm.rank() == 0) pool.make_shared(w, parts);  // empty, of its whole size
                return;
            }
            c.fx = std::make_unique<Fixture>(w, dir, tag, pool.get(w));
            for (unsigned j = 1; j < w.jobs; ++j) {
                c.more_fx.push_back(std::make_unique<Fixture>(w, dir, fmt::format("{}-job{}", tag, j), pool.get(w, j)));
                c.more_sinks.push_back(std::make_unique<Sink>());
            }
            shift_input(*c.fx, dir);
            for (auto& fx : c.more_fx) shift_input(*fx, dir);
        }));
        // One input and one output for every job (of every rank, under MPI), in rank 0's folder:
        // once rank 0 has made the input, each rank writes its own parts (rank R's jobs' parts
        // R x jobs + k) and reads, copies or writes those of the rank it is shifted to (itself
        // unless --rank-shift).
        if (o.ok() && shared)
            o = tm.agree(outcome_of([&] {
                InputPool::Shared layout;
                layout.parts = parts;
                layout.write_first = static_cast<unsigned>(tm.rank()) * w.jobs;
                layout.write_count = w.jobs;
                layout.read_first = static_cast<unsigned>(tm.source_rank()) * w.jobs;
                layout.read_count = w.jobs;
                if (tm.rank() != 0) layout.maker_folder = tm.scratch_names().at(0);
                const auto input = pool.get_shared(w, layout);
                for (unsigned j = 0; j < w.jobs; ++j) {
                    auto fx = std::make_unique<Fixture>(w, dir, tag, input, layout.read_first + j);
                    if (tm.rank() != 0) fx->write_into(dir.sibling_at(layout.maker_folder, tag + ".out"));
                    if (j == 0) {
                        c.fx = std::move(fx);
                    } else {
                        c.more_fx.push_back(std::move(fx));
                        c.more_sinks.push_back(std::make_unique<Sink>());
                    }
                }
            }));
        if (o.ok()) {
            if (opts.timeline && s.records_timeline()) c.r.timeline = std::make_shared<Timeline>();
            continue;
        }
        c.r.status = o.kind == Outcome::Kind::skipped ? Status::skipped : Status::failed;
        c.r.reason = o.why;
        c.done = true;
    }
}

// Step 2: one canonical warm state: every input evicted, then read back once in order (the
// state of a file that has been read, whatever wrote it).
void bring_to_warm_state(const InputPool& pool) {
    for (const auto& f : pool.files()) {
        if (interrupt::requested()) break;
        try {
            evict_file(f, false);
            warm_file(f);
        } catch (const IoError& e) {
            // A signal cancels the reading back (ECANCELED): the run stops at its next safe point.
            if (e.code() != ECANCELED || !interrupt::requested()) throw;
            break;
        }
    }
}

// Step 3: the warm-ups, case by case, and the iteration count each case aims for.
void warm_up_all(std::vector<CaseState>& cases, const RunOptions& opts, Clock& clock) {
    for (auto& c : cases) {
        if (c.done) continue;
        try {
            const double last = warm_up(c, opts, clock, c.r.timeline.get());
            if (opts.iterations.seconds > 0)
                c.target = last > 0 ? iterations_for(opts.iterations.seconds, last, opts.max_iterations) : 0;
            else if (!opts.iterations.adaptive)
                c.target = opts.iterations.count;
            c.target = team().leader(c.target);  // rank 0's warm-up decides for every rank
        } catch (const std::exception& e) {
            if (!agreed(e)) throw;  // under MPI: the ranks are out of step, the job ends
            fail(c, e);
            if (dynamic_cast<const Interrupted*>(&e)) break;
        }
    }
}

// How much of a case's measured work is done, 0 to 1.
double done_share(const CaseState& c, const RunOptions& opts) {
    if (c.done) return 1;
    const double n = static_cast<double>(c.r.samples.size());
    if (c.target > 0) return std::min(1.0, n / static_cast<double>(c.target));
    // Adaptive: it ends at the precision target (unknown ahead), at the budget or at the cap.
    const double by_budget = opts.budget_s > 0 ? c.spent_s / opts.budget_s : 0;
    return std::min(0.99, std::max(by_budget, n / static_cast<double>(opts.max_iterations)));
}

// Whether a stop was asked for here or, under MPI, on any rank (which then stops this one too).
bool stop_agreed() {
    if (!team().any(interrupt::requested())) return false;
    interrupt::request(SIGTERM);
    return true;
}

// Step 4: measured rounds: every unfinished case once per round, in a seeded random order, so
// that drift of a shared machine falls on every case alike.
void measure_rounds(std::vector<CaseState>& cases, const RunOptions& opts, Clock& clock, const ProgressFn& progress) {
    std::mt19937_64 rng(opts.seed);
    std::vector<std::size_t> order;
    // The share of the group's work done, kept up to date case by case (a run only changes its
    // own case's share).
    std::vector<double> share(cases.size());
    double done = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) done += share[i] = done_share(cases[i], opts);
    for (std::uint64_t round = 0; !stop_agreed(); ++round) {
        order.clear();
        for (std::size_t i = 0; i < cases.size(); ++i)
            if (!cases[i].done) order.push_back(i);
        if (order.empty()) break;
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t i : order) {
            CaseState& c = cases[i];
            if (progress) progress(i, c.r.spec, std::clamp(done / static_cast<double>(cases.size()), 0.0, 1.0));
            try {
                const std::uint64_t t0 = clock.now_ns();
                const auto [smp, checked] = run_once(c, opts, clock, c.r.timeline.get(), opts.verify);
                c.checked = checked;
                c.r.samples.push_back(smp);
                c.spent_s += static_cast<double>(clock.now_ns() - t0) * 1e-9;
                // A time target without a warm-up: the first measured run tells.
                if (opts.iterations.seconds > 0 && c.target == 0)
                    c.target = team().leader(iterations_for(opts.iterations.seconds, smp.wall_s, opts.max_iterations));
                if (team().leader(enough(c, opts))) {  // rank 0 holds every rank's samples
                    c.done = true;
                    c.r.precision_met = opts.iterations.adaptive && c.spent_s < opts.budget_s &&
                                        c.r.samples.size() < opts.max_iterations;
                }
            } catch (const std::exception& e) {
                if (!agreed(e)) throw;  // under MPI: the ranks are out of step, the job ends
                fail(c, e);
                if (dynamic_cast<const Interrupted*>(&e)) break;
            }
            const double now = done_share(c, opts);
            done += now - share[i];
            share[i] = now;
        }
    }
}

// Step 5: the result of a case, with its statistics and warnings.
CaseResult collect(CaseState& c, const RunOptions& opts, Clock& clock) {
    if (c.r.status == Status::ok) {
        c.r.checked = c.checked;
        c.r.verified = c.checked == Checked::content;
    } else {
        c.r.verified = false;
        c.r.checked = Checked::none;
    }
    finish(c.r, opts, clock.resolution_s());
    c.fx.reset();
    c.more_fx.clear();
    return std::move(c.r);
}

}  // namespace

std::uint64_t iterations_for(double target_s, double run_s, std::uint64_t max_iterations) {
    if (run_s <= 0) return max_iterations;
    const double n = std::ceil(target_s / run_s);
    return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::min(n, 1e12)), 3, max_iterations);
}

std::vector<CaseResult> run_group(const std::vector<CaseSpec>& specs, const RunOptions& opts, const ScratchDir& dir,
                                  Clock& clock, const ProgressFn& progress) {
    std::vector<CaseState> cases(specs.size());
    InputPool pool(dir);
    prepare(cases, specs, opts, dir, pool);
    if (opts.cache == CacheMode::warm) bring_to_warm_state(pool);
    warm_up_all(cases, opts, clock);
    measure_rounds(cases, opts, clock, progress);
    std::vector<CaseResult> out;
    out.reserve(cases.size());
    for (auto& c : cases) out.push_back(collect(c, opts, clock));
    return out;
}

CaseResult run_case(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir, Clock& clock) {
    return std::move(run_group({spec}, opts, dir, clock).front());
}

}  // namespace iolab
