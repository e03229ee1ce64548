#include "iolab/report/json.hpp"

#include <charconv>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "iolab/harness/params.hpp"
#include "iolab/harness/serialize.hpp"
#include "iolab/report/document.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

namespace {

// Spans a result file keeps, all timelines together: a timeline beyond them keeps its figures and
// its count of spans (a --timeline run of many copies stays within what iolab reads back).
constexpr std::size_t kMaxSavedSpans = 100000;

nlohmann::json environment_json(const Environment& e) {
    nlohmann::json j{{"iolab_version", e.iolab_version},
                     {"commit", e.commit},
                     {"compiler", e.compiler},
                     {"build_type", e.build_type},
                     {"kernel", e.kernel},
                     {"cpu_model", e.cpu_model},
                     {"cpus", e.cpus},
                     {"memory_bytes", e.memory_bytes},
                     {"scratch_dir", e.scratch_dir},
                     {"filesystem", e.fs_type},
                     {"mount_options", e.mount_options},
                     {"device", e.device},
                     {"device_model", e.device_model},
                     {"rotational", e.rotational < 0 ? nlohmann::json(nullptr) : nlohmann::json(e.rotational == 1)},
                     {"date", e.date}};
    if (!e.hosts.empty()) {
        j["ranks"] = nlohmann::json::array();
        for (std::size_t r = 0; r < e.hosts.size(); ++r) j["ranks"].push_back({{"rank", r}, {"host", e.hosts[r]}});
        j["rank_shift"] = e.rank_shift;
    }
    if (!e.jvm.empty()) j["jvm"] = e.jvm;
    return j;
}

// The samples without their latency histograms: the case's, below, holds them all.
nlohmann::json samples_json(const std::vector<Sample>& samples) {
    nlohmann::json j = nlohmann::json::array();
    for (Sample s : samples) {
        s.latency.reset();
        j.push_back(s);
    }
    return j;
}

// Under MPI: each rank's host, median time and throughput.
nlohmann::json ranks_json(const std::vector<RankFigures>& ranks) {
    nlohmann::json j = nlohmann::json::array();
    for (const RankFigures& f : ranks)
        j.push_back({{"rank", f.rank},
                     {"host", f.host},
                     {"median_s", f.stats.median},
                     {"throughput_mib_s", f.throughput_mib_s}});
    return j;
}

// A patterned case's percentiles, and the histogram and slices a report made later reads back.
nlohmann::json latency_json(const Latency& l, double ops_per_s) {
    return {{"ops", l.count()},
            {"ops_per_s", ops_per_s},
            {"p50_ns", l.percentile(0.50)},
            {"p90_ns", l.percentile(0.90)},
            {"p99_ns", l.percentile(0.99)},
            {"p99_9_ns", l.percentile(0.999)},
            {"max_ns", l.max()},
            {"buckets_upper_ns_count", l.buckets()},
            {"slice_s", static_cast<double>(Latency::kSliceNs) * 1e-9},
            {"ops_per_slice", l.slices()}};
}

nlohmann::json timeline_json(const Timeline& t, std::size_t& spans_left) {
    const auto o = t.overlap();
    nlohmann::json j = {{"span_s", o.span_s},
                        {"read_busy_s", o.read_busy_s},
                        {"write_busy_s", o.write_busy_s},
                        {"overlap_s", o.both_s},
                        {"overlap_fraction", o.fraction()}};
    // Every read and write as [lane, kind, begin ns, end ns, bytes] from the first one, so a
    // report made later from this file can draw it; a huge one only as a count.
    const auto spans = t.spans();
    j["lanes"] = t.lanes().size();
    if (spans.size() <= spans_left) {
        spans_left -= spans.size();
        nlohmann::json events = nlohmann::json::array();
        const std::uint64_t origin = spans.empty() ? 0 : spans.front().begin_ns;
        for (const auto& e : spans)
            events.push_back({e.lane, e.kind == Timeline::Kind::read ? "read" : "write", e.begin_ns - origin,
                              e.end_ns - origin, e.bytes});
        j["events"] = std::move(events);
    } else {
        j["events_omitted"] = spans.size();
    }
    return j;
}

nlohmann::json case_json(const CaseResult& c, const std::vector<std::string>& hosts, std::size_t& spans_left) {
    nlohmann::json stats = c.stats;
    stats["throughput_mib_s"] = c.throughput_mib_s;
    nlohmann::json j{{"strategy", c.name()},
                     {"group", c.spec.group},
                     {"family", to_string(c.spec.workload.family)},
                     {"label", c.spec.label()},
                     {"params", c.spec.params()},
                     {"status", to_string(c.status)},
                     {"verified", c.verified},
                     {"verification", to_string(c.checked)},
                     {"cold_unproven", c.cold_unproven},
                     {"budget_unheld", c.budget_unheld},
                     {"precision_met", c.stopped == StopReason::precise},
                     {"stopped", to_string(c.stopped)},
                     {"stable", c.stable},
                     {"scale", c.spec.scale()},
                     {"in_syscall_layer", c.spec.strategy->in_syscall_layer()},
                     {"samples", samples_json(c.samples)},
                     {"stats", stats},
                     {"warnings", c.warnings}};
    // Recomputed when read back (finish, hold_to_ceilings): kept for people and scripts.
    if (!c.no_figure.empty()) j["no_figure"] = c.no_figure;
    if (c.spec.sized) j["sized"] = true;  // its count sized by time (compare: matched without it)
    // A tool: its stats are net of its fixed cost; the process's own time and that cost beside.
    if (c.net()) {
        j["gross"] = c.gross;
        j["fixed"] = c.fixed;
    }
    if (c.status != Status::ok) j["reason"] = c.reason;
    if (const auto ranks = rank_figures(c, hosts); !ranks.empty()) j["ranks"] = ranks_json(ranks);
    if (c.latency) j["latency"] = latency_json(*c.latency, c.ops_per_s);
    if (c.timeline) j["timeline"] = timeline_json(*c.timeline, spans_left);
    return j;
}

// A number in a setting's words as JSON: a whole number as one, else a double.
nlohmann::json number(std::string_view word) {
    std::uint64_t whole = 0;
    if (std::from_chars(word.data(), word.data() + word.size(), whole).ptr == word.data() + word.size() &&
        !word.empty())
        return whole;
    double d = 0;
    std::from_chars(word.data(), word.data() + word.size(), d);
    return d;
}

// A value of a result file's options as a setting's words (nullopt when unset: absent, null, or
// a time of 0): what apply reads.
std::optional<std::string> word_of(const Parameter& p, const nlohmann::json& v) {
    if (v.is_null()) return std::nullopt;
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    if (v.is_number()) {
        const std::string n = v.is_number_float() ? fmt::format("{}", v.get<double>()) : v.dump();
        if (p.json != JsonForm::seconds) return n;
        if (v.get<double>() == 0) return std::nullopt;
        return n + "s";
    }
    throw InputError(fmt::format("{} is not a value", p.json_name()));
}

// A simulated device's two figures as the setting's words (nullopt: none).
std::optional<std::string> device_word(const Parameter& p, const nlohmann::json& o) {
    const std::string key(p.json_name());
    const auto figure = [&](const std::string& name) {
        const auto v = o.find(name);
        if (v == o.end() || v->is_null()) return 0.0;
        if (!v->is_number()) throw InputError(fmt::format("{} is not a number", name));
        return v->get<double>();
    };
    const double rate = figure(key + "_bytes_per_s"), latency = figure(key + "_latency_s");
    if (rate == 0 && latency == 0) return std::nullopt;
    return fmt::format("{}/s", rate) + (latency != 0 ? fmt::format("+{}s", latency) : "");
}

nlohmann::json finding_json(const FindingResult& f) {
    nlohmann::json j{
        {"suite", f.suite},
        {"claim", f.finding.claim},
        {"source", f.finding.source},
        {"published_ratio", f.finding.published > 0 ? nlohmann::json(f.finding.published) : nlohmann::json()},
        {"measured_ratio", f.ratio > 0 ? nlohmann::json(f.ratio) : nlohmann::json()},
        {"ratio_interval",
         f.ratio > 0 ? nlohmann::json::array({f.low, std::isfinite(f.high) ? nlohmann::json(f.high) : nlohmann::json()})
                     : nlohmann::json()},
        {"verdict", to_string(f.verdict)},
        {"faster_case", f.faster_case},
        {"slower_case", f.slower_case},
        {"samples", f.samples},
        {"look", f.look}};
    if (!f.finding.runtime.empty()) j["runtime"] = f.finding.runtime;
    if (f.finding.within > 0)
        j["within"] = f.finding.within;
    else
        j["at_least"] = f.finding.at_least;
    if (!f.note.empty()) j["note"] = f.note;
    if (!f.finding.explanation.empty()) j["explanation"] = f.finding.explanation;
    return j;
}

nlohmann::json interval_or_null(double low, double high) {
    return low > 0 && high > 0 ? nlohmann::json::array({low, high}) : nlohmann::json();
}

nlohmann::json answers_json(const std::vector<Answer>& answers) {
    nlohmann::json out = nlohmann::json::array();
    for (const Answer& a : answers) {
        nlohmann::json versus = nlohmann::json::array();
        for (const Versus& v : a.versus)
            versus.push_back({{"reference", v.role},
                              {"case", v.label},
                              {"ratio", v.ratio.ratio},
                              {"interval", interval_or_null(v.ratio.low, v.ratio.high)},
                              {"tied", v.tied}});
        nlohmann::json tied = nlohmann::json::array(), members = nlohmann::json::array();
        const auto member = [](const Member& m) {
            return nlohmann::json{{"case", m.label},
                                  {"mib_s", m.mib_s},
                                  {"samples", m.samples},
                                  {"varies", m.varies.empty() ? nlohmann::json() : nlohmann::json(m.varies)}};
        };
        if (!a.winner.empty()) members.push_back(member({a.winner, a.mib_s, a.samples, a.varies}));
        for (const Member& m : a.tied) {
            tied.push_back(m.label);
            members.push_back(member(m));
        }
        nlohmann::json j{
            {"group", a.group},     {"family", to_string(a.family)},
            {"table", a.table},     {"winner", a.winner.empty() ? nlohmann::json() : nlohmann::json(a.winner)},
            {"tied", tied},         {"winner_group", members},
            {"margin", a.margin},   {"versus", versus},
            {"partial", a.partial}, {"text", a.text()}};
        if (!a.winner.empty()) {
            j["mib_s"] = a.mib_s;
            j["interval_mib_s"] = interval_or_null(a.low, a.high);
            if (a.item > 0) j[fmt::format("{}_per_s", a.item_name)] = items_per_s(a.mib_s, a.item);
        } else {
            j["no_winner"] = a.no_winner;
        }
        out.push_back(std::move(j));
    }
    return out;
}

// The run against its baseline (Report::baseline).
nlohmann::json baseline_json(const Comparison& c) {
    nlohmann::json cases = nlohmann::json::array();
    for (const CaseChange& ch : c.shared)
        cases.push_back({{"case", ch.label},
                         {"before_mib_s", ch.before_mib_s},
                         {"after_mib_s", ch.after_mib_s},
                         {"ratio", ch.ratio},
                         {"ratio_interval", {ch.low, ch.high}},
                         {"p", ch.p},
                         {"change", name_of(kChanges, ch.change)},
                         {"tripped", ch.tripped},
                         {"envelope", ch.envelope}});
    return {{"before", c.before},        {"after", c.after},
            {"threshold", c.threshold},  {"geomean", c.geomean},
            {"ranks", c.ranks},          {"cases", cases},
            {"added", c.added},          {"removed", c.removed},
            {"broken", c.broken},        {"not_compared", c.not_compared},
            {"partial", c.partial},      {"options", c.options},
            {"missing", c.missing},      {"allow_missing", c.allow_missing},
            {"between_runs", c.between}, {"between_runs_source", c.between_source},
            {"machine", c.machine}};
}

}  // namespace

