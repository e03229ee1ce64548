#include "iolab/report/read/read.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "iolab/core/checksum.hpp"
#include "iolab/core/text_file.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/limits.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/harness/serialize.hpp"
#include "iolab/report/json.hpp"
#include "iolab/report/read/read_case.hpp"
#include "iolab/report/read/result_sax.hpp"

namespace iolab {

namespace {

// The most ranks a result file may name (a large cluster's worth).
constexpr std::size_t kMaxRanks = 1u << 20;

using detail::num;
using detail::read_case;
using detail::ResultSax;
using detail::SavedEvent;
using detail::str;
using nlohmann::json;

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
    r.finding.runtime = one_line(str(f, "runtime"));
    if (!r.finding.runtime.empty() && r.finding.runtime != "C++" && r.finding.runtime != "JVM")
        throw ResultFormatError(where + ": runtime is not C++ or JVM");
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

// The document, parsed within bounds into `sax`, and its schema checked.
void parse_result(std::string_view text, ResultSax& sax, const std::string& origin) {
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
}

// A whole number of the environment (0: unknown).
std::uint64_t env_count(const json& env, const char* key, const std::string& origin) {
    const auto v = env.find(key);
    if (v == env.end() || v->is_null()) return 0;
    if (!v->is_number_unsigned())
        throw ResultFormatError(fmt::format("{}: environment.{} is not a whole number", origin, key));
    return v->get<std::uint64_t>();
}

// Under MPI: each rank's host, in the order of the ranks.
void read_ranks(const json& env, Environment& e, const std::string& origin) {
    const auto ranks = env.find("ranks");
    if (ranks == env.end() || ranks->is_null()) return;
    if (!ranks->is_array() || ranks->size() > kMaxRanks)
        throw ResultFormatError(
            fmt::format("{}: environment.ranks is not a list of at most {} ranks", origin, kMaxRanks));
    for (std::size_t i = 0; i < ranks->size(); ++i) {
        const auto& rk = (*ranks)[i];
        if (!rk.is_object() || rk.value("rank", json(nullptr)) != json(i))
            throw ResultFormatError(fmt::format("{}: environment.ranks[{}] is not rank {}", origin, i, i));
        e.hosts.push_back(one_line(str(rk, "host")));
    }
    e.rank_shift = static_cast<unsigned>(std::min<std::uint64_t>(env_count(env, "rank_shift", origin), kMaxRanks));
}

Environment read_environment(const json& env, const std::string& origin) {
    Environment e;
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
                              {&e.date, "date"},
                              {&e.jvm, "jvm"}})
        *field = one_line(str(env, key));
    e.cpus = static_cast<unsigned>(std::min<std::uint64_t>(env_count(env, "cpus", origin), 1u << 20));
    e.memory_bytes = env_count(env, "memory_bytes", origin);
    if (const auto rot = env.find("rotational"); rot != env.end() && rot->is_boolean())
        e.rotational = rot->get<bool>() ? 1 : 0;
    read_ranks(env, e, origin);
    return e;
}

// `partial`, where it is given: true or false, never a word ("yes" read as not partial).
bool partial_of(const json& j, const std::string& where, const std::string& origin) {
    const auto p = j.find("partial");
    if (p == j.end()) return false;
    if (!p->is_boolean())
        throw ResultFormatError(
            fmt::format("{}: {}partial is {}, not true or false", origin, where, one_line(p->dump().substr(0, 40))));
    return p->get<bool>();
}

ReportGroup read_group(const json& g, const std::string& origin) {
    if (!g.is_object()) throw ResultFormatError(fmt::format("{}: a group is not an object", origin));
    return {one_line(str(g, "id")), one_line(str(g, "title")), read_options(g.value("options", json::object()), origin),
            partial_of(g, "a group's ", origin)};
}

