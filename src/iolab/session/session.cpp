#include "iolab/session/session.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/core/process.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/limits.hpp"
#include "iolab/harness/measure.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/harness/team.hpp"
#include "iolab/strategies/kind.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/open_files.hpp"

namespace iolab {

namespace {

// The files a case's run works on one by one, as its kind's module says (0: none).
std::uint64_t files_each_run(const Workload& w) {
    const KindModule& k = kind_module(w.family);
    return k.files_each_run ? k.files_each_run(w) : 0;
}

// The input a group lays out before its clock starts, when that takes a while: its largest tree of
// 5,000 files or more to read or copy (20,000 files of 4 KiB took 5.8 s here), else its largest
// generated file of 1 GiB or more to read or copy; empty otherwise. Only the kinds that read an
// input lay one out once (a removal lays out its tree before each run; --input is not made).
std::string slow_inputs(const std::vector<CaseSpec>& cases) {
    std::uint64_t files = 0, file_size = 0, bytes = 0;
    unsigned jobs = 1;
    for (const CaseSpec& c : cases) {
        const Workload& w = c.workload;
        if (!has_trait(w.family, kTraitCold) || !w.input.empty()) continue;
        jobs = std::max(jobs, w.jobs);
        const std::uint64_t n = files_each_run(w);
        if (n == 0)
            bytes = std::max(bytes, w.size);
        else if (n > files)
            files = n, file_size = *w.each_file_size();
    }
    const std::string each = jobs > 1 ? fmt::format(" for each of {} jobs", jobs) : "";
    if (files >= 5000) return fmt::format("a tree of {} files of {}{}", files, format_size(file_size), each);
    if (bytes >= (std::uint64_t{1} << 30)) return fmt::format("a file of {}{}", format_size(bytes), each);
    return {};
}

const RunOptions& options_of(const Run& run, const std::string& group) {
    for (const auto& g : run.groups)
        if (g.id == group) return g.options;
    return run.options;
}

// Under MPI: every rank's host, and every rank's folder (for reads shifted to another rank).
// Shifted reads and a shared file reach into other ranks' folders: every rank must see them, so
// --dir must be one folder that every host shares.
void join_team(Run& run, const Suite& suite, const ScratchDir& scratch, const std::string& parent) {
    Team& tm = team();
    if (!tm.mpi()) return;
    run.environment.hosts = tm.hosts();
    run.environment.rank_shift = tm.shift() % static_cast<unsigned>(tm.size());
    tm.share_scratch(scratch.name());
    const bool reach =
        run.environment.rank_shift != 0 ||
        std::any_of(suite.groups.begin(), suite.groups.end(), [](const Group& g) { return g.options.shared_file; });
    const Outcome seen = tm.agree(outcome_of([&] {
        if (!reach) return;
        for (std::size_t r = 0; r < tm.scratch_names().size(); ++r) {
            struct stat st {};
            if (::stat(scratch.sibling_at(tm.scratch_names()[r], ".").c_str(), &st) != 0)
                throw InputError(
                    fmt::format("cannot see rank {}'s scratch folder {} in '{}': --rank-shift and --shared-file "
                                "need a --dir that every host shares",
                                r, tm.scratch_names()[r], parent));
        }
    }));
    if (!seen.ok()) throw AgreedInputError(seen.why);
}

// One more run of the peers into `peers` (a peer's failure is said, not fatal).
void run_peers(Peers& peers, const ScratchDir& scratch) {
    try {
        run_peer_once(peers, scratch);
    } catch (const std::exception& e) {
        peers.skipped = e.what();
    }
}

// The ceilings of the tables' kinds of work, each once.
std::vector<CeilingKey> ceiling_keys(const Suite& suite, const std::vector<std::vector<CaseSpec>>& plan) {
    std::vector<CeilingKey> keys;
    for (std::size_t gi = 0; gi < plan.size(); ++gi)
        for (const CaseSpec& c : plan[gi])
            for (const CeilingKey& k : ceilings_of(c, suite.groups[gi].options))
                if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    return keys;
}

// A case above its ceiling: the ceiling is measured again (the machine may have been busier then)
// and the higher figure kept. What is still above it has no figure (hold_to_ceilings).
void remeasure_ceilings(Run& run, const std::string& scratch) {
    std::vector<CeilingKey> again;
    for (const CaseResult& c : run.cases) {
        const Ceiling* l = c.ranked() ? ceiling_for(run.limits, c.spec, options_of(run, c.spec.group)) : nullptr;
        if (l && l->key.kind != LimitKind::device && c.throughput_mib_s > l->mib_s &&
            std::find(again.begin(), again.end(), l->key) == again.end())
            again.push_back(l->key);
    }
    const Limits remeasured = measure_limits(again, scratch);
    for (Ceiling& c : run.limits.ceilings)
        if (const Ceiling* r = remeasured.find(c.key); r && r->mib_s > c.mib_s) c = *r;
    hold_to_ceilings(run.cases, run.limits,
                     [&](const CaseResult& c) -> const RunOptions& { return options_of(run, c.spec.group); });
}

bool racing(const Group& g) { return g.options.race && g.options.iterations.adaptive; }

// The groups measured in turn. Racing groups share the run's time budget by their shares
// (Group::share; by default in proportion to their cases), each taking its part of what is left
// when it starts; the findings are judged as the samples come (sequential verdicts).
class Groups {
public:
    Groups(const Session& session, const SessionSettings& settings, const ScratchDir& scratch, Run& run)
        : suite_(session.suite()),
          plan_(session.plan()),
          settings_(settings),
          scratch_(scratch),
          run_(run),
          total_(session.size()),
          budget_(time_budget(suite_, session.size())),
          judge_(suite_) {
        judge_.on_decided = [this](const FindingResult& f) {
            if (settings_.on_finding) settings_.on_finding(f, judge_.decided(), judge_.size());
        };
        if (std::any_of(suite_.groups.begin(), suite_.groups.end(), racing)) run_.time_budget_s = budget_;
    }

