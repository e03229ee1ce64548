// What the parameter table is used for: applying a setting, the rules that join settings,
// reading a case parameter, and crossing a plan's values into cases.
#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "iolab/core/units.hpp"
#include "iolab/harness/param_values.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/sys/reserve.hpp"

namespace iolab {

std::string setting_name(std::string_view key, Syntax syntax) {
    if (syntax == Syntax::suite) return std::string(key);
    std::string name = "--" + std::string(key);
    std::replace(name.begin(), name.end(), '_', '-');
    return name;
}

void apply_setting(const Parameter& s, std::string_view value, Syntax syntax, PlanRequest& plan, RunOptions& options) {
    try {
        s.apply_value(value, plan, options);
        for (auto* keys : {&plan.given, &plan.chosen})
            if (std::find(keys->begin(), keys->end(), s.key) == keys->end()) keys->push_back(s.key);
    } catch (const InputError& e) {
        // A chain says which layer is wrong; in a list, the first item that is wrong is named.
        std::string detail = s.expected.empty() ? std::string(e.what()) : "expected " + std::string(s.expected);
        if (s.kind == Parameter::Kind::list && value.find(',') != std::string_view::npos) {
            for (const std::string_view item : split_items(value)) {
                PlanRequest p = plan;
                RunOptions o = options;
                try {
                    s.apply_value(item, p, o);
                } catch (const InputError& bad) {
                    const std::string why = s.expected.empty() ? std::string(bad.what()) : detail;
                    detail = item.empty() ? (s.expected.empty() ? why : "an empty item; " + why)
                                          : fmt::format("'{}' is wrong; {}", item, why);
                    break;
                }
            }
        }
        throw InputError(one_line(fmt::format("invalid {} '{}': {}", setting_name(s.key, syntax), value, detail)));
    }
}

void check_given_together(const std::function<bool(std::string_view)>& given, Syntax syntax) {
    // The run's time budget is shared by racing: with what turns racing off it would do nothing.
    if (!given("time_budget")) return;
    for (const char* key : {"precision", "budget"})
        if (given(key))
            throw InputError(
                fmt::format("{} and {} exclude each other: {} races the cases, {} measures each to its "
                            "own target",
                            setting_name("time_budget", syntax), setting_name(key, syntax),
                            setting_name("time_budget", syntax), setting_name(key, syntax)));
    if (given("iterations") && !given("iterations=auto"))
        throw InputError(fmt::format("{} needs {} auto: a fixed count or time is not raced",
                                     setting_name("time_budget", syntax), setting_name("iterations", syntax)));
}

void check_options(const RunOptions& options, Syntax syntax) {
    if (options.drop_caches && options.cache != CacheMode::cold)
        throw InputError(
            fmt::format("{} needs {} cold", setting_name("drop_caches", syntax), setting_name("cache", syntax)));
    // A stopped job's bytes are counted from its own output file, which a shared file is not.
    if (options.shared_file && options.stonewall)
        throw InputError(
            fmt::format("{} with {}: a stopped job's bytes are counted from its own output file, and "
                        "with a shared file the jobs have none of their own",
                        setting_name("shared_file", syntax), setting_name("stonewall", syntax)));
}

void check_settings(const PlanRequest& plan, const RunOptions& options, Syntax syntax) {
    check_options(options, syntax);
    // A budget the machine cannot give limits nothing, and a report would claim it.
    if (const std::uint64_t memory = sys::memory_total(); memory > 0 && options.cache_budget > memory) {
        // In bytes where the short forms would read the same.
        const bool close = format_size(options.cache_budget) == format_size(memory);
        const auto size = [&](std::uint64_t b) { return close ? fmt::format("{} bytes", b) : format_size(b); };
        throw InputError(
            fmt::format("invalid {} {}: more than this machine's memory, {}; expected at most {}, or 0 "
                        "for the machine's whole cache",
                        setting_name("cache_budget", syntax), size(options.cache_budget), size(memory), size(memory)));
    }
    // Jobs read a user's file together: after the first, it is in the cache.
    if (!plan.input.empty() && options.cache == CacheMode::cold &&
        std::any_of(plan.jobs.begin(), plan.jobs.end(), [](unsigned j) { return j > 1; }))
        throw InputError(
            fmt::format("{} above 1 with --input and {} cold: every job would read the one file, so "
                        "only the first would start cold; run one job, or generated files",
                        setting_name("jobs", syntax), setting_name("cache", syntax)));
    if (options.shared_file && !plan.input.empty())
        throw InputError(
            fmt::format("{} with --input: the jobs' shared file is one iolab makes, with a part for each "
                        "job; read a file of your own with file per job",
                        setting_name("shared_file", syntax)));
    // Zeros make every part alike: a job on another part than its own would verify.
    if (options.shared_file && plan.data.kind == DataKind::zeros)
        throw InputError(
            fmt::format("{} with {} zeros: every part of the shared file would hold the same bytes, so "
                        "a job on the wrong part would still verify; use random, text or compressible",
                        setting_name("shared_file", syntax), setting_name("data", syntax)));
}

void Parameter::apply_value(std::string_view value, PlanRequest& plan, RunOptions& options) const {
    if (!of_kind) return apply(value, plan, options);
    std::vector<std::uint64_t> values;
    if (of_kind->size) {
        values = detail::sizes(value, of_kind->max);
    } else {
        const auto n = detail::whole_numbers(value, static_cast<unsigned>(of_kind->max));
        values.assign(n.begin(), n.end());
    }
    plan.kind_values[std::string(key)] = std::move(values);  // only once the whole list is good
}

std::size_t Parameter::value_count(const PlanRequest& plan) const {
    if (!of_kind) return values ? values(plan) : 1;
    const auto given = plan.kind_values.find(key);
    return given == plan.kind_values.end() ? 1 : given->second.size();
}

void Parameter::take_value(const PlanRequest& plan, std::size_t i, CaseSpec& c) const {
    if (!of_kind) return take(plan, i, c);
    // A kind's value is a case's only where its strategy takes it; one not given stays the default.
    const auto given = plan.kind_values.find(key);
    if (given != plan.kind_values.end() && (!c.strategy || taken_by(*c.strategy)))
        of_kind->set(c.workload, given->second[i]);
}

std::string Parameter::get(const CaseSpec& c) const {
    if (!of_kind) return print_case(c);
    const std::uint64_t v = of_kind->get(c.workload);
    return of_kind->size ? format_compact(v) : std::to_string(v);
}

bool Parameter::has(const CaseSpec& c) const {
    if (has_fn) return has_fn(c);
    return c.strategy && taken_by(*c.strategy);
}

void Parameter::set(CaseSpec& c, std::string_view value) const {
    if (set_fn) return set_fn(c, value);
    PlanRequest plan;
    RunOptions options;
    apply_setting(*this, value, Syntax::suite, plan, options);
    // A case has one value of each: a list or a range is not one.
    if (value_count(plan) != 1)
        throw InputError(one_line(fmt::format("invalid {} '{}': expected one value", key, value)));
    take_value(plan, 0, c);
}

std::vector<CaseSpec> cross(const Strategy& s, const PlanRequest& plan) {
    CaseSpec first;
    first.strategy = &s;
    first.workload.family = s.family;
    first.workload.input = plan.input;
    std::vector<CaseSpec> cases = {first};
    // Each parameter in turn: every case so far once for each of its values, the first row
    // outermost; a parameter the strategy does not take gives its first value only.
    for (const Parameter& p : parameters()) {
        if (!p.crossed()) continue;
        const std::size_t n = p.taken_by(s) ? p.value_count(plan) : 1;
        if (n == 0) throw InputError(fmt::format("no value for {}", p.key));
        if (saturating_mul(cases.size(), n) > kMaxCases)
            throw InputError(
                fmt::format("the parameter lists make more than {} cases; narrow --strategy or the lists", kMaxCases));
        std::vector<CaseSpec> next;
        next.reserve(cases.size() * n);
        for (const CaseSpec& c : cases)
            for (std::size_t i = 0; i < n; ++i) {
                next.push_back(c);
                p.take_value(plan, i, next.back());
            }
        cases = std::move(next);
        if (cases.size() > kMaxCases)
            throw InputError(
                fmt::format("the parameter lists make more than {} cases; narrow --strategy or the lists", kMaxCases));
    }
    return cases;
}

void check_taken(const PlanRequest& plan, const std::vector<const Strategy*>& strategies, Syntax syntax) {
    for (std::string_view key : plan.given) {
        const Parameter* p = find_parameter(key);
        if (!p || p->takes == 0 ||
            std::any_of(strategies.begin(), strategies.end(), [&](const Strategy* s) { return p->taken_by(*s); }))
            continue;
        std::vector<std::string> takers;
        for (const Strategy& s : Registry::builtin().all())
            if (p->taken_by(s)) takers.push_back(s.name);
        const std::size_t shown = std::min<std::size_t>(takers.size(), 4);
        throw InputError(one_line(fmt::format(
            "{} is taken only by {}{}; none of the strategies chosen takes it: drop it, or choose one that does",
            setting_name(key, syntax),
            fmt::join(takers.begin(), takers.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
            takers.size() > shown ? fmt::format(" and {} more", takers.size() - shown) : "")));
    }
}

std::map<std::string, std::string> CaseSpec::params() const {
    std::map<std::string, std::string> out;
    for (const Parameter& p : parameters())
        if (p.case_param() && p.has(*this)) out[std::string(p.key)] = p.get(*this);
    return out;
}

std::string CaseSpec::label_params() const {
    std::string l;
    for (const Parameter& p : parameters())
        if (p.case_param() && p.labelled(*this)) l += fmt::format("{}{}={}", l.empty() ? "" : " ", p.key, p.get(*this));
    return l;
}

std::string CaseSpec::label() const {
    const std::string params = label_params();
    return params.empty() ? strategy->name : strategy->name + " " + params;
}

}  // namespace iolab
