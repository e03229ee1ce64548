#include "iolab/report/analysis/tune.hpp"

#include <ctime>
#include <optional>

#include <fmt/format.h>

#include "iolab/harness/standing.hpp"

namespace iolab {

namespace {

// The library's way of doing what a case measured, or nothing when the library has none.
std::optional<Tuned> method_of(const CaseResult& c) {
    const std::string& s = c.spec.strategy->name;
    const std::size_t buffer = c.spec.workload.buffer;
    const bool whole = buffer >= c.spec.workload.bytes();
    if (s == "read.chunk") return Tuned{"read", whole ? 0 : buffer, c.throughput_mib_s};
    if (s == "copy.copy-file-range") return Tuned{"copy_file_range", buffer, c.throughput_mib_s};
    if (s == "copy.sendfile") return Tuned{"sendfile", buffer, c.throughput_mib_s};
    if (s == "copy.chunk") return Tuned{"read/write", buffer, c.throughput_mib_s};
    if (s == "write.record-buffered") return Tuned{"write", buffer, c.throughput_mib_s};
    return std::nullopt;
}

// The winner of a group's verified cases that `keep` accepts, picked inside its winner group by
// the rule of standing.hpp; where that group holds others, `notes` says which would do as well.
template <class Keep>
std::optional<Tuned> fastest(const Report& r, const std::string& group, Keep keep, const std::string& key,
                             std::vector<std::string>* notes) {
    std::vector<const CaseResult*> cases;
    for (const CaseResult& c : r.cases)
        if (c.spec.group == group && c.ranked() && c.verified && keep(c) && method_of(c)) cases.push_back(&c);
    if (cases.empty()) return std::nullopt;
    const double margin = r.group(group).options.margin;
    const Standing s = stand(cases, margin);
    if (!s.pick) return std::nullopt;
    if (const auto w = s.winners(); notes && w.size() > 1) {
        std::vector<std::string> others;
        for (std::size_t i = 1; i < w.size(); ++i) others.push_back(w[i]->spec.label());
        notes->push_back(
            fmt::format("{}: {}, picked from a winner group where none is shown {:g}% slower than "
                        "another; as good here: {}",
                        key, s.pick->spec.label(), margin * 100, fmt::join(others, ", ")));
    }
    return method_of(*s.pick);
}

}  // namespace

Profile profile_from(const Report& tuned, const std::string& folder, std::uint64_t device,
                     std::vector<std::string>* notes) {
    Profile p;
    p.version = std::string(library_version());
    p.machine = this_machine();
    p.date = tuned.environment.date;
    p.folder = folder;
    p.filesystem = tuned.environment.fs_type;
    p.device = device;
    const auto all = [](const CaseResult&) { return true; };
    for (const char* kind : {"read", "copy"})
        for (const char* cls : {"small", "medium", "large"}) {
            const std::string key = std::string(kind) + "." + cls;
            if (const auto t = fastest(tuned, std::string(kind) + "-" + cls, all, key, notes)) p.choices[key] = *t;
        }
    const auto buffered = [](const CaseResult& c) {
        return c.spec.strategy->name == "read.chunk" && c.spec.workload.buffer <= (std::size_t{1} << 20);
    };
    if (const auto t = fastest(tuned, "read-medium", buffered, "buffer.read", notes)) p.read_buffer = t->buffer;
    if (const auto t = fastest(tuned, "buffer-write", all, "buffer.write", notes)) p.write_buffer = t->buffer;
    return p;
}

}  // namespace iolab