    double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
    // The time the budget counts: all but laying out inputs, the warm-ups and the peers' runs.
    double spent() const { return elapsed() - setup_s_ - peers_s_; }
    double setup_s() const { return setup_s_; }

    // Measures group gi; false when a stop request ended the run in it.
    bool measure(std::size_t gi) {
        Group group = suite_.groups[gi];
        const auto& cases = plan_[gi];
        const double budget_s = racing(group) ? share(gi) : 0;  // the group's share of the run's
        const ProgressFn progress = [&](std::size_t i, const CaseSpec& c, double done) {
            if (settings_.on_case)
                settings_.on_case(first_ + i, total_, c,
                                  (static_cast<double>(first_) + done * static_cast<double>(cases.size())) /
                                      static_cast<double>(total_));
        };
        const std::vector<bool> held = held_cases(suite_, cases);
        // In child processes the samples meet only at the end: those findings are judged then.
        const HoldFn holds = [&](const std::vector<CaseResult>& now) { return judge_.hold(run_.cases, now); };
        // The peers run between the rounds of the cases they are compared with, off the budget.
        GroupEvents events;
        // Laying out its inputs is outside the budget: the groups after it do not pay for it either.
        events.set_up = [&](double s) { setup_s_ += s; };
        if (peers_wanted_ && wants_peers(cases))
            events.after_round = [&](std::uint64_t) {
                if (peers_want_more(peers_) && !interrupt::requested()) run_peer(true);
            };
        if (settings_.on_setup)
            if (const std::string what = slow_inputs(cases); !what.empty())
                settings_.on_setup(gi, plan_.size(), what + (budget_s > 0 ? ", outside the time budget" : ""));
        auto results = group.options.forks > 0 || group.options.cache_budget > 0
                           ? run_group_forked(cases, group.options, scratch_, progress, held, budget_s,
                                              GroupEvents{events.set_up, {}})
                           : run_group(cases, group.options, scratch_, system_clock(), progress, held,
                                       suite_.findings.empty() ? HoldFn() : holds, budget_s, events);
        // A stop request ends the run at this safe point. The group it cut short keeps what it
        // measured, marked partial. Under MPI a stop on any rank is a stop on all.
        const bool stopped = team().any(interrupt::requested());
        // The runs the rounds left wanting (a group that ended sooner, or ran in child processes),
        // right after its cases, on the disk they left.
        if (!stopped && events.after_round)
            while (peers_want_more(peers_) && !interrupt::requested()) run_peer(false);
        for (auto& r : results)
            if (!stopped || r.status != Status::ok || !r.samples.empty()) run_.cases.push_back(std::move(r));
        first_ += cases.size();
        if (stopped) {
            interrupt::request(SIGTERM);
            run_.partial = true;
            run_.groups[gi].partial = true;
        }
        if (settings_.on_group) settings_.on_group(gi, plan_.size(), run_.groups[gi], elapsed());
        return !stopped;
    }

