// The trace exporter: the recorded timelines of a run as one Chrome trace (open in Perfetto).
#include "iolab/core/timeline.hpp"
#include "iolab/report/exporter.hpp"

namespace iolab {

std::string to_trace(const Report& report) {
    std::vector<const Timeline*> timelines;
    std::vector<std::string> names;
    for (const auto& c : report.cases)
        if (c.timeline) {
            timelines.push_back(c.timeline.get());
            names.push_back(c.spec.label());
        }
    return chrome_trace_json(timelines, names);
}

}  // namespace iolab
