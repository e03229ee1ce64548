#include "iolab/harness/runner.hpp"

#include <cmath>
#include <csignal>
#include <random>
#include <set>

#include "iolab/core/interrupt.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/measure.hpp"
#include "iolab/harness/ratio.hpp"
#include "iolab/harness/runner_steps.hpp"
#include "iolab/harness/team.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

namespace detail {

namespace {

// One run of a case's own fixture (one job, one process). One write state for every write and
// copy: the memory the group's last output held is freed just before (docs/harness.md: "The
// write state"); a read leaves that output where it is.
//
// A read from the device (cold, or O_DIRECT) frees it too, so that the writing back of that
// output's pages does not fall in the read's time.
void free_last_output(CaseState& c, const RunOptions& opts) {
    const bool device_read = opts.cache == CacheMode::cold || opts.cache == CacheMode::direct;
    if (!c.last_output || !*c.last_output || (!has_trait(c.r.spec.strategy->family, kTraitOutput) && !device_read))
        return;
    (*c.last_output)->remove_output();
    *c.last_output = nullptr;
}

std::pair<Sample, Checked> run_alone(CaseState& c, const RunOptions& opts, Clock& clock, Timeline* tl,
                                     VerifyMode mode) {
    const Strategy& s = *c.r.spec.strategy;
    const bool writes = has_trait(s.family, kTraitOutput) && c.last_output;
    const std::uint64_t freeing = clock.now_ns();
    free_last_output(c, opts);
    const std::uint64_t freed = clock.now_ns();
    CaseJob& job = c.jobs.front();
    auto out = measure_once(s, *job.fx, *job.sink, opts, clock, tl, mode, writes);
    out.first.setup_s += static_cast<double>(freed - freeing) * 1e-9;  // the last output removed: setup
    if (writes) *c.last_output = job.fx.get();
    return out;
}

}  // namespace

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

// A stop asked for (here, or on another rank) cuts the case short: it keeps what it measured,
// and says why it stopped. Returns whether e was such a stop.
bool cut_short(CaseState& c, const std::exception& e) {
    if (!dynamic_cast<const Interrupted*>(&e)) return false;
    c.r.stopped = StopReason::interrupted;
    c.r.reason = e.what();
    return true;
}

// The round trip of an empty request to a worker strategy's worker: its fixed cost.
double round_trip(const Strategy& s, const Fixture& fx, const RunOptions& opts, Clock& clock) {
    Job e;
    e.family = s.family;
    e.src = fx.input_path();
    e.dst = fx.output_path();
    e.worker.empty = true;
    e.worker.heap = opts.jvm_heap;
    e.worker.deadline_s = opts.jvm_deadline_s;
    try {
        // A worker ended by a failure starts again here, not inside the clock.
        if (s.prepare) s.prepare(e);
        const std::uint64_t t0 = clock.now_ns();
        s.run(e);
        return static_cast<double>(clock.now_ns() - t0) / 1e9;
    } catch (const std::exception&) {
        // A stop ends the worker: that is the stop, not a failure of the case.
        if (interrupt::requested()) throw Interrupted();
        throw;
    }
}

// One run of a case: its one job, or all of its jobs at once; a tool's beside its probe, a
// worker's beside an empty request (before it in one run, after it in the next, so that a drift
// of the machine falls on both alike).
std::pair<Sample, Checked> run_once(CaseState& c, const RunOptions& opts, Clock& clock, Timeline* tl, VerifyMode mode) {
    const Strategy& s = *c.r.spec.strategy;
    if (s.worker() && c.jobs.size() == 1) {
        const bool trip_first = c.r.samples.size() % 2 == 1;
        double fixed = 0;
        if (trip_first) fixed = round_trip(s, *c.jobs.front().fx, opts, clock);
        auto out = run_alone(c, opts, clock, tl, mode);
        if (!trip_first) fixed = round_trip(s, *c.jobs.front().fx, opts, clock);
        out.first.fixed_s = fixed;
        return out;
    }
    if (c.probe) {
        const bool probe_first = c.r.samples.size() % 2 == 1;
        double fixed = 0;
        const auto probe = [&] {
            fixed = measure_once(s, *c.probe, c.probe_sink, opts, clock, nullptr, mode).first.wall_s;
        };
        if (probe_first) probe();
        auto out = run_alone(c, opts, clock, tl, mode);
        if (!probe_first) probe();
        out.first.fixed_s = fixed;
        return out;
    }
    if (c.jobs.size() == 1 && !team().mpi()) return run_alone(c, opts, clock, tl, mode);
    const std::uint64_t freeing = clock.now_ns();
    free_last_output(c, opts);  // and the jobs remove their own outputs
    const std::uint64_t freed = clock.now_ns();
    std::vector<Fixture*> fixtures;
    std::vector<Sink*> sinks;
    for (CaseJob& job : c.jobs) {
        fixtures.push_back(job.fx.get());
        sinks.push_back(job.sink.get());
    }
    auto out = measure_jobs(s, fixtures, sinks, opts, clock, tl, mode);
    out.first.setup_s += static_cast<double>(freed - freeing) * 1e-9;
    return out;
}

}  // namespace detail