    std::vector<FindingResult> verdicts() const { return judge_.verdicts(run_.cases); }

    // The peers' figures, made with the groups whose cases they are compared with.
    Peers peers() {
        if (interrupt::requested()) return {};
        peers_.seconds = peers_s_;
        return std::move(peers_);
    }

private:
    // One run of the peers, its time kept apart from the groups'.
    void run_peer(bool between_rounds) {
        const auto t0 = std::chrono::steady_clock::now();
        const std::size_t before = peers_.runs;
        run_peers(peers_, scratch_);
        if (between_rounds && peers_.runs > before) ++peers_.between;
        peers_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }

    double weight(std::size_t gi) const {
        return suite_.groups[gi].weight > 0 ? suite_.groups[gi].weight : static_cast<double>(plan_[gi].size());
    }
    // Group gi's part of the time left: its weight among the racing groups still to run.
    double share(std::size_t gi) const {
        double left = 0;
        for (std::size_t k = gi; k < plan_.size(); ++k)
            if (racing(suite_.groups[k])) left += weight(k);
        // What follows the groups (the ceilings measured again, the scratch folder removed, the
        // results written) is kept inside the budget too: 3 % of it, at most 2 s.
        const double reserve = std::min(2.0, 0.03 * budget_);
        return std::max(1e-3, (budget_ - reserve - spent()) * weight(gi) / std::max(1e-9, left));
    }