KneeResult read_knee(const json& k, const std::string& origin) {
    if (!k.is_object()) throw ResultFormatError(fmt::format("{}: a knee is not an object", origin));
    KneeResult kr;
    kr.suite = one_line(str(k, "suite"));
    kr.spec = {kr.suite, one_line(str(k, "group")), one_line(str(k, "strategy")),
               std::clamp(num(k, "fraction", 0.95), 0.0, 1.0), str(k, "over") == "jobs"};
    kr.knee_buffer = static_cast<std::size_t>(std::clamp(num(k, "knee_buffer"), 0.0, 1e15));
    kr.note = one_line(str(k, "note"));
    kr.best_buffer = static_cast<std::size_t>(std::clamp(num(k, "best_buffer"), 0.0, 1e15));
    kr.best_mib_s = std::max(0.0, num(k, "best_mib_s"));
    return kr;
}

Ceiling read_ceiling(const json& c, const std::string& origin) {
    const auto kind = c.is_object() ? value_of(kLimitKinds, str(c, "kind")) : std::nullopt;
    if (!kind) throw ResultFormatError(fmt::format("{}: a limit is not an object with a known kind", origin));
    Ceiling ceiling;
    ceiling.key.kind = *kind;
    ceiling.key.size = static_cast<std::uint64_t>(std::clamp(num(c, "size"), 0.0, 1e18));
    ceiling.key.buffer = static_cast<std::size_t>(std::clamp(num(c, "buffer"), 0.0, 1e18));
    ceiling.mib_s = std::clamp(num(c, "mib_s"), 0.0, 1e12);
    ceiling.note = one_line(str(c, "note"));
    return ceiling;
}

// Other programs' figures for the same work (Report::peers).
Peers read_peers(const json& p, const std::string& origin) {
    const auto figures = p.is_object() ? p.find("figures") : p.end();
    if (!p.is_object() || figures == p.end() || !figures->is_array())
        throw ResultFormatError(fmt::format("{}: peers is not an object with a list of figures", origin));
    Peers peers;
    peers.command = one_line(str(p, "command"));
    peers.skipped = one_line(str(p, "skipped"));
    peers.runs = static_cast<std::size_t>(std::clamp(num(p, "runs"), 0.0, 1e6));
    peers.between = std::min(peers.runs, static_cast<std::size_t>(std::clamp(num(p, "between"), 0.0, 1e6)));
    peers.seconds = std::clamp(num(p, "seconds"), 0.0, 1e9);
    for (const json& f : *figures) {
        if (!f.is_object()) throw ResultFormatError(fmt::format("{}: a peer's figure is not an object", origin));
        PeerFigure& pf =
            peers.figures.emplace_back(PeerFigure{one_line(str(f, "tool")),
                                                  one_line(str(f, "method")),
                                                  one_line(str(f, "strategy")),
                                                  static_cast<std::size_t>(std::clamp(num(f, "record"), 0.0, 1e15)),
                                                  std::clamp(num(f, "ops_per_s"), 0.0, 1e12),
                                                  one_line(str(f, "note")),
                                                  {}});
        // Each run's figure (a file of old has none): finite and positive, as the run wrote them.
        if (const auto runs = f.find("runs"); runs != f.end()) {
            if (!runs->is_array() || runs->size() > 1000)
                throw ResultFormatError(fmt::format("{}: a peer's runs are not a list of figures", origin));
            for (const json& x : *runs) {
                if (!x.is_number() || !std::isfinite(x.get<double>()) || x.get<double>() <= 0 || x.get<double>() > 1e12)
                    throw ResultFormatError(
                        fmt::format("{}: a peer's run '{}' is not a positive figure", origin, x.dump().substr(0, 40)));
                pf.runs.push_back(x.get<double>());
            }
        }
    }
    return peers;
}

// The run against its baseline (Report::baseline): every field of the type and within the range
// iolab writes, or the file is refused naming it.
class BaselineReader {
public:
    explicit BaselineReader(const std::string& origin) : where_(origin + ": baseline") {}

