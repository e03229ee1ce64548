#include "iolab/report/read.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "iolab/core/checksum.hpp"
#include "iolab/core/text_file.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/harness/serialize.hpp"
#include "iolab/report/json.hpp"
#include "iolab/report/result_sax.hpp"

namespace iolab {

namespace {

// The most ranks a result file may name (a large cluster's worth).
constexpr std::size_t kMaxRanks = 1u << 20;

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

using detail::ResultSax;
using detail::SavedEvent;
using nlohmann::json;

std::string str(const json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double num(const json& j, const char* key, double otherwise = 0) {
    const auto it = j.find(key);
    return it != j.end() && it->is_number() && std::isfinite(it->get<double>()) ? it->get<double>() : otherwise;
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

CaseResult read_case(const json& c, std::vector<Sample> samples, const std::vector<SavedEvent>& events,
                     const std::string& origin, std::size_t index) {
    const auto where = [&](const std::string& what) {
        return ResultFormatError(one_line(fmt::format("{}: case {}: {}", origin, index + 1, what)));
    };
    if (!c.is_object()) throw where("expected an object");
    CaseResult r;
    const std::string name = str(c, "strategy");
    r.spec.strategy = Registry::builtin().find(legacy_name(name));
    if (!r.spec.strategy) throw where(fmt::format("unknown strategy '{}'", name));
    r.spec.group = one_line(str(c, "group"));  // control characters escaped: it reaches the terminal
    Workload& w = r.spec.workload;
    w.family = r.spec.strategy->family;
    const auto params = c.find("params");
    if (params == c.end() || !params->is_object()) throw where("missing params");
    for (const auto& [k, v] : params->items()) {
        if (!v.is_string()) throw where(fmt::format("param '{}' is not a string", k));
        try {
            const std::string value = one_line(v.get<std::string>());
            // Read by the setting's own parser, so held to its range (a queue of 2^32 - 1 is not
            // one iolab could have run).
            if (const Parameter* p = find_parameter(k); p && p->case_param()) p->set(r.spec, value);
        } catch (const InputError& e) {
            throw where(fmt::format("params.{}: {}", k, e.what()));
        }
    }
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
    const auto listed = c.find("samples");
    if (listed == c.end() || !listed->is_array()) throw where("missing samples");
    // The samples' objects were read as the file was (ResultSax); anything else left in the list
    // is not a sample.
    if (!listed->empty()) throw where("a sample is malformed (not an object)");
    r.samples = std::move(samples);
    // A result file keeps a case's latency whole (below), never a sample's.
    for (Sample& s : r.samples) s.latency.reset();
    for (const auto& s : r.samples)
        if (!(s.wall_s >= 1e-9) || !(s.user_s >= 0) || !(s.sys_s >= 0) || !std::isfinite(s.wall_s) ||
            !std::isfinite(s.user_s) || !std::isfinite(s.sys_s))
            throw where("a sample has a time that is not finite and at least 1 ns");
    // A tool's fixed cost and own time: absent (-1), or finite and not negative; passes from 1.
    for (const auto& s : r.samples)
        if (!(s.fixed_s == -1 || (s.fixed_s >= 0 && std::isfinite(s.fixed_s))) ||
            !(s.tool_s == -1 || (s.tool_s >= 0 && std::isfinite(s.tool_s))) || s.passes < 1 || s.passes > 1000000)
            throw where("a sample's fixed_s, tool_s or passes is out of range");
    // A job's or a rank's own time lies inside the sample's span.
    for (const auto& s : r.samples)
        for (const auto* times : {&s.job_s, &s.rank_s})
            for (double t : *times)
                if (!(t >= 0) || !(t <= s.wall_s * (1 + 1e-9)))
                    throw where("a job's or rank's time is not between 0 and the sample's wall_s");
    if (r.status == Status::ok && r.samples.empty()) throw where("an ok case without samples");
    if (const auto t = c.find("timeline"); t != c.end() && t->is_object() && t->contains("events"))
        r.timeline = read_timeline(*t, events, where);
    if (const auto l = c.find("latency"); l != c.end()) r.latency = read_latency(*l, where);
    return r;
}

// The options a group ran with, read by the settings' own parsers.
RunOptions read_options(const json& o, const std::string& where) {
    try {
        return options_from_json(o);
    } catch (const InputError& e) {
        throw ResultFormatError(one_line(fmt::format("{}: options: {}", where, e.what())));
    }
}

FindingResult read_finding(const json& f, const std::string& where) {
    if (!f.is_object()) throw ResultFormatError(where + ": expected an object");
    FindingResult r;
    r.suite = one_line(str(f, "suite"));
    r.finding.suite = r.suite;
    r.finding.claim = one_line(str(f, "claim"));
    r.finding.source = one_line(str(f, "source"));
    r.finding.explanation = one_line(str(f, "explanation"));
    // A ratio is absent (null or 0) or from 1e-9 to 1e9: what a time ratio can be.
    const auto ratio = [&](const json& v, const std::string& name) {
        if (v.is_null()) return 0.0;
        const double x = v.is_number() ? v.get<double>() : -1;
        if (x != 0 && !(x >= 1e-9 && x <= 1e9))
            throw ResultFormatError(one_line(fmt::format("{}: {} is not a ratio from 1e-9 to 1e9", where, name)));
        return x;
    };
    r.finding.published = ratio(f.value("published_ratio", json()), "published_ratio");
    r.finding.within = ratio(f.value("within", json()), "within");
    r.finding.at_least = ratio(f.value("at_least", json()), "at_least");
    r.ratio = ratio(f.value("measured_ratio", json()), "measured_ratio");
    if (const auto iv = f.find("ratio_interval"); iv != f.end() && iv->is_array() && iv->size() == 2) {
        r.low = ratio((*iv)[0], "ratio_interval[0]");
        r.high = (*iv)[1].is_null() ? std::numeric_limits<double>::infinity() : ratio((*iv)[1], "ratio_interval[1]");
        if (r.low > r.high)
            throw ResultFormatError(one_line(fmt::format("{}: ratio_interval ends before it begins", where)));
    }
    const std::string verdict = str(f, "verdict");
    const auto v = value_of(kVerdicts, verdict);
    if (!v)
        throw ResultFormatError(
            one_line(fmt::format("{}: verdict '{}' is not {}", where, verdict, names_of(kVerdicts))));
    r.verdict = *v;
    r.faster_case = one_line(str(f, "faster_case"));
    r.slower_case = one_line(str(f, "slower_case"));
    r.note = one_line(str(f, "note"));
    // Absent in older files; a count of samples or looks is a whole number within a case's cap.
    for (auto [key, field] : {std::pair{"samples", &r.samples}, std::pair{"look", &r.look}}) {
        const auto v = f.find(key);
        if (v == f.end()) continue;
        if (!v->is_number_unsigned() || v->get<std::uint64_t>() > 1000000)
            throw ResultFormatError(one_line(fmt::format("{}: {} is not a whole number up to 1000000", where, key)));
        *field = v->get<std::size_t>();
    }
    return r;
}

}  // namespace

Report read_report_json(std::string_view text, const std::string& origin) {
    ResultSax sax(text.size());
    try {
        if (!json::sax_parse(text, &sax)) throw ResultFormatError(one_line(fmt::format("{}: {}", origin, sax.error)));
    } catch (const json::exception& e) {  // out_of_range for huge numbers
        throw ResultFormatError(
            one_line(fmt::format("{}: not JSON ({})", origin, std::string(e.what()).substr(0, 200))));
    }
    const json& j = sax.root;
    if (!j.is_object()) throw ResultFormatError(fmt::format("{}: expected a JSON object", origin));
    if (str(j, "schema") != kResultSchema)
        throw ResultFormatError(
            one_line(fmt::format("{}: schema '{}' is not {}", origin, str(j, "schema"), kResultSchema)));
    Report r;
    r.suite = one_line(str(j, "suite"));
    const auto partial = j.find("partial");
    r.partial = partial != j.end() && partial->is_boolean() && partial->get<bool>();
    if (const auto env = j.find("environment"); env != j.end() && env->is_object()) {
        Environment& e = r.environment;
        for (auto [field, key] : {std::pair{&e.iolab_version, "iolab_version"},
                                  {&e.commit, "commit"},
                                  {&e.compiler, "compiler"},
                                  {&e.build_type, "build_type"},
                                  {&e.kernel, "kernel"},
                                  {&e.cpu_model, "cpu_model"},
                                  {&e.scratch_dir, "scratch_dir"},
                                  {&e.fs_type, "filesystem"},
                                  {&e.mount_options, "mount_options"},
                                  {&e.device, "device"},
                                  {&e.device_model, "device_model"},
                                  {&e.date, "date"}})
            *field = one_line(str(*env, key));
        // Counts are whole numbers (0: unknown).
        const auto count = [&](const char* key) -> std::uint64_t {
            const auto v = env->find(key);
            if (v == env->end() || v->is_null()) return 0;
            if (!v->is_number_unsigned())
                throw ResultFormatError(fmt::format("{}: environment.{} is not a whole number", origin, key));
            return v->get<std::uint64_t>();
        };
        e.cpus = static_cast<unsigned>(std::min<std::uint64_t>(count("cpus"), 1u << 20));
        e.memory_bytes = count("memory_bytes");
        if (const auto rot = env->find("rotational"); rot != env->end() && rot->is_boolean())
            e.rotational = rot->get<bool>() ? 1 : 0;
        if (const auto ranks = env->find("ranks"); ranks != env->end() && !ranks->is_null()) {
            if (!ranks->is_array() || ranks->size() > kMaxRanks)
                throw ResultFormatError(
                    fmt::format("{}: environment.ranks is not a list of at most {} ranks", origin, kMaxRanks));
            for (std::size_t i = 0; i < ranks->size(); ++i) {
                const auto& rk = (*ranks)[i];
                if (!rk.is_object() || rk.value("rank", json(nullptr)) != json(i))
                    throw ResultFormatError(fmt::format("{}: environment.ranks[{}] is not rank {}", origin, i, i));
                e.hosts.push_back(one_line(str(rk, "host")));
            }
            e.rank_shift = static_cast<unsigned>(std::min<std::uint64_t>(count("rank_shift"), kMaxRanks));
        }
    }
    r.options = read_options(j.value("options", json::object()), origin);
    if (const auto groups = j.find("groups"); groups != j.end() && groups->is_array())
        for (const auto& g : *groups) {
            if (!g.is_object()) throw ResultFormatError(fmt::format("{}: a group is not an object", origin));
            const auto partial_group = g.find("partial");
            r.groups.push_back({one_line(str(g, "id")), one_line(str(g, "title")),
                                read_options(g.value("options", json::object()), origin),
                                partial_group != g.end() && partial_group->is_boolean() && partial_group->get<bool>()});
        }
    if (const auto findings = j.find("findings"); findings != j.end() && findings->is_array())
        for (std::size_t i = 0; i < findings->size(); ++i)
            r.findings.push_back(read_finding((*findings)[i], fmt::format("{}: finding {}", origin, i + 1)));
    if (const auto knees = j.find("knees"); knees != j.end() && knees->is_array())
        for (const auto& k : *knees) {
            if (!k.is_object()) throw ResultFormatError(fmt::format("{}: a knee is not an object", origin));
            KneeResult kr;
            kr.suite = one_line(str(k, "suite"));
            kr.spec = {kr.suite, one_line(str(k, "group")), one_line(str(k, "strategy")),
                       std::clamp(num(k, "fraction", 0.95), 0.0, 1.0), str(k, "over") == "jobs"};
            kr.knee_buffer = static_cast<std::size_t>(std::clamp(num(k, "knee_buffer"), 0.0, 1e15));
            kr.note = one_line(str(k, "note"));
            kr.best_buffer = static_cast<std::size_t>(std::clamp(num(k, "best_buffer"), 0.0, 1e15));
            kr.best_mib_s = std::max(0.0, num(k, "best_mib_s"));
            r.knees.push_back(kr);
        }
    if (const auto l = j.find("limits"); l != j.end()) {
        if (!l->is_array()) throw ResultFormatError(fmt::format("{}: limits is not an array", origin));
        for (const auto& c : *l) {
            const auto kind = c.is_object() ? value_of(kLimitKinds, str(c, "kind")) : std::nullopt;
            if (!kind) throw ResultFormatError(fmt::format("{}: a limit is not an object with a known kind", origin));
            Ceiling ceiling;
            ceiling.key.kind = *kind;
            ceiling.key.size = static_cast<std::uint64_t>(std::clamp(num(c, "size"), 0.0, 1e18));
            ceiling.key.buffer = static_cast<std::size_t>(std::clamp(num(c, "buffer"), 0.0, 1e18));
            ceiling.mib_s = std::clamp(num(c, "mib_s"), 0.0, 1e12);
            ceiling.note = one_line(str(c, "note"));
            r.limits.ceilings.push_back(std::move(ceiling));
        }
    }
    r.time_budget_s = std::clamp(num(j, "time_budget_s"), 0.0, 1e9);
    r.elapsed_s = std::clamp(num(j, "elapsed_s"), 0.0, 1e9);
    r.clock_read_ns = num(j, "clock_read_ns", -1);
    if (r.clock_read_ns > 1e9) throw ResultFormatError(fmt::format("{}: clock_read_ns is over a second", origin));
    const auto cases = j.find("cases");
    if (cases == j.end() || !cases->is_array()) throw ResultFormatError(fmt::format("{}: missing cases", origin));
    for (std::size_t i = 0; i < cases->size(); ++i) {
        CaseResult c =
            read_case((*cases)[i], i < sax.samples.size() ? std::move(sax.samples[i]) : std::vector<Sample>{},
                      i < sax.events.size() ? sax.events[i] : std::vector<SavedEvent>{}, origin, i);
        // A case of a group the file does not list is shown in a group of its own name.
        if (!r.groups.empty() || !c.spec.group.empty())
            if (std::none_of(r.groups.begin(), r.groups.end(),
                             [&](const ReportGroup& g) { return g.id == c.spec.group; }))
                r.groups.push_back({c.spec.group, c.spec.group, r.options});
        finish(c, r.groups.empty() ? r.options : r.group(c.spec.group).options, 1e-9);
        r.cases.push_back(std::move(c));
    }
    return r;
}

Report read_report_file(const std::string& path) {
    // A run of many cases at --iterations 10000 writes tens of MiB; reading one takes at most about
    // 3 times its size (docs/safety.md).
    return read_report_json(read_text_file_or_throw<ResultFormatError>(path, "the file", kMaxResultFileBytes), path);
}

}  // namespace iolab