    const Suite& suite_;
    const std::vector<std::vector<CaseSpec>>& plan_;
    const SessionSettings& settings_;
    const ScratchDir& scratch_;
    Run& run_;
    const std::size_t total_;
    const double budget_;
    Judge judge_;
    const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::size_t first_ = 0;  // index of the group's first case in the whole run
    const bool peers_wanted_ = settings_.peers && !team().mpi();
    Peers peers_;
    double peers_s_ = 0;  // the time the peers took, which no group's share counts
    double setup_s_ = 0;  // the time the groups took to lay out their inputs, likewise
};

// A case whose one iteration makes so many synced writes that it would take longer than this here
// is named before the run, with the estimate (one iteration is measured whatever the budget).
constexpr double kLongIterationS = 10;

std::string roughly(double s) {
    if (s >= 2 * 3600) return fmt::format("{:.1f} hours", s / 3600);
    if (s >= 120) return fmt::format("{:.0f} minutes", s / 60);
    return fmt::format("{:.0f} s", s);
}

}  // namespace

std::vector<std::string> long_iterations(const std::vector<std::vector<CaseSpec>>& plan, const std::string& dir) {
    std::vector<std::string> out;
    double sync_s = -1;  // measured when a case syncs
    for (const auto& cases : plan)
        for (const auto& c : cases) {
            const std::uint64_t syncs = syncs_per_iteration(c);
            if (syncs == 0) continue;
            if (sync_s < 0) sync_s = sync_seconds(dir);
            const double estimate = static_cast<double>(syncs) * sync_s;
            if (estimate > kLongIterationS)
                out.push_back(fmt::format(
                    "{}: one iteration makes {} synced writes, about {} here (one took {}); {} makes it shorter",
                    c.label(), syncs, roughly(estimate), format_seconds(sync_s),
                    c.strategy->syncs > 0
                        ? "a smaller " + setting_name(kind_module(c.workload.family).items_key, Syntax::command_line)
                        : "a larger --record, or a smaller --size or --count"));
        }
    return out;
}

SetupEstimate Session::setup_estimate(const SetupProbes& probe) const {
    SetupEstimate e;
    double sync_s = -1;                      // measured when a case syncs
    std::map<std::uint64_t, double> file_s;  // by file size, measured when a tree has files of it
    const auto per_file = [&](std::uint64_t size) {
        const auto [at, made] = file_s.try_emplace(size, 0.0);
        if (made) at->second = probe.file_s(size);
        return at->second;
    };
    for (std::size_t gi = 0; gi < plan_.size(); ++gi) {
        const RunOptions& opts = suite_.groups[gi].options;
        if (!racing(suite_.groups[gi])) continue;  // a count of iterations given is the user's to wait for
        // Each child process of --forks lays the inputs out and warms up again.
        const auto forks = static_cast<double>(std::max(1u, opts.forks));
        std::set<std::pair<std::string, unsigned>> trees;  // the group's inputs, each laid out once
        for (const CaseSpec& c : plan_[gi]) {
            const Workload& w = c.workload;
            // One run of the case: a job's synced writes and the files of its tree (its jobs run at once).
            double run = 0;
            if (const std::uint64_t syncs = c.strategy ? syncs_per_job(*c.strategy, w) : 0; syncs > 0) {
                if (sync_s < 0) sync_s = probe.sync_s();
                run += static_cast<double>(syncs) * sync_s;
            }
            const KindModule& k = kind_module(w.family);
            if (const std::uint64_t files = files_each_run(w); files > 0 && w.input.empty()) {
                const double one = per_file(*w.each_file_size());
                run += static_cast<double>(files) * one;
                const std::string input = k.space(w).input;
                for (unsigned j = 0; j < w.jobs && !input.empty(); ++j)
                    if (trees.emplace(input, j).second) {
                        e.seconds += forks * static_cast<double>(files) * one;
                        e.files += files;
                        e.fewer_files = k.items_key;
                    }
            }
            // Its warm-ups (a count of runs, or a time that ends after a run), and its first
            // measured run, which racing makes however long it is.
            const double warm_up = opts.warmup.seconds > 0 ? std::max(opts.warmup.seconds, run)
                                                           : static_cast<double>(opts.warmup.count) * run;
            e.seconds += forks * (warm_up + run);
            e.warm_ups = e.warm_ups || warm_up > 0;
            if (run > e.longest_s) {
                e.longest_s = run;
                e.longest = c.label();
                e.shorter = k.items_key;
            }
        }
    }
    return e;
}

void check_setup(const SetupEstimate& e, double time_budget_s) {
    const double bound = std::max(kMaxSetupS, time_budget_s);
    if (e.seconds <= bound) return;
    std::string parts = e.files > 0 ? fmt::format("laying out {} files, and ", e.files) : "";
    parts += e.warm_ups ? "the warm-ups and first run of each case" : "the first run of each case";
    if (e.longest_s > 0) parts += fmt::format(" (the longest, {}, about {} a run)", e.longest, roughly(e.longest_s));
    // The ways out: smaller counts, fewer cases, and a budget as long (within the longest --time-budget).
    std::string smaller = e.files > 0 ? setting_name(e.fewer_files, Syntax::command_line) : "";
    if (!e.shorter.empty() && e.shorter != e.fewer_files)
        smaller += (smaller.empty() ? "" : " or ") + setting_name(e.shorter, Syntax::command_line);
    std::vector<std::string> ways;
    if (!smaller.empty()) ways.push_back("a smaller " + smaller);
    ways.push_back("fewer cases");
    if (e.seconds <= kMaxTimeBudgetS) ways.push_back("a --time-budget as long");
    std::string way = ways.front();
    for (std::size_t i = 1; i < ways.size(); ++i) way += (i + 1 == ways.size() ? " or " : ", ") + ways[i];
    way[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(way[0])));
    throw InputError(fmt::format(
        "setting this run up would take about {} here beyond its time budget: {}; a run may take {} so. {} makes it "
        "fit",
        roughly(e.seconds), parts, roughly(bound), way));
}