namespace {

using detail::CaseState;
using detail::cut_short;
using detail::fail;
using detail::run_once;

void stop(CaseState& c, StopReason why) {
    c.done = true;
    c.r.stopped = why;
}

// Whether the group has no time left (its share of the run's time budget, when racing).
bool past(Clock& clock, std::uint64_t deadline_ns) { return deadline_ns > 0 && clock.now_ns() >= deadline_ns; }

// The fewest samples of a case before its own budget (--budget) may stop it, racing.
constexpr std::size_t kMinRaceSamples = 5;

// Racing's chance of stopping a case that is not slower than the leader by more than the margin,
// over all its looks: look j spends kRaceAlpha / 2^j (one-sided), so the sum stays below it.
constexpr double kRaceAlpha = 0.01;

bool precise(const CaseResult& r, const RunOptions& opts) {
    const Summary st = summarize(r.times());
    return st.n >= opts.min_iterations && st.median > 0 && st.median_confidence >= kMedianConfidence &&
           st.median_precision() <= opts.precision;
}

// Why a case has enough measured iterations, or none: the cap, a fixed count, its own time budget
// (past its fewest samples) or, without racing, the precision target. Racing within a share of
// the run's time budget, that share and race() decide instead of the case's own budget.
StopReason enough(const CaseState& c, const RunOptions& opts, bool within_budget) {
    const std::size_t n = c.r.samples.size();
    if (n >= opts.max_iterations) return StopReason::cap;
    if (c.target > 0) return n >= c.target ? StopReason::count : StopReason::none;
    if (opts.race && within_budget) return StopReason::none;
    if (n < (opts.race ? kMinRaceSamples : opts.min_iterations)) return StopReason::none;
    if (c.spent_s >= opts.case_budget_s) return StopReason::case_budget;
    if (!opts.race && precise(c.r, opts)) return StopReason::precise;
    return StopReason::none;
}

// How much of a case's measured work is done, 0 to 1.
double done_share(const CaseState& c, const RunOptions& opts) {
    if (c.done) return 1;
    const double n = static_cast<double>(c.r.samples.size());
    if (c.target > 0) return std::min(1.0, n / static_cast<double>(c.target));
    // Adaptive: it ends at the precision target (unknown ahead), at the budget or at the cap.
    const double by_budget = opts.case_budget_s > 0 ? c.spent_s / opts.case_budget_s : 0;
    return std::min(0.99, std::max(by_budget, n / static_cast<double>(opts.max_iterations)));
}

// Whether a stop was asked for here or, under MPI, on any rank (which then stops this one too).
bool stop_agreed() {
    if (!team().any(interrupt::requested())) return false;
    interrupt::request(SIGTERM);
    return true;
}

// Racing: a case still in doubt may spend this many times the median time spent by its table's
// cases still measured, and then stops (its own budget, so that a slow and noisy case cannot take
// the whole group's share).
constexpr double kFairShare = 4;

// The cases as they stand, with their statistics (finish() on a copy).
std::vector<CaseResult> snapshot(const std::vector<CaseState>& cases, const RunOptions& opts) {
    std::vector<CaseResult> now(cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
        now[i].spec = cases[i].r.spec;
        now[i].status = cases[i].r.status;
        now[i].samples = cases[i].r.samples;
        now[i].checked = cases[i].checked;
        finish(now[i], opts, 1e-9);
    }
    return now;
}

// A table (one family of the group) as racing finds it after a round: its leader (the fastest
// median of its ranked cases, whatever its spread), how many of its cases are still measured, and
// the median time those have spent.
struct RaceTable {
    const CaseResult* leader = nullptr;
    std::size_t open = 0;
    double middle = 0;
};

RaceTable race_table(TableKey k, const std::vector<CaseState>& cases, const std::vector<CaseResult>& now) {
    RaceTable t;
    std::vector<double> spent;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        if (table_of(now[i].spec) != k) continue;
        if (now[i].ranked() && !now[i].samples.empty() &&
            (!t.leader || now[i].throughput_mib_s > t.leader->throughput_mib_s))
            t.leader = &now[i];
        if (!cases[i].done) spent.push_back(cases[i].spent_s);
    }
    t.open = spent.size();
    t.middle = spent.empty() ? 0 : summarize(spent).median;
    return t;
}