    Comparison read(const json& b) const {
        if (!b.is_object()) refuse("it", "an object");
        Comparison c;
        c.before = text(b, "before", true);
        c.after = text(b, "after", true);
        c.threshold = number(b, "threshold", -1, 10);
        if (c.threshold < 0 && c.threshold != -1) refuse("threshold", "-1 (no gate) or from 0 to 10");
        c.geomean = number(b, "geomean", 0, 1e9);
        c.ranks = text(b, "ranks", false);
        c.partial = text(b, "partial", false);
        c.options = text(b, "options", false);
        c.machine = text(b, "machine", false);
        // Absent from files older than the between-run margin: none.
        if (b.contains("between_runs")) c.between = number(b, "between_runs", 0, 10);
        c.between_source = text(b, "between_runs_source", false);
        if (const auto allow = b.find("allow_missing"); allow != b.end()) {
            if (!allow->is_boolean()) refuse("allow_missing", "true or false");
            c.allow_missing = allow->get<bool>();
        }
        const auto cases = b.find("cases");
        if (cases == b.end() || !cases->is_array()) refuse("cases", "a list");
        for (std::size_t i = 0; i < cases->size(); ++i)
            c.shared.push_back(change((*cases)[i], fmt::format("cases[{}].", i), c.threshold));
        for (auto [list, key] : {std::pair{&c.added, "added"},
                                 {&c.removed, "removed"},
                                 {&c.broken, "broken"},
                                 {&c.not_compared, "not_compared"},
                                 {&c.missing, "missing"}})
            *list = names(b, key);
        return c;
    }

private:
    [[noreturn]] void refuse(const std::string& field, const std::string& expected) const {
        throw ResultFormatError(one_line(fmt::format("{}: {} is not {}", where_, field, expected)));
    }

    double number(const json& o, const char* key, double lo, double hi, const std::string& at = "") const {
        const auto it = o.find(key);
        if (it == o.end() || !it->is_number() || !(it->get<double>() >= lo && it->get<double>() <= hi))
            refuse(at + key, fmt::format("a number from {:g} to {:g}", lo, hi));
        return it->get<double>();
    }

    std::string text(const json& o, const char* key, bool needed) const {
        const auto it = o.find(key);
        if (it == o.end() && !needed) return std::string();
        if (it == o.end() || !it->is_string() || (needed && it->get<std::string>().empty()))
            refuse(key, needed ? "a name" : "a string");
        return one_line(it->get<std::string>());
    }

    // One shared case: `at` names it ("cases[2].").
    CaseChange change(const json& ch, const std::string& at, double threshold) const {
        if (!ch.is_object()) refuse(at, "an object");
        CaseChange x;
        x.label = text(ch, "case", true);
        x.before_mib_s = number(ch, "before_mib_s", 0, 1e12, at);
        x.after_mib_s = number(ch, "after_mib_s", 0, 1e12, at);
        x.ratio = number(ch, "ratio", 0, 1e9, at);
        const auto iv = ch.find("ratio_interval");
        if (iv == ch.end() || !iv->is_array() || iv->size() != 2) refuse(at + "ratio_interval", "[low, high]");
        x.low = number(json{{"low", (*iv)[0]}}, "low", 0, 1e9, at + "ratio_interval.");
        x.high = number(json{{"high", (*iv)[1]}}, "high", x.low, 1e9, at + "ratio_interval.");
        x.p = number(ch, "p", 0, 1, at);
        const auto change = value_of(kChanges, text(ch, "change", true));
        if (!change) refuse(at + "change", names_of(kChanges));
        x.change = *change;
        const auto tripped = ch.find("tripped");
        if (tripped == ch.end() || !tripped->is_boolean()) refuse(at + "tripped", "true or false");
        x.tripped = tripped->get<bool>();
        if (const auto env = ch.find("envelope"); env != ch.end()) {
            if (!env->is_boolean()) refuse(at + "envelope", "true or false");
            x.envelope = env->get<bool>();
        }
        if (x.tripped && (threshold < 0 || x.change != Change::slower))
            refuse(at + "tripped", "false where there is no gate or the case is not slower");
        return x;
    }