std::vector<std::string> Session::size_by_time(const std::function<double()>& probe) {
    std::vector<std::string> said;
    double sync_s = -1;  // measured when a case syncs
    for (std::size_t gi = 0; gi < plan_.size(); ++gi) {
        const auto& chosen = suite_.groups[gi].plan.chosen;
        // For each setting sized ("count", "files"), in the order first met: what its cases count
        // ("commits", "files"), the most they made and the most they now make.
        struct Sized {
            std::string_view key, items;
            std::uint64_t from = 0, to = 0;
        };
        std::vector<Sized> sized;
        for (CaseSpec& c : plan_[gi]) {
            Workload& w = c.workload;
            const KindModule& k = kind_module(w.family);
            // A job's syncs: its jobs run at once.
            const std::uint64_t syncs = c.strategy ? syncs_per_job(*c.strategy, w) : 0;
            if (k.items_key.empty() || syncs == 0) continue;
            const Parameter* setting = find_parameter(k.items_key);
            if (!setting || (c.strategy->params & setting->takes) == 0) continue;
            const auto given = [&](std::string_view key) {
                return !key.empty() && std::find(chosen.begin(), chosen.end(), key) != chosen.end();
            };
            // The user's count, or one their --size implies (a sweep of sizes stays a sweep).
            if (given(k.items_key) || given(k.items_implied_by)) continue;
            if (sync_s < 0) sync_s = probe();
            if (sync_s <= 0) return said;  // no estimate: the counts stay
            const double estimate = static_cast<double>(syncs) * sync_s;
            if (estimate <= kIterationTargetS) continue;
            std::uint64_t& n = *w.item_count();
            const auto count = std::max<std::uint64_t>(
                kSizedCountFloor, static_cast<std::uint64_t>(static_cast<double>(n) * kIterationTargetS / estimate));
            if (count >= n) continue;
            auto it = std::find_if(sized.begin(), sized.end(), [&](const Sized& x) { return x.key == k.items_key; });
            if (it == sized.end()) it = sized.insert(sized.end(), Sized{k.items_key, w.item_name()});
            it->from = std::max(it->from, n);
            it->to = std::max(it->to, count);
            n = count;
            c.sized = true;
            if (c.strategy->honours(kParamRecordSize)) w.size = w.records_of().record * count;
        }
        const std::string& title = suite_.groups[gi].title;
        for (const Sized& x : sized)
            said.push_back(fmt::format(
                "{}the cases that sync make at most {} {} an iteration, not {}: one synced write took {} here, so "
                "that one iteration takes about {}; {} sets it",
                title.empty() ? "" : title + ": ", x.to, x.items.empty() ? "records" : x.items, x.from,
                format_seconds(sync_s), format_seconds(kIterationTargetS), setting_name(x.key, Syntax::command_line)));
    }
    return said;
}

std::uint64_t free_space(const std::string& dir) {
    struct statvfs st {};
    if (::statvfs(dir.c_str(), &st) != 0) throw IoError(errno, "inspect the filesystem of", dir);
    return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
}

Session::Session(Suite suite) : suite_(std::move(suite)) {
    std::size_t total = 0;
    for (const auto& g : suite_.groups) {
        auto cases = build_plan(g.plan);
        for (auto& c : cases) c.group = g.id;
        total += cases.size();
        if (total > kMaxCases)
            throw InputError(
                fmt::format("the run has more than {} cases in all; narrow --strategy or the lists", kMaxCases));
        plan_.push_back(std::move(cases));
    }
    keep_within_samples();
}