nlohmann::json options_json(const RunOptions& o) {
    nlohmann::json j = nlohmann::json::object();
    for (const Parameter& p : parameters()) {
        if (!p.run_setting()) continue;
        const std::string word = p.print(o), key(p.json_name());
        switch (p.json) {
            case JsonForm::none: break;
            case JsonForm::text: j[key] = word; break;
            case JsonForm::flag: j[key] = word == "true"; break;
            case JsonForm::number: j[key] = number(word); break;
            case JsonForm::seconds:
                j[key] = word.empty() ? 0.0 : number(word.substr(0, word.size() - 1)).get<double>();
                break;
            case JsonForm::device: {
                const Device d = word.empty() ? Device{} : parse_device(word);
                j[key + "_bytes_per_s"] = d.bytes_per_s;
                j[key + "_latency_s"] = d.latency_s;
                break;
            }
        }
    }
    // What the run worked out, kept beside its settings.
    j["race"] = o.race;
    j["min_iterations"] = o.min_iterations;
    j["simulated"] = o.throttle.active();
    return j;
}

RunOptions options_from_json(const nlohmann::json& o) {
    RunOptions opts;
    if (!o.is_object()) return opts;
    PlanRequest plan;
    for (const Parameter& p : parameters()) {
        if (!p.run_setting()) continue;
        std::optional<std::string> word;
        if (p.json == JsonForm::device)
            word = device_word(p, o);
        else if (const auto v = o.find(p.json_name()); v != o.end())
            word = word_of(p, *v);
        if (word) apply_setting(p, *word, Syntax::suite, plan, opts);
    }
    // Absent from files written before they were kept: the defaults.
    if (const auto race = o.find("race"); race != o.end() && race->is_boolean()) opts.race = race->get<bool>();
    if (const auto m = o.find("min_iterations"); m != o.end() && m->is_number_unsigned())
        opts.min_iterations = std::max<std::uint64_t>(1, m->get<std::uint64_t>());
    // Files written before the case order's seed was a setting call it seed.
    if (const auto seed = o.find("seed"); seed != o.end() && seed->is_number_unsigned() && !o.contains("order_seed"))
        opts.order_seed = seed->get<std::uint64_t>();
    check_options(opts, Syntax::suite);
    return opts;
}