// Why racing stops one unfinished case of table t after this round, or none. `findings`: the run
// has findings or knees (racing's hold function); `held`: one of them holds this case; `released`:
// one has just let it go.
StopReason race_stop(const CaseState& c, const CaseResult& now, const RaceTable& t, bool findings, bool held,
                     bool released, const RunOptions& opts) {
    const std::size_t n = now.samples.size();
    if (const std::size_t look = released ? std::max<std::size_t>(1, looks_until(n)) : look_at(n); look > 0) {
        const double alpha = kRaceAlpha / std::ldexp(1.0, static_cast<int>(look));
        // A case a finding holds goes on while it is undecided, precise or not.
        if (precise(c.r, opts) && !(held && findings)) return StopReason::precise;
        if (!held && t.leader && &now != t.leader &&
            order_at(ratio_of(now, *t.leader, 1 - 2 * alpha), opts.margin) == Order::slower)
            return StopReason::clearly_slower;
    }
    if (t.open > 1 && n > (held && findings ? kHeldSamples - 1 : kMinRaceSamples) && c.spent_s > kFairShare * t.middle)
        return StopReason::case_budget;
    // In a run with findings, the time goes to what they need: a case none holds (any more) stops
    // once its table can place it.
    if (findings && !held && n >= kPlacedSamples) return StopReason::settled;
    return StopReason::none;
}

// Racing, after a round: the unfinished cases whose place in an answer is decided stop. Within
// each family of the group (a table), a case is looked at when its sample count reaches 1, 2, 3,
// 5, 8, 12, ... (ratio.hpp): it stops when it is precise; when the table's leader is shown faster
// than it by more than the margin, by the interval of their comparison at that look's confidence,
// so that it cannot be in the winner group. The last case of a table still measured has no fair
// share to pass: outside a findings run it goes on until it is precise, as its figure is what a
// later run is compared with. The leader and the cases a knee or finding holds
// samples on are never stopped as slower; a case `holds` has just let go is looked at then. Every
// round, a case past its fair share of the table's time stops too (with `holds`, a held one once
// it has kHeldSamples), and with `holds`, a case no finding or knee holds stops as settled once it
// has kPlacedSamples: the run is for its findings, and its tables are answered from what they have.
void race(std::vector<CaseState>& cases, const RunOptions& opts, std::vector<bool>& held, const HoldFn& holds) {
    const std::vector<CaseResult> now = snapshot(cases, opts);
    std::vector<bool> released(cases.size(), false);
    if (holds) {
        std::vector<bool> still = holds(now);
        still.resize(cases.size(), false);
        for (std::size_t i = 0; i < cases.size(); ++i) released[i] = held[i] && !still[i];
        held = std::move(still);
    }
    std::set<TableKey> tables;  // in the same order on every rank (the leader's decisions)
    for (const CaseResult& r : now) tables.insert(table_of(r.spec));
    for (const TableKey& k : tables) {
        RaceTable t = race_table(k, cases, now);
        for (std::size_t i = 0; i < cases.size(); ++i) {
            CaseState& c = cases[i];
            if (c.done || table_of(now[i].spec) != k || now[i].samples.empty()) continue;
            StopReason why = race_stop(c, now[i], t, static_cast<bool>(holds), held[i], released[i], opts);
            // Rank 0 holds every rank's samples and decides for all.
            why = static_cast<StopReason>(team().leader(static_cast<std::uint64_t>(why)));
            if (why != StopReason::none) {
                stop(c, why);
                --t.open;
            }
        }
    }
}