    // A list of case names, absent or empty where there are none.
    std::vector<std::string> names(const json& b, const char* key) const {
        std::vector<std::string> out;
        const auto l = b.find(key);
        if (l == b.end()) return out;
        if (!l->is_array()) refuse(key, "a list of case names");
        for (const json& label : *l) {
            if (!label.is_string()) refuse(key, "a list of case names");
            out.push_back(one_line(label.get<std::string>()));
        }
        return out;
    }

    std::string where_;
};

// What the run was asked and found besides its cases: groups, findings, knees, limits and peers.
void read_context(const json& j, Report& r, const std::string& origin) {
    if (const auto groups = j.find("groups"); groups != j.end() && groups->is_array())
        for (const auto& g : *groups) r.groups.push_back(read_group(g, origin));
    if (const auto findings = j.find("findings"); findings != j.end() && findings->is_array())
        for (std::size_t i = 0; i < findings->size(); ++i)
            r.findings.push_back(read_finding((*findings)[i], fmt::format("{}: finding {}", origin, i + 1)));
    if (const auto knees = j.find("knees"); knees != j.end() && knees->is_array())
        for (const auto& k : *knees) r.knees.push_back(read_knee(k, origin));
    if (const auto l = j.find("limits"); l != j.end()) {
        if (!l->is_array()) throw ResultFormatError(fmt::format("{}: limits is not an array", origin));
        for (const auto& c : *l) r.limits.ceilings.push_back(read_ceiling(c, origin));
    }
    if (const auto p = j.find("peers"); p != j.end()) r.peers = read_peers(*p, origin);
    if (const auto b = j.find("baseline"); b != j.end()) r.baseline = BaselineReader(origin).read(*b);
}

// The cases, each with the samples and events the parse made of it, their statistics recomputed.
void read_cases(const json& j, ResultSax& sax, Report& r, const std::string& origin) {
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
        finish(c, r.options_of(c), 1e-9);
        r.cases.push_back(std::move(c));
    }
}

}  // namespace

Report read_report_json(std::string_view text, const std::string& origin) {
    ResultSax sax(text.size());
    parse_result(text, sax, origin);
    const json& j = sax.root;
    Report r;
    r.suite = one_line(str(j, "suite"));
    r.partial = partial_of(j, "", origin);
    // Every file iolab writes has its options: without them its cases' figures cannot be read right.
    if (const auto o = j.find("options"); o == j.end() || !o->is_object())
        throw ResultFormatError(fmt::format("{}: it has no options object: not a result file of iolab's", origin));
    if (const auto env = j.find("environment"); env != j.end() && env->is_object())
        r.environment = read_environment(*env, origin);
    r.options = read_options(j.value("options", json::object()), origin);
    read_context(j, r, origin);
    r.time_budget_s = std::clamp(num(j, "time_budget_s"), 0.0, 1e9);
    r.elapsed_s = std::clamp(num(j, "elapsed_s"), 0.0, 1e9);
    r.setup_s = std::clamp(num(j, "setup_s"), 0.0, r.elapsed_s);
    r.noise = one_line(str(j, "noise"));
    r.clock_read_ns = num(j, "clock_read_ns", -1);
    if (r.clock_read_ns > 1e9) throw ResultFormatError(fmt::format("{}: clock_read_ns is over a second", origin));
    read_cases(j, sax, r, origin);
    // A figure above its ceiling is none, read back as it was written.
    hold_to_ceilings(r.cases, r.limits, [&](const CaseResult& c) -> const RunOptions& { return r.options_of(c); });
    return r;
}

std::string read_result_text(const std::string& path) {
    return read_text_file_or_throw<ResultFormatError>(path, "the file", kMaxResultFileBytes);
}

Report read_report_file(const std::string& path) {
    // A run of many cases at --iterations 10000 writes tens of MiB; reading one takes at most about
    // 3 times its size (docs/safety.md).
    return read_report_json(read_result_text(path), path);
}

}  // namespace iolab
