#include "iolab/harness/session.hpp"

#include <sys/statvfs.h>

#include <cerrno>

#include "iolab/core/scratch.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

std::uint64_t free_space(const std::string& dir) {
    struct statvfs st {};
    if (::statvfs(dir.c_str(), &st) != 0) throw IoError(errno, "inspect the filesystem of", dir);
    return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
}

Report run_session(const std::vector<CaseSpec>& plan, const SessionSettings& settings, std::string* kept_scratch) {
    ScratchDir scratch(settings.scratch_parent);
    scratch.keep(settings.keep);
    if (kept_scratch && settings.keep) *kept_scratch = scratch.path();
    Report report;
    report.suite = settings.suite;
    report.options = settings.options;
    report.environment = collect_environment(scratch.path());
    for (std::size_t i = 0; i < plan.size(); ++i) {
        if (settings.stop && settings.stop->load()) {
            report.partial = true;
            break;
        }
        if (settings.on_case) settings.on_case(i, plan.size(), plan[i]);
        report.cases.push_back(settings.options.forks > 0 ? run_case_forked(plan[i], settings.options, scratch)
                                                          : run_case(plan[i], settings.options, scratch));
    }
    return report;
}

}  // namespace iolab
