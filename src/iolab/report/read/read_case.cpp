// One case of a result file read back (read_case.hpp): its spec, outcome and samples checked, its
// latency and timeline rebuilt.
#include "iolab/report/read/read_case.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "iolab/core/checksum.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/harness/serialize.hpp"
#include "iolab/report/read/read.hpp"

namespace iolab::detail {

namespace {

// Result files written before the tools were named by what they do still read.
std::string_view legacy_name(std::string_view name) {
    static constexpr std::pair<std::string_view, std::string_view> kRenamed[] = {{"external.dd", "read.dd"},
                                                                                 {"external.cat", "read.cat"},
                                                                                 {"external.fio", "read.fio"},
                                                                                 {"external.dd-copy", "copy.dd"},
                                                                                 {"external.cp", "copy.cp"}};
    for (const auto& [old_name, new_name] : kRenamed)
        if (name == old_name) return new_name;
    return name;
}

// A patterned case's latency: its histogram ([upper edge ns, count] per bucket), largest value and
// operations per slice of time; whole numbers, counts that add up, a largest value in the last
// bucket, no more operations in the slices than in the histogram.
template <class Where>
std::shared_ptr<const Latency> read_latency(const json& l, const Where& where) {
    const auto whole = [&](const json& v, const char* what) {
        if (!v.is_number_unsigned()) throw where(fmt::format("latency: {} is not a whole number", what));
        return v.get<std::uint64_t>();
    };
    if (!l.is_object()) throw where("latency is not an object");
    const auto b = l.find("buckets_upper_ns_count"), m = l.find("max_ns"), s = l.find("ops_per_slice");
    if (b == l.end() || !b->is_array() || m == l.end() || s == l.end() || !s->is_array())
        throw where("latency needs buckets_upper_ns_count, max_ns and ops_per_slice");
    std::vector<std::pair<unsigned, std::uint64_t>> counts;
    std::uint64_t ops = 0, highest = 0;
    for (const auto& e : *b) {
        if (!e.is_array() || e.size() != 2) throw where("latency: a bucket is not [upper edge ns, count]");
        const std::uint64_t edge = whole(e[0], "a bucket's edge"), n = whole(e[1], "a bucket's count");
        if (n > UINT64_MAX - ops) throw where("latency: the bucket counts overflow");
        ops += n;
        counts.emplace_back(Latency::bucket_of(edge), n);
        if (n > 0) highest = std::max(highest, edge);
    }
    const std::uint64_t max = whole(*m, "max_ns");
    if (ops > 0 && (max > highest || Latency::bucket_of(max) != Latency::bucket_of(highest)))
        throw where("latency: max_ns is not in the highest bucket");
    if (s->size() > 36000) throw where("latency: more than an hour of slices");
    std::vector<std::uint64_t> slices;
    std::uint64_t sliced = 0;
    for (const auto& v : *s) {
        slices.push_back(whole(v, "a slice's count"));
        if (slices.back() > ops - std::min(ops, sliced))
            throw where("latency: the slices hold more operations than the histogram");
        sliced += slices.back();
    }
    auto out = std::make_shared<Latency>();
    out->restore(counts, max, std::move(slices));
    return out;
}

// A timeline's spans, [lane, "read" or "write", begin ns, end ns, bytes] each.
template <class Where>
std::shared_ptr<Timeline> read_timeline(const json& t, const std::vector<SavedEvent>& events, const Where& where) {
    // Threads of a copy: two today; a whole number, so that every lane an event names exists.
    constexpr std::uint64_t kMaxLanes = 64;
    const auto l = t.find("lanes");
    const std::uint64_t lanes = l == t.end() ? 2 : l->is_number_unsigned() ? l->get<std::uint64_t>() : 0;
    if (lanes < 1 || lanes > kMaxLanes)
        throw where(fmt::format("timeline: lanes is not a whole number from 1 to {}", kMaxLanes));
    std::vector<Timeline::Span> spans;
    // The events were read as the file was (ResultSax); anything left in the list is not one.
    if (const auto listed = t.find("events"); listed == t.end() || !listed->is_array() || !listed->empty())
        throw where("timeline: an event is not [lane, kind, begin ns, end ns, bytes]");
    for (const SavedEvent& e : events) {
        if (e.lane >= lanes || e.kind > 1 || e.end_ns < e.begin_ns)
            throw where("timeline: an event names a lane or kind it cannot have, or ends before it begins");
        spans.push_back({static_cast<unsigned>(e.lane), e.kind == 0 ? Timeline::Kind::read : Timeline::Kind::write,
                         e.begin_ns, e.end_ns, e.bytes});
    }
    return std::make_shared<Timeline>(Timeline::from_spans(static_cast<unsigned>(lanes), spans));
}

// A case's errors: "ORIGIN: case N: what is wrong".
struct CaseWhere {
    const std::string& origin;
    std::size_t index;
    ResultFormatError operator()(const std::string& what) const {
        return ResultFormatError(one_line(fmt::format("{}: case {}: {}", origin, index + 1, what)));
    }
};

// The strategy, group and parameters of a case.
CaseSpec read_spec(const json& c, const CaseWhere& where) {
    CaseSpec spec;
    const std::string name = str(c, "strategy");
    spec.strategy = Registry::builtin().find(legacy_name(name));
    if (!spec.strategy) throw where(fmt::format("unknown strategy '{}'", name));
    spec.group = one_line(str(c, "group"));  // control characters escaped: it reaches the terminal
    spec.workload.family = spec.strategy->family;
    const auto params = c.find("params");
    if (params == c.end() || !params->is_object()) throw where("missing params");
    if (const auto sized = c.find("sized"); sized != c.end()) {
        if (!sized->is_boolean()) throw where("sized is not true or false");
        spec.sized = sized->get<bool>();
    }
    for (const auto& [k, v] : params->items()) {
        if (!v.is_string()) throw where(fmt::format("param '{}' is not a string", k));
        try {
            const std::string value = one_line(v.get<std::string>());
            // Read by the setting's own parser, so held to its range (a queue of 2^32 - 1 is not
            // one iolab could have run).
            const Parameter* p = find_parameter(k);
            if (!p || !p->case_param()) continue;
            // What the strategy does not take is no parameter of its case.
            if (p->takes && !p->taken_by(*spec.strategy))
                throw InputError(fmt::format("{} does not take {}", spec.strategy->name, k));
            p->set(spec, value);
        } catch (const InputError& e) {
            throw where(fmt::format("params.{}: {}", k, e.what()));
        }
    }
    return spec;
}

// How a case ended: its status and reason, how it was checked, and why it was measured no more.
void read_outcome(const json& c, CaseResult& r, const CaseWhere& where) {
    const std::string status = str(c, "status");
    const auto st = value_of(kStatuses, status);
    if (!st) throw where(fmt::format("status '{}' is not {}", status, names_of(kStatuses)));
    r.status = *st;
    r.reason = one_line(str(c, "reason"));
    const auto verified = c.find("verified");
    r.verified = verified != c.end() && verified->is_boolean() && verified->get<bool>();
    r.checked = r.verified ? Checked::content : value_of(kChecked, str(c, "verification")).value_or(Checked::none);
    const auto cold = c.find("cold_unproven");
    r.cold_unproven = cold != c.end() && cold->is_boolean() && cold->get<bool>();
    // Absent from files older than racing: none.
    const std::string stopped = str(c, "stopped");
    const auto why = stopped.empty() ? StopReason::none : value_of(kStopReasons, stopped);
    if (!why) throw where(fmt::format("stopped '{}' is not {}", one_line(stopped), names_of(kStopReasons)));
    r.stopped = *why;
}

// The samples the parse made of the case's list, every time in range.
std::vector<Sample> read_samples(const json& c, std::vector<Sample> samples, const CaseWhere& where) {
    const auto listed = c.find("samples");
    if (listed == c.end() || !listed->is_array()) throw where("missing samples");
    // The samples' objects were read as the file was (ResultSax); anything else left in the list
    // is not a sample.
    if (!listed->empty()) throw where("a sample is malformed (not an object)");
    // A result file keeps a case's latency whole (read_case), never a sample's.
    for (Sample& s : samples) s.latency.reset();
    for (const auto& s : samples)
        if (!(s.wall_s >= 1e-9) || !(s.user_s >= 0) || !(s.sys_s >= 0) || !std::isfinite(s.wall_s) ||
            !std::isfinite(s.user_s) || !std::isfinite(s.sys_s))
            throw where("a sample has a time that is not finite and at least 1 ns");
    // A tool's fixed cost and own time: absent (-1), or finite and not negative; passes from 1.
    for (const auto& s : samples)
        if (!(s.fixed_s == -1 || (s.fixed_s >= 0 && std::isfinite(s.fixed_s))) ||
            !(s.tool_s == -1 || (s.tool_s >= 0 && std::isfinite(s.tool_s))) || s.passes < 1 || s.passes > 1000000)
            throw where("a sample's fixed_s, tool_s or passes is out of range");
    // A job's or a rank's own time lies inside the sample's span.
    for (const auto& s : samples)
        for (const auto* times : {&s.job_s, &s.rank_s})
            for (double t : *times)
                if (!(t >= 0) || !(t <= s.wall_s * (1 + 1e-9)))
                    throw where("a job's or rank's time is not between 0 and the sample's wall_s");
    return samples;
}

}  // namespace

CaseResult read_case(const json& c, std::vector<Sample> samples, const std::vector<SavedEvent>& events,
                     const std::string& origin, std::size_t index) {
    const CaseWhere where{origin, index};
    if (!c.is_object()) throw where("expected an object");
    CaseResult r;
    r.spec = read_spec(c, where);
    read_outcome(c, r, where);
    r.samples = read_samples(c, std::move(samples), where);
    if (r.status == Status::ok && r.samples.empty()) throw where("an ok case without samples");
    if (const auto t = c.find("timeline"); t != c.end() && t->is_object() && t->contains("events"))
        r.timeline = read_timeline(*t, events, where);
    if (const auto l = c.find("latency"); l != c.end()) r.latency = read_latency(*l, where);
    return r;
}

}  // namespace iolab::detail
