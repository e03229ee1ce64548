// The steps of run_group before its measured rounds: skips, inputs and fixtures, the warm state
// and the warm-ups (runner_steps.hpp).
#include <algorithm>
#include <cerrno>
#include <cmath>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/harness/cache.hpp"
#include "iolab/harness/measure.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/harness/runner_steps.hpp"
#include "iolab/harness/team.hpp"
#include "iolab/sys/error.hpp"

namespace iolab::detail {

namespace {

std::string file_tag(const std::string& name) {
    std::string t = name;
    for (char& c : t)
        if (c == '.') c = '_';
    return t;
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
    if (opts.throttle.active() && has_trait(s.family, kTraitOutput) && (!s.throttleable() || !s.in_syscall_layer()))
        return "its writes bypass iolab's syscall layer, so --throttle cannot slow them down";
    if (s.worker() && w.jobs > 1) return "runs in one JVM worker, one job at a time; --jobs gives it more";
    if (s.worker() && opts.cache_budget > 0)
        return "runs in a JVM whose own memory a --cache-budget's cgroup would count against the page cache";
    if (team().source_rank() != team().rank() && (s.external() || s.worker()) && !writes_records(w.family))
        return "runs in another process, which cannot reach another rank's scratch folder through iolab's "
               "descriptors; --rank-shift cannot shift it";
    if (shares_file(opts, w) && !s.does_parts())
        return "works on whole files only; --shared-file gives each job a part of one file";
    if (opts.stonewall && !has_trait(s.family, kTraitStonewall))
        return "--stonewall counts what a stopped job did by its output's bytes; a durable log laid out "
               "beforehand, a tree of files or a set of files replaced does not tell";
    if (opts.stonewall && (s.external() || s.worker() || s.own_threads()))
        return "--stonewall stops a job between the system calls of its own thread; this strategy moves data in "
               "another process or on threads of its own";
    return {};
}

// The input a case of this rank reads: its own, or under MPI with --rank-shift the same input of
// the rank it is shifted to (the same name in that rank's scratch folder).
void shift_input(Fixture& fx, const ScratchDir& dir) {
    const Team& tm = team();
    // Nothing read from a file (records written, a tree or a set known by its digests alone): nothing to shift.
    if (!tm.mpi() || tm.source_rank() == tm.rank() || fx.input_path().empty()) return;
    const std::string& own = fx.input_path();
    fx.read_from(dir.sibling_at(tm.scratch_names().at(static_cast<std::size_t>(tm.source_rank())),
                                own.substr(own.rfind('/') + 1)));
}

// A case's jobs, each on its own input (job 1's fixture named by the tag, the others' by the tag
// and their number), and a tool's probe.
void make_jobs(CaseState& c, const std::string& tag, const ScratchDir& dir, InputPool& pool) {
    const Strategy& s = *c.r.spec.strategy;
    const Workload& w = c.r.spec.workload;
    for (unsigned j = 0; j < w.jobs; ++j) {
        const std::string name = j == 0 ? tag : fmt::format("{}-job{}", tag, j);
        c.jobs.push_back({std::make_unique<Fixture>(w, dir, name, pool.get(w, j)), std::make_unique<Sink>()});
    }
    for (CaseJob& job : c.jobs) shift_input(*job.fx, dir);
    // A tool's probe: the same command on one page (one block of its buffer, where that is
    // larger: fio reads whole blocks), generated, whatever the case reads.
    if (s.external() && w.jobs == 1 && !team().mpi()) {
        Workload pw = w;
        pw.input.clear();
        pw.size = std::max<std::uint64_t>(4096, s.honours(kParamBuffer) ? w.buffer : 0);
        if (const auto least = kind_module(w.family).least) least(pw);
        c.probe = std::make_unique<Fixture>(pw, dir, tag + "-probe", pool.get(pw));
    }
}

// A case's jobs on one shared file: one input and one output for every job (of every rank, under
// MPI), in rank 0's folder. Once rank 0 has made the input, each rank writes its own parts (rank
// R's jobs' parts R x jobs + k) and reads, copies or writes those of the rank it is shifted to
// (itself unless --rank-shift).
void make_shared_jobs(CaseState& c, const std::string& tag, const ScratchDir& dir, InputPool& pool) {
    const Team& tm = team();
    const Workload& w = c.r.spec.workload;
    InputPool::Shared layout;
    layout.parts = w.jobs * static_cast<unsigned>(tm.size());
    layout.write_first = static_cast<unsigned>(tm.rank()) * w.jobs;
    layout.write_count = w.jobs;
    layout.read_first = static_cast<unsigned>(tm.source_rank()) * w.jobs;
    layout.read_count = w.jobs;
    if (tm.rank() != 0) layout.maker_folder = tm.scratch_names().at(0);
    const auto input = pool.get_shared(w, layout);
    for (unsigned j = 0; j < w.jobs; ++j) {
        auto fx = std::make_unique<Fixture>(w, dir, tag, input, layout.read_first + j);
        if (tm.rank() != 0) fx->write_into(dir.sibling_at(layout.maker_folder, tag + ".out"));
        c.jobs.push_back({std::move(fx), std::make_unique<Sink>()});
    }
}

// Case i's skip, inputs and fixtures, as every rank agrees on them.
Outcome prepare_case(CaseState& c, std::size_t i, const RunOptions& opts, const ScratchDir& dir, InputPool& pool) {
    Team& tm = team();
    const Strategy& s = *c.r.spec.strategy;
    const Workload& w = c.r.spec.workload;
    const std::string tag = fmt::format("{}-{}", file_tag(s.name), i);
    const bool shared = shares_file(opts, w);
    Outcome o = tm.agree(outcome_of([&] {
        if (std::string why = skip_reason(s, w, opts, dir); !why.empty()) throw CannotRun(why);
        if (!shared)
            make_jobs(c, tag, dir, pool);
        else if (tm.rank() == 0)
            pool.make_shared(w, w.jobs * static_cast<unsigned>(tm.size()));  // empty, of its whole size
    }));
    if (o.ok() && shared) o = tm.agree(outcome_of([&] { make_shared_jobs(c, tag, dir, pool); }));
    return o;
}

// A tool that can repeat its work in one process (fio, dd, cat) repeats it until its job takes about
// this long: fio notices a job's end in steps of 10 ms (its main loop sleeps 10 ms between looks),
// so a shorter job's time minus its probe's is a multiple of 10 ms, not the job's time; and any
// tool's work must outweigh the noise of its start-up, which its probe's time carries.
constexpr double kToolJobS = 0.1;
constexpr unsigned kMostPasses = 1000;
// A tool that repeats by a longer input (dd) reads at most this much in a run.
constexpr std::uint64_t kLongestInput = 256ull << 20;

// How many passes a repeating tool makes, from one run of it: its own report of its time where it
// gives one, else its time less its probe's (1 when it cannot repeat, or when a pass after the
// first would not start from the cache state asked for).
unsigned passes_for(const CaseState& c, const RunOptions& opts, const Sample& one) {
    const Strategy& s = *c.r.spec.strategy;
    if (!s.repeats() || opts.cache == CacheMode::cold) return 1;
    // A tool that repeats by a longer input has none made of the user's (--input): one pass.
    if (s.long_input() && !c.r.spec.workload.input.empty()) return 1;
    const double work = one.tool_s >= 0 ? one.tool_s : one.fixed_s >= 0 ? one.wall_s - one.fixed_s : -1;
    if (work < 0 && one.tool_s < 0 && one.fixed_s < 0) return 1;
    unsigned n =
        work <= 0
            ? kMostPasses / 10  // done within the tool's own resolution (1 ms), or its noise
            : static_cast<unsigned>(std::clamp(std::ceil(kToolJobS / (work / one.passes)), 1.0, double(kMostPasses)));
    if (s.long_input()) {
        const std::uint64_t size = std::max<std::uint64_t>(1, c.r.spec.workload.size);
        n = std::min<unsigned>(n, static_cast<unsigned>(std::max<std::uint64_t>(1, kLongestInput / size)));
    }
    return n;
}

// A tool that repeats by a longer input: the input `passes` times as long, shared through the pool
// by every case that needs one as long, brought to the warm state as the others were.
void lengthen_input(CaseState& c, const RunOptions& opts, unsigned passes, InputPool& pool) {
    if (!c.r.spec.strategy->long_input() || passes <= 1 || !c.r.spec.workload.input.empty()) return;
    Workload w = c.r.spec.workload;
    w.size *= passes;
    const auto in = pool.get(w);
    if (opts.cache == CacheMode::warm) {
        evict_file(in->path, false);
        warm_file(in->path);
    }
    c.jobs.front().fx->use_long_input(in);
}

// The warm-up of one case: its first run verifies every byte; with no warm-up asked for, a
// read still gets that one unmeasured run. Returns the duration of the last run (0: none).
double warm_up(CaseState& c, const RunOptions& opts, Clock& clock, Timeline* tl, InputPool& pool) {
    const Strategy& s = *c.r.spec.strategy;
    double last = 0;
    std::uint64_t runs = 0;
    const auto once = [&] {
        const VerifyMode mode = runs == 0 ? VerifyMode::full : opts.verify;
        const auto [smp, checked] = run_once(c, opts, clock, tl, mode);
        c.checked = checked;
        ++runs;
        last = smp.wall_s;
        // A repeating tool: the passes of the next runs, from this one (rank 0's).
        if (c.r.spec.strategy->repeats() && c.jobs.size() == 1) {
            const auto p = std::max(1u, static_cast<unsigned>(team().leader(passes_for(c, opts, smp))));
            if (p != c.jobs.front().fx->passes()) lengthen_input(c, opts, p, pool);
            c.jobs.front().fx->set_passes(p);
            if (c.probe && !s.long_input()) c.probe->set_passes(p);
        }
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

}  // namespace

void prepare(std::vector<CaseState>& cases, const std::vector<CaseSpec>& specs, const RunOptions& opts,
             const ScratchDir& dir, InputPool& pool) {
    for (std::size_t i = 0; i < specs.size(); ++i) {
        CaseState& c = cases[i];
        c.r.spec = specs[i];
        const Outcome o = prepare_case(c, i, opts, dir, pool);
        if (o.ok()) {
            if (opts.timeline && specs[i].strategy->records_timeline()) c.r.timeline = std::make_shared<Timeline>();
            continue;
        }
        c.r.status = o.kind == Outcome::Kind::skipped ? Status::skipped : Status::failed;
        c.r.reason = o.why;
        c.done = true;
    }
}

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

void warm_up_all(std::vector<CaseState>& cases, const RunOptions& opts, Clock& clock, InputPool& pool) {
    for (auto& c : cases) {
        if (c.done) continue;
        try {
            const double last = warm_up(c, opts, clock, c.r.timeline.get(), pool);
            if (opts.iterations.seconds > 0)
                c.target = last > 0 ? iterations_for(opts.iterations.seconds, last, opts.max_iterations) : 0;
            else if (!opts.iterations.adaptive)
                c.target = opts.iterations.count;
            c.target = team().leader(c.target);  // rank 0's warm-up decides for every rank
        } catch (const std::exception& e) {
            if (!agreed(e)) throw;  // under MPI: the ranks are out of step, the job ends
            if (cut_short(c, e)) break;
            fail(c, e);
        }
    }
}

}  // namespace iolab::detail
