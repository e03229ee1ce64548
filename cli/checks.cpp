#include "checks.hpp"

#include <unistd.h>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "baseline.hpp"
#include "common.hpp"
#include "iolab/harness/team.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/session/session.hpp"

namespace iolab::cli {

std::string check_before_run(const RunArgs& a, const Session& session, const std::string& dir_option, bool outputs) {
    const auto& groups = session.suite().groups;
    const bool forks = std::any_of(groups.begin(), groups.end(), [](const Group& g) { return g.options.forks > 0; });
    if (forks && !a.output("trace").empty())
        throw InputError("--trace needs the timelines of one process; it cannot be used with --forks");
    const bool drop = std::any_of(groups.begin(), groups.end(), [](const Group& g) { return g.options.drop_caches; });
    if (drop && ::geteuid() != 0)
        throw InputError("drop_caches (--drop-caches) needs root: it writes /proc/sys/vm/drop_caches");
    session.check_memory();
    session.check_descriptors();
    const std::string dir = checked_dir(dir_option);
    std::vector<ResultPath> results;
    for (const Exporter& e : exporters())
        if (const std::string& path = a.output(e.option); !path.empty())
            results.push_back({"--" + std::string(e.option), path});
    // The baseline is read, so no result may be written over it; --save-baseline is a result.
    std::vector<std::string> inputs;
    if (!a.input.empty()) inputs.push_back(a.input);
    if (outputs && !a.baseline.empty()) inputs.push_back(find_baseline(a.baseline));
    if (const std::string kept = save_baseline_if_checkable(a.save_baseline); !kept.empty())
        results.push_back({"--save-baseline", kept});
    if (outputs) check_output_paths(results, a.force, inputs);
    return dir;
}

}  // namespace iolab::cli