// Every case keeps at most its share of kMaxRunSamples, so that the run's result file is one iolab
// reads back: a run asking for more (a count of iterations, or too many cases to keep three
// samples each) is refused, naming what it asks.
void Session::keep_within_samples() {
    const auto ranks = static_cast<unsigned>(team().size());
    const std::string on = ranks > 1 ? fmt::format(" on {} ranks", ranks) : std::string();
    // Every case's share of the run's samples, weighed once for all the groups.
    const std::uint64_t share = samples_per_case(plan_, ranks, UINT64_MAX);
    for (auto& g : suite_.groups) {
        // With --forks each child keeps its own samples of every case, pooled.
        const unsigned forks = std::max(1u, g.options.forks);
        const std::uint64_t cap = std::min(g.options.max_iterations * forks, share) / forks;
        const Amount& it = g.options.iterations;
        const bool counted = !it.adaptive && it.seconds == 0;
        if (!counted && cap < kMinSamples)
            throw InputError(fmt::format(
                "the run's {} cases{} can keep {} samples each{}, fewer than the {} an interval needs: a run keeps "
                "at most {} in all (a job's or rank's own time counts a sixteenth); narrow --strategy or the lists",
                size(), on, cap, forks > 1 ? fmt::format(" in each of {} forks", forks) : std::string(), kMinSamples,
                kMaxRunSamples));
        if (counted && it.count > cap)
            throw InputError(fmt::format(
                "{} iterations{} keep more samples than a run may{}: its {} cases{} can keep {} each ({} in all, a "
                "job's or rank's own time counting a sixteenth); measure fewer iterations or cases",
                it.count, forks > 1 ? fmt::format(" in each of {} forks", forks) : std::string(),
                g.id.empty() ? std::string() : fmt::format(" (group '{}')", g.id), size(), on, cap, kMaxRunSamples));
        g.options.max_iterations = cap;
    }
}

std::size_t Session::size() const {
    std::size_t n = 0;
    for (const auto& g : plan_) n += g.size();
    return n;
}

void Session::check_memory() const {
    // Memory is bounded: no case may hold more than half of this machine's memory.
    const std::uint64_t limit =
        static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) / 2;
    for (const auto& cases : plan_)
        for (const auto& c : cases)
            if (memory_needed(c) > limit)
                throw InputError(
                    fmt::format("{} would hold {} in memory (its buffers, queue and pool of records); the limit is "
                                "{}, half of this machine's memory",
                                c.label(), format_size(memory_needed(c)), format_size(limit)));
}

void Session::check_descriptors() const {
    // Besides a case's own: the process's (its scratch folder, lock, standard streams, a ring).
    constexpr std::uint64_t kOwn = 64;
    const sys::OpenFiles limit = sys::open_files();
    for (const auto& cases : plan_)
        for (const auto& c : cases)
            if (const std::uint64_t need = saturating_add(descriptors_needed(c), kOwn); need > limit.soft) {
                const KindModule& k = kind_module(c.workload.family);
                throw InputError(fmt::format(
                    "{} would hold about {} files open at once ({}, for each job); this process may open {} "
                    "(ulimit -n, hard limit {}): fewer {}--jobs, or a higher limit",
                    c.label(), need, k.descriptors_are, limit.soft, limit.hard,
                    k.fewer_descriptors.empty() ? ""
                                                : setting_name(k.fewer_descriptors, Syntax::command_line) + " or "));
            }
}