// What the session runs after round `round` (a peer's runs), when another round follows: its time is
// none of the group's, so the deadline moves by it.
void between_rounds(const std::vector<CaseState>& cases, Clock& clock,
                    const std::function<void(std::uint64_t)>& after_round, std::uint64_t round,
                    std::uint64_t& deadline_ns) {
    const bool more = std::any_of(cases.begin(), cases.end(), [](const CaseState& c) { return !c.done; });
    if (!after_round || !more || stop_agreed()) return;
    const std::uint64_t t0 = clock.now_ns();
    after_round(round);
    if (deadline_ns > 0) deadline_ns += clock.now_ns() - t0;
}

// A racing group's deadline (0: none), and the time outside its budget its runs' own setup may still
// move it by (Sample::setup_s), and has moved it by.
struct Deadline {
    std::uint64_t at_ns = 0;
    std::uint64_t outside_ns = 0;
    std::uint64_t moved_ns = 0;
    void move_by_setup(std::uint64_t setup_ns) {
        if (at_ns == 0) return;
        const std::uint64_t moved = std::min(setup_ns, outside_ns);
        at_ns += moved;
        outside_ns -= moved;
        moved_ns += moved;
    }
};

// Step 4: measured rounds: every unfinished case once per round, in a seeded random order, so
// that drift of a shared machine falls on every case alike. Racing, a round measures only the
// cases still in doubt, until the group's share of the time budget (deadline_ns) is spent. Each
// run's own setup (Sample::setup_s: a tree laid out for a removal and synced, an input evicted)
// moves the deadline, up to `outside_ns` in all: a group whose runs set up longer than they measure
// still ends. Returns the time that moved it.
double measure_rounds(std::vector<CaseState>& cases, const RunOptions& opts, Clock& clock, const ProgressFn& progress,
                      std::vector<bool>& held, const HoldFn& holds, std::uint64_t deadline_ns, std::uint64_t outside_ns,
                      const std::function<void(std::uint64_t)>& after_round) {
    Deadline deadline{deadline_ns, outside_ns};
    std::mt19937_64 rng(opts.order_seed);
    std::vector<std::size_t> order;
    const bool racing = opts.race && opts.iterations.adaptive;
    // The share of the group's work done, kept up to date case by case (a run only changes its
    // own case's share).
    std::vector<double> share(cases.size());
    double done = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) done += share[i] = done_share(cases[i], opts);
    const auto update = [&](std::size_t i) {
        const double now = done_share(cases[i], opts);
        done += now - share[i];
        share[i] = now;
    };
    const auto out_of_time = [&] {
        if (!racing || deadline.at_ns == 0 || !team().leader(past(clock, deadline.at_ns))) return false;
        for (auto& c : cases)
            if (!c.done) stop(c, StopReason::run_budget);
        return true;
    };
    bool cut = false;  // a case was cut short by a stop: the rounds end
    for (std::uint64_t round = 0; !cut && !stop_agreed(); ++round) {
        order.clear();
        for (std::size_t i = 0; i < cases.size(); ++i)
            if (!cases[i].done) order.push_back(i);
        if (order.empty() || out_of_time()) break;
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t i : order) {
            CaseState& c = cases[i];
            if (out_of_time()) break;
            if (progress) progress(i, c.r.spec, std::clamp(done / static_cast<double>(cases.size()), 0.0, 1.0));
            try {
                const std::uint64_t t0 = clock.now_ns();
                const auto [smp, checked] = run_once(c, opts, clock, c.r.timeline.get(), opts.verify);
                c.checked = checked;
                c.r.samples.push_back(smp);
                // The run's own setup is never the case's time; it moves the group's deadline
                // while the allowance lasts.
                const std::uint64_t took = clock.now_ns() - t0;
                const std::uint64_t setup = std::min(static_cast<std::uint64_t>(smp.setup_s * 1e9), took);
                c.spent_s += static_cast<double>(took - setup) * 1e-9;
                deadline.move_by_setup(setup);
                // A time target without a warm-up: the first measured run tells.
                if (opts.iterations.seconds > 0 && c.target == 0)
                    c.target = team().leader(iterations_for(opts.iterations.seconds, smp.wall_s, opts.max_iterations));
                // Rank 0 holds every rank's samples.
                const auto why = static_cast<StopReason>(
                    team().leader(static_cast<std::uint64_t>(enough(c, opts, deadline.at_ns > 0))));
                if (why != StopReason::none) stop(c, why);
            } catch (const std::exception& e) {
                if (!agreed(e)) throw;  // under MPI: the ranks are out of step, the job ends
                if ((cut = cut_short(c, e))) break;
                fail(c, e);
            }
            update(i);
        }
        if (racing && !cut) {
            race(cases, opts, held, holds);
            for (std::size_t i = 0; i < cases.size(); ++i) update(i);
        }
        if (!cut) between_rounds(cases, clock, after_round, round, deadline.at_ns);
    }
    // Cut short by a signal: what they have is kept, and says so.
    for (auto& c : cases)
        if (!c.done && c.r.status == Status::ok) c.r.stopped = StopReason::interrupted;
    return static_cast<double>(deadline.moved_ns) * 1e-9;
}