namespace {

// The ceiling a ranked case is held to, or a case without a figure was held to (docs/harness.md,
// "Ceilings"), so a reader can check the figure.
void add_ceiling(nlohmann::json& j, const Report& r, const CaseResult& c) {
    if (!c.ranked() && c.no_figure.empty()) return;
    if (const Ceiling* l = ceiling_for(r.limits, c.spec, r.options_of(c)); l && l->mib_s > 0)
        j["ceiling"] = {{"kind", to_string(l->key.kind)}, {"mib_s", l->mib_s}};
}

}  // namespace

nlohmann::json report_to_json(const Report& r) {
    nlohmann::json cases = nlohmann::json::array();
    std::size_t spans_left = kMaxSavedSpans;
    for (const auto& c : r.cases) {
        cases.push_back(case_json(c, r.environment.hosts, spans_left));
        add_ceiling(cases.back(), r, c);
    }
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : r.groups)
        groups.push_back(
            {{"id", g.id}, {"title", g.title}, {"options", options_json(g.options)}, {"partial", g.partial}});
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : r.findings) findings.push_back(finding_json(f));
    nlohmann::json knees = nlohmann::json::array();
    for (const auto& k : r.knees)
        knees.push_back({{"suite", k.suite},
                         {"group", k.spec.group},
                         {"strategy", k.spec.strategy},
                         {"fraction", k.spec.fraction},
                         {"over", k.spec.over_jobs ? "jobs" : "buffer"},
                         {"knee_buffer", k.knee_buffer},
                         {"note", k.note},
                         {"best_buffer", k.best_buffer},
                         {"best_mib_s", k.best_mib_s}});
    nlohmann::json j{{"schema", kResultSchema},
                     {"suite", r.suite},
                     {"partial", r.partial},
                     {"options", options_json(r.options)},
                     {"environment", environment_json(r.environment)},
                     {"groups", groups},
                     {"cases", cases},
                     {"findings", findings},
                     {"knees", knees},
                     {"warnings", r.warnings()}};
    if (r.clock_read_ns >= 0) j["clock_read_ns"] = r.clock_read_ns;
    if (r.limits.measured()) {
        j["limits"] = nlohmann::json::array();
        for (const Ceiling& l : r.limits.ceilings)
            j["limits"].push_back({{"kind", to_string(l.key.kind)},
                                   {"size", l.key.size},
                                   {"buffer", l.key.buffer},
                                   {"mib_s", l.mib_s},
                                   {"what", l.key.describe()},
                                   {"note", l.note}});
    }
    if (!r.peers.figures.empty() || !r.peers.skipped.empty()) {
        nlohmann::json figures = nlohmann::json::array();
        for (const PeerFigure& f : r.peers.figures)
            figures.push_back({{"tool", f.tool},
                               {"method", f.method},
                               {"strategy", f.strategy},
                               {"record", f.record},
                               {"ops_per_s", f.ops_per_s},
                               {"runs", f.runs},
                               {"note", f.note}});
        j["peers"] = {{"command", r.peers.command}, {"skipped", r.peers.skipped}, {"runs", r.peers.runs},
                      {"between", r.peers.between}, {"seconds", r.peers.seconds}, {"figures", figures}};
    }
    if (r.baseline) j["baseline"] = baseline_json(*r.baseline);
    if (r.time_budget_s > 0) j["time_budget_s"] = r.time_budget_s;
    j["elapsed_s"] = r.elapsed_s;
    if (r.setup_s > 0) j["setup_s"] = r.setup_s;
    if (!r.noise.empty()) j["noise"] = r.noise;
    j["answer"] = answers_json(build_document(r).answers);
    return j;
}

std::string to_json(const Report& report) { return report_to_json(report).dump(2) + "\n"; }

}  // namespace iolab
