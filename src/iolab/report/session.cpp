#include "iolab/report/session.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include <fmt/format.h>
#include <csignal>

#include "iolab/core/interrupt.hpp"
#include "iolab/core/process.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/harness/measure.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/harness/team.hpp"
#include "iolab/report/table.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

std::uint64_t free_space(const std::string& dir) {
    struct statvfs st {};
    if (::statvfs(dir.c_str(), &st) != 0) throw IoError(errno, "inspect the filesystem of", dir);
    return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
}

std::vector<CaseSpec> group_cases(const Group& g) {
    auto cases = build_plan(g.plan);
    for (auto& c : cases) c.group = g.id;
    return cases;
}

Report run_session(const Suite& suite, const SessionSettings& settings, std::string* kept_scratch) {
    ScratchDir scratch(settings.scratch_parent);
    scratch.keep(settings.keep);
    // While it measures, a signal stops the run at its next safe point (interrupt.hpp).
    interrupt::set_stoppable(true);
    struct Unstoppable {
        ~Unstoppable() { interrupt::set_stoppable(false); }
    } unstoppable;
    if (kept_scratch && settings.keep) *kept_scratch = scratch.path();
    Report report;
    report.suite = settings.suite;
    report.description = settings.description;
    if (!suite.groups.empty()) report.options = suite.groups.front().options;
    report.environment = collect_environment(scratch.path());
    // Under MPI: every rank's host, and every rank's folder (for reads shifted to another rank).
    Team& tm = team();
    if (tm.mpi()) {
        report.environment.hosts = tm.hosts();
        report.environment.rank_shift = tm.shift() % static_cast<unsigned>(tm.size());
        tm.share_scratch(scratch.name());
        // Shifted reads and a shared file reach into other ranks' folders: every rank must see
        // them, so --dir must be one folder that every host shares.
        const bool reach =
            tm.shift() % static_cast<unsigned>(tm.size()) != 0 ||
            std::any_of(suite.groups.begin(), suite.groups.end(), [](const Group& g) { return g.options.shared_file; });
        const Outcome seen = tm.agree(outcome_of([&] {
            if (!reach) return;
            for (std::size_t r = 0; r < tm.scratch_names().size(); ++r) {
                struct stat st {};
                if (::stat(scratch.sibling_at(tm.scratch_names()[r], ".").c_str(), &st) != 0)
                    throw InputError(
                        fmt::format("cannot see rank {}'s scratch folder {} in '{}': --rank-shift and "
                                    "--shared-file need a --dir that every host shares",
                                    r, tm.scratch_names()[r], settings.scratch_parent));
            }
        }));
        if (!seen.ok()) throw AgreedInputError(seen.why);
    }

    std::vector<std::vector<CaseSpec>> plan;
    std::size_t total = 0;
    for (const auto& g : suite.groups) {
        report.groups.push_back({g.id, g.title, g.options});
        plan.push_back(group_cases(g));
        total += plan.back().size();
    }
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    // The ceilings of the tables' kinds of work, measured once (a second or less, more for a cold
    // table: a file of its size is read from the device).
    // Not under MPI: a ceiling is one process's, and the ranks' work is all of theirs.
    if (settings.limits && !tm.mpi()) {
        std::vector<CeilingKey> keys;
        for (std::size_t gi = 0; gi < plan.size(); ++gi)
            for (const CaseSpec& c : plan[gi])
                for (const CeilingKey& k : ceilings_of(c, suite.groups[gi].options))
                    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
        report.limits = measure_limits(keys, scratch.path());
    }
    // Racing groups share the run's time budget by their shares (Group::share; by default in
    // proportion to their cases), each group taking its part of what is left when it starts.
    const auto racing = [](const Group& g) { return g.options.race && g.options.iterations.adaptive; };
    const double budget = time_budget(suite);
    if (std::any_of(suite.groups.begin(), suite.groups.end(), racing)) report.time_budget_s = budget;
    const auto weight = [&](std::size_t gi) {
        return suite.groups[gi].share > 0 ? suite.groups[gi].share : static_cast<double>(plan[gi].size());
    };
    // The findings, judged as the samples come (sequential verdicts: findings.hpp).
    Judge judge(suite);
    judge.on_decided = [&](const FindingResult& f) {
        if (settings.on_finding) settings.on_finding(f, judge.decided(), judge.size());
    };
    std::size_t first = 0;  // index of the group's first case in the whole run
    for (std::size_t gi = 0; gi < plan.size(); ++gi) {
        Group group = suite.groups[gi];
        const auto& cases = plan[gi];
        if (racing(group)) {
            double left = 0;
            for (std::size_t k = gi; k < plan.size(); ++k)
                if (racing(suite.groups[k])) left += weight(k);
            group.options.group_budget_s = std::max(1e-3, (budget - elapsed()) * weight(gi) / std::max(1e-9, left));
        }
        const ProgressFn progress = [&](std::size_t i, const CaseSpec& c, double done) {
            if (settings.on_case)
                settings.on_case(first + i, total, c,
                                 (static_cast<double>(first) + done * static_cast<double>(cases.size())) /
                                     static_cast<double>(total));
        };
        const std::vector<bool> held = held_cases(suite, cases);
        // In child processes the samples meet only at the end: those findings are judged then.
        const HoldFn holds = [&](const std::vector<CaseResult>& now) { return judge.hold(report.cases, now); };
        auto results = group.options.forks > 0 || group.options.cache_budget > 0
                           ? run_group_forked(cases, group.options, scratch, progress, held)
                           : run_group(cases, group.options, scratch, system_clock(), progress, held,
                                       suite.findings.empty() ? HoldFn() : holds);
        // A stop request ends the run at this safe point. The group it cut short keeps what it
        // measured, marked partial. Under MPI a stop on any rank is a stop on all.
        const bool stopped = tm.any(interrupt::requested());
        for (auto& r : results)
            if (!stopped || r.status != Status::ok || !r.samples.empty()) report.cases.push_back(std::move(r));
        first += cases.size();
        if (stopped) {
            interrupt::request(SIGTERM);
            report.partial = true;
            report.groups[gi].partial = true;
        }
        if (settings.on_group) settings.on_group(gi, plan.size(), report.groups[gi], elapsed());
        if (stopped) break;
    }
    // A case above its ceiling by more than its interval: the ceiling is measured again (the
    // machine may have been busier then) and the higher figure kept. What is still above it is a
    // warning (Report::warnings).
    if (report.limits.measured() && !report.partial) {
        std::vector<CeilingKey> again;
        for (const CaseResult& c : report.cases) {
            const Ceiling* l =
                c.ranked() ? ceiling_for(report.limits, c.spec, report.group(c.spec.group).options) : nullptr;
            if (l && l->key.kind != LimitKind::device && rate_interval(c).first > l->mib_s &&
                std::find(again.begin(), again.end(), l->key) == again.end())
                again.push_back(l->key);
        }
        const Limits remeasured = measure_limits(again, scratch.path());
        for (Ceiling& c : report.limits.ceilings)
            if (const Ceiling* r = remeasured.find(c.key); r && r->mib_s > c.mib_s) c = *r;
    }
    if (!settings.keep) scratch.remove();
    interrupt::set_stoppable(false);
    report.elapsed_s = elapsed();
    if (report.partial) return report;
    if (std::any_of(report.cases.begin(), report.cases.end(), [](const CaseResult& c) { return c.latency != nullptr; }))
        report.clock_read_ns = clock_read_cost_ns();
    report.findings = judge.verdicts(report.cases);
    for (const auto& k : suite.knees) report.knees.push_back(find_knee(k, report.cases));
    report.elapsed_s = elapsed();
    return report;
}

}  // namespace iolab