// Step 5: the result of a case, with its statistics and warnings.
CaseResult collect(CaseState& c, const RunOptions& opts, Clock& clock) {
    // A case whose group ran out of time before it had a sample was not measured. (One a signal
    // stopped before its first sample is left out of the partial report by the session.)
    if (c.r.status == Status::ok && c.r.samples.empty() && c.r.stopped != StopReason::interrupted) {
        c.r.status = Status::skipped;
        c.r.reason = "the time budget was spent before its first sample (raise --time-budget)";
    }
    if (c.r.status == Status::ok) {
        c.r.checked = c.checked;
        c.r.verified = c.checked == Checked::content;
    } else {
        c.r.verified = false;
        c.r.checked = Checked::none;
    }
    finish(c.r, opts, clock.resolution_s());
    c.jobs.clear();
    c.probe.reset();
    return std::move(c.r);
}

}  // namespace

std::uint64_t iterations_for(double target_s, double run_s, std::uint64_t max_iterations) {
    if (run_s <= 0) return max_iterations;
    const double n = std::ceil(target_s / run_s);
    return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::min(n, 1e12)), 3, max_iterations);
}

std::vector<CaseResult> run_group(const std::vector<CaseSpec>& specs, const RunOptions& opts, const ScratchDir& dir,
                                  Clock& clock, const ProgressFn& progress, const std::vector<bool>& held,
                                  const HoldFn& holds, double budget_s, const GroupEvents& events) {
    // What a strategy keeps between runs (the JVM's worker) serves one group: torn down here, however
    // the group ends.
    struct TearDown {
        const std::vector<CaseSpec>& specs;
        ~TearDown() {
            std::set<const Strategy*> done;
            for (const CaseSpec& s : specs)
                if (s.strategy && s.strategy->teardown && done.insert(s.strategy).second) s.strategy->teardown();
        }
    } tear_down_at_end{specs};
    Fixture* last_output = nullptr;
    const std::uint64_t began = clock.now_ns();
    std::vector<CaseState> cases(specs.size());
    for (auto& c : cases) c.last_output = &last_output;
    InputPool pool(dir);
    detail::prepare(cases, specs, opts, dir, pool);
    if (opts.cache == CacheMode::warm) detail::bring_to_warm_state(pool);
    // Racing, the group's share of the run's time budget counts from here, as criterion keeps its
    // warm-up time apart from its measurement time: laying out the inputs (a tree of 20,000 files
    // took 5.8-15 s on virtual disks) and each case's warm-up (25 cases of 20,000 files spent a 60 s budget on them,
    // leaving no case a sample) are setup, outside it; the budget is for samples.
    detail::warm_up_all(cases, opts, clock, pool);
    const std::uint64_t set_up = clock.now_ns();
    if (events.set_up) events.set_up(static_cast<double>(set_up - began) * 1e-9);
    const bool racing = opts.race && opts.iterations.adaptive && budget_s > 0;
    const auto budget_ns = static_cast<std::uint64_t>(budget_s * 1e9);
    const std::uint64_t deadline = racing ? set_up + budget_ns : 0;
    std::vector<bool> hold(held);
    hold.resize(specs.size(), false);
    // The runs' own setup is outside the budget too, up to as much time again.
    const double runs_set_up =
        measure_rounds(cases, opts, clock, progress, hold, holds, deadline, racing ? budget_ns : 0, events.after_round);
    if (events.set_up && runs_set_up > 0) events.set_up(runs_set_up);
    std::vector<CaseResult> out;
    out.reserve(cases.size());
    for (auto& c : cases) out.push_back(collect(c, opts, clock));
    return out;
}

CaseResult run_case(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir, Clock& clock) {
    return std::move(run_group({spec}, opts, dir, clock).front());
}

}  // namespace iolab
