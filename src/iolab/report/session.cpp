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
#include "iolab/sys/error.hpp"

namespace iolab {

std::uint64_t free_space(const std::string& dir) {
    struct statvfs st {};
    if (::statvfs(dir.c_str(), &st) != 0) throw IoError(errno, "inspect the filesystem of", dir);
    return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
}

double process_startup_seconds(int runs) {
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        run_process({"true"});
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(t);
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
    // The reference rows of read and copy tables: about half a second, measured once.
    const bool reads_or_copies = std::any_of(plan.begin(), plan.end(), [](const auto& cases) {
        return std::any_of(cases.begin(), cases.end(),
                           [](const CaseSpec& c) { return c.workload.family != Family::write; });
    });
    if (settings.limits && reads_or_copies) report.limits = measure_memory_limits();
    bool external = false;
    std::size_t first = 0;  // index of the group's first case in the whole run
    for (std::size_t gi = 0; gi < plan.size(); ++gi) {
        const Group& group = suite.groups[gi];
        const auto& cases = plan[gi];
        for (const auto& c : cases) external = external || c.strategy->external();
        const ProgressFn progress = [&](std::size_t i, const CaseSpec& c, double done) {
            if (settings.on_case)
                settings.on_case(first + i, total, c,
                                 (static_cast<double>(first) + done * static_cast<double>(cases.size())) /
                                     static_cast<double>(total));
        };
        auto results = group.options.forks > 0 || group.options.cache_budget > 0
                           ? run_group_forked(cases, group.options, scratch, progress)
                           : run_group(cases, group.options, scratch, system_clock(), progress);
        // A stop request ends the run at this safe point; the group it cut short is dropped. Under
        // MPI a stop on any rank is a stop on all.
        if (tm.any(interrupt::requested())) {
            interrupt::request(SIGTERM);
            report.partial = true;
            break;
        }
        for (auto& r : results) report.cases.push_back(std::move(r));
        first += cases.size();
    }
    if (!settings.keep) scratch.remove();
    interrupt::set_stoppable(false);
    if (report.partial) return report;
    if (external && find_program("true")) report.process_startup_s = process_startup_seconds();
    if (std::any_of(report.cases.begin(), report.cases.end(), [](const CaseResult& c) { return c.latency != nullptr; }))
        report.clock_read_ns = clock_read_cost_ns();
    for (const auto& f : suite.findings) report.findings.push_back(evaluate(f, report.cases));
    for (const auto& k : suite.knees) report.knees.push_back(find_knee(k, report.cases));
    return report;
}

}  // namespace iolab