void Session::check_space(const std::string& dir, unsigned ranks) const {
    std::uint64_t needed = 0;
    for (const auto& cases : plan_) needed = std::max(needed, scratch_needed(cases));
    // The largest group's files plus a margin, checked before anything is created.
    needed = saturating_add(saturating_mul(needed, ranks), 16ull << 20);
    const std::uint64_t available = free_space(dir);
    if (available < needed)
        throw InputError(fmt::format("not enough free space in '{}': the workload needs {} and {} is free", dir,
                                     format_size(needed), format_size(available)));
    // Trees of files need inodes too (a filesystem that counts none, as btrfs, has no limit).
    std::uint64_t inodes = 0;
    for (const auto& cases : plan_) inodes = std::max(inodes, scratch_inodes_needed(cases));
    // A margin of 1,000 besides them: the run's own files, and what others make meanwhile.
    constexpr std::uint64_t kInodeMargin = 1000;
    inodes = saturating_mul(inodes, ranks);
    struct statvfs st {};
    if (inodes > 0 && ::statvfs(dir.c_str(), &st) == 0 && st.f_files > 0 && st.f_favail < inodes + kInodeMargin)
        throw InputError(
            fmt::format("not enough free inodes in '{}': the files of its cases need {} and the run {} more besides "
                        "({} in all), and "
                        "{} are free",
                        dir, inodes, kInodeMargin, inodes + kInodeMargin, static_cast<std::uint64_t>(st.f_favail)));
}

Run Session::run(const SessionSettings& settings, std::string* kept_scratch) const {
    ScratchDir scratch(settings.scratch_parent);
    scratch.keep(settings.keep);
    // While it measures, a signal stops the run at its next safe point (interrupt.hpp).
    interrupt::set_stoppable(true);
    struct Unstoppable {
        ~Unstoppable() { interrupt::set_stoppable(false); }
    } unstoppable;
    if (kept_scratch && settings.keep) *kept_scratch = scratch.path();
    Run run;
    run.suite = suite_.name;
    run.description = suite_.description;
    if (!suite_.groups.empty()) run.options = suite_.groups.front().options;
    run.environment = collect_environment(scratch.path());
    join_team(run, suite_, scratch, settings.scratch_parent);
    for (const auto& g : suite_.groups) run.groups.push_back({g.id, g.title, g.options, false});
    if (settings.on_note)
        for (const std::string& note : long_iterations(plan_, scratch.path())) settings.on_note(note);
    Groups groups(*this, settings, scratch, run);
    // Measured once (a second or less, more for a cold table: a file of its size is read from the
    // device). Not under MPI: a ceiling is one process's, and the ranks' work is all of theirs.
    if (settings.limits && !team().mpi()) run.limits = measure_limits(ceiling_keys(suite_, plan_), scratch.path());
    for (std::size_t gi = 0; gi < plan_.size(); ++gi)
        if (!groups.measure(gi)) break;
    if (run.limits.measured() && !run.partial) remeasure_ceilings(run, scratch.path());
    if (!run.partial) run.peers = groups.peers();
    // A stop after the groups (the ceilings measured again, the peers) cut the run short all the
    // same: what it left out is missing, and the files say so as the message does.
    if (interrupt::requested()) run.partial = true;
    if (!settings.keep) {
        scratch.remove();
        if (!scratch.left().empty()) {
            run.scratch_left = scratch.path();
            run.left = scratch.left();
            run.left_proven = scratch.left_proven();
        }
    }
    interrupt::set_stoppable(false);
    run.elapsed_s = groups.elapsed();
    run.setup_s = groups.setup_s();
    // The runtime a worker's cases ran in (the JVM), with the heap of the first group that ran one.
    const auto worker_case = std::find_if(run.cases.begin(), run.cases.end(),
                                          [](const CaseResult& c) { return c.spec.strategy->runtime != nullptr; });
    if (worker_case != run.cases.end()) {
        std::uint64_t heap = run.options.jvm_heap;
        for (const ReportGroup& g : run.groups)
            if (g.id == worker_case->spec.group) heap = g.options.jvm_heap;
        run.environment.jvm = worker_case->spec.strategy->runtime(heap);
    }
    if (run.partial) return run;
    if (std::any_of(run.cases.begin(), run.cases.end(), [](const CaseResult& c) { return c.latency != nullptr; }))
        run.clock_read_ns = clock_read_cost_ns();
    run.findings = groups.verdicts();
    for (const auto& k : suite_.knees) run.knees.push_back(find_knee(k, run.cases));
    run.elapsed_s = groups.elapsed();
    run.setup_s = groups.setup_s();
    return run;
}

}  // namespace iolab
