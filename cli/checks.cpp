#include "checks.hpp"

#include <unistd.h>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "common.hpp"
#include "iolab/harness/team.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/report/session.hpp"

namespace iolab::cli {

std::string check_before_run(const RunArgs& a, const Suite& suite, const std::string& dir_option, bool outputs) {
    const bool forks =
        std::any_of(suite.groups.begin(), suite.groups.end(), [](const Group& g) { return g.options.forks > 0; });
    if (forks && !a.output("trace").empty())
        throw InputError("--trace needs the timelines of one process; it cannot be used with --forks");
    const bool drop =
        std::any_of(suite.groups.begin(), suite.groups.end(), [](const Group& g) { return g.options.drop_caches; });
    if (drop && ::geteuid() != 0)
        throw InputError("drop_caches (--drop-caches) needs root: it writes /proc/sys/vm/drop_caches");
    std::uint64_t needed = 0;
    // Memory is bounded: no case may hold more than half of this machine's memory.
    const std::uint64_t memory_limit =
        static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) / 2;
    std::size_t total = 0;
    for (const auto& g : suite.groups) {
        const auto cases = group_cases(g);
        total += cases.size();
        if (total > kMaxCases)
            throw InputError(
                fmt::format("the run has more than {} cases in all; narrow --strategy or the lists", kMaxCases));
        needed = std::max(needed, scratch_needed(cases));
        for (const auto& c : cases)
            if (memory_needed(c) > memory_limit)
                throw InputError(
                    fmt::format("{} would hold {} in memory (its buffers, queue and pool of records); the "
                                "limit is {}, half of this machine's memory",
                                c.label(), format_size(memory_needed(c)), format_size(memory_limit)));
    }
    const std::string dir = checked_dir(dir_option);
    std::vector<ResultPath> results;
    for (const Exporter& e : exporters())
        if (const std::string& path = a.output(e.option); !path.empty())
            results.push_back({"--" + std::string(e.option), path});
    if (outputs)
        check_output_paths(results, a.force, a.input.empty() ? std::vector<std::string>{} : std::vector{a.input});
    // The largest case's files plus a margin, checked before anything is created; under MPI every
    // rank's (the ranks' --dir is one shared folder, or each rank checks its own host's).
    needed = saturating_add(saturating_mul(needed, static_cast<std::uint64_t>(team().size())), 16ull << 20);
    const std::uint64_t available = free_space(dir);
    if (available < needed)
        throw InputError(fmt::format("not enough free space in '{}': the workload needs {} and {} is free", dir,
                                     format_size(needed), format_size(available)));

    return dir;
}

}  // namespace iolab::cli
