#include "iolab/suite/findings.hpp"

#include <fnmatch.h>

#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "iolab/chain/chain.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/standing.hpp"
#include "iolab/harness/stats.hpp"

namespace iolab {

namespace {

// Whether the case's parameter reads as `want` does (16K is 16384; chains compare by layers).
// A byte-at-a-time case matches a size by the whole file it stands for.
bool param_matches(const CaseSpec& c, const std::string& key, const std::string& want) {
    const CaseParam* p = find_case_param(key == "size" && c.full_bytes ? "slice_of" : key);
    if (!p || !p->has(c)) return false;
    const auto canonical = [&](const std::string& text) {
        CaseSpec copy = c;
        p->set(copy, text);
        return p->get(copy);
    };
    try {
        return canonical(p->get(c)) == canonical(want);
    } catch (const InputError&) {
        return false;
    }
}

bool matches(const Selector& s, const CaseResult& c) { return selects(s, c.spec); }

// Why a case cannot decide a finding, or "".
std::string untrusted(const CaseResult& c) {
    if (c.samples.size() < kMinSamplesForVerdict)
        return fmt::format("{} has {} sample{}, fewer than {}", c.spec.label(), c.samples.size(),
                           c.samples.size() == 1 ? "" : "s", kMinSamplesForVerdict);
    if (c.cold_unproven) return fmt::format("{} was not proven cold", c.spec.label());
    if (c.checked == Checked::none) return fmt::format("{} is unverified", c.spec.label());
    if (!c.stable) return fmt::format("{} is unstable: it {}", c.spec.label(), instability(c));
    return {};
}

}  // namespace

bool selects(const Selector& s, const CaseSpec& c) {
    if (c.group != s.group || !c.strategy) return false;
    bool name = false;
    for (const auto& p : s.strategies) name = name || ::fnmatch(p.c_str(), c.strategy->name.c_str(), 0) == 0;
    if (!name) return false;
    for (const auto& [k, v] : s.params)
        if (!param_matches(c, k, v)) return false;
    return true;
}

std::vector<bool> held_cases(const Suite& suite, const std::vector<CaseSpec>& group_cases) {
    std::vector<bool> held(group_cases.size(), false);
    for (std::size_t i = 0; i < group_cases.size(); ++i) {
        const CaseSpec& c = group_cases[i];
        for (const Finding& f : suite.findings) held[i] = held[i] || selects(f.faster, c) || selects(f.slower, c);
        for (const KneeSpec& k : suite.knees)
            held[i] = held[i] || (c.group == k.group && c.strategy && c.strategy->name == k.strategy);
    }
    return held;
}

const CaseResult* select_case(const Selector& s, const std::vector<CaseResult>& cases) {
    const CaseResult* pick = nullptr;
    for (const auto& c : cases) {
        if (c.status != Status::ok || !matches(s, c)) continue;
        if (!pick ||
            (s.slowest ? c.throughput_mib_s < pick->throughput_mib_s : c.throughput_mib_s > pick->throughput_mib_s))
            pick = &c;
    }
    return pick;
}

std::string FindingResult::threshold() const {
    if (finding.within > 0) return fmt::format("within {}", format_ratio(1 + finding.within));
    return fmt::format(">= {}", format_ratio(finding.at_least));
}

FindingResult evaluate(const Finding& f, const std::vector<CaseResult>& cases) {
    FindingResult r;
    r.finding = f;
    r.suite = f.suite;
    const CaseResult* fast = select_case(f.faster, cases);
    const CaseResult* slow = select_case(f.slower, cases);
    if (!fast || !slow) {
        const Selector& missing = fast ? f.slower : f.faster;
        r.note = fmt::format("no measured case for {} in group {}", missing.describe(), missing.group);
        // Say why, when the case exists but did not run.
        for (const auto& c : cases)
            if (c.spec.group == missing.group && c.status != Status::ok &&
                matches(Selector{missing.group, missing.strategies, missing.params, false}, c)) {
                r.note = fmt::format("{} {}: {}", c.spec.label(), to_string(c.status), c.reason);
                break;
            }
        return r;
    }
    r.faster_case = fast->spec.label();
    r.slower_case = slow->spec.label();
    const RatioEstimate ri = ratio_of(*slow, *fast);
    r.ratio = ri.ratio;
    r.low = ri.low;
    r.high = ri.high;
    for (const CaseResult* c : {fast, slow})
        if (const std::string why = untrusted(*c); !why.empty()) {
            r.note = why;
            return r;  // INCONCLUSIVE
        }
    if (f.within > 0) {
        const double hi = 1 + f.within, lo = 1 / hi;
        if (r.low >= lo && r.high <= hi)
            r.verdict = Verdict3::holds;
        else if (r.high < lo || r.low > hi)
            r.verdict = Verdict3::does_not_hold;
        else
            r.verdict = Verdict3::inconclusive;
    } else {
        if (r.low >= f.at_least)
            r.verdict = Verdict3::holds;
        else if (r.high < f.at_least)
            r.verdict = Verdict3::does_not_hold;
        else
            r.verdict = Verdict3::inconclusive;
    }
    return r;
}

std::string KneeResult::describe() const {
    const std::string where = spec.group.empty() ? spec.strategy : spec.strategy + " in " + spec.group;
    if (!note.empty()) return fmt::format("{}: INCONCLUSIVE: {}", where, note);
    if (spec.over_jobs) {
        if (knee_buffer == 0) return fmt::format("{}: fewer than two measured job counts", where);
        return fmt::format("{}: {} job{} reach{} {:.0f}% of the best aggregate throughput ({:.1f} MiB/s with {} job{})",
                           where, knee_buffer, knee_buffer == 1 ? "" : "s", knee_buffer == 1 ? "es" : "",
                           spec.fraction * 100, best_mib_s, best_buffer, best_buffer == 1 ? "" : "s");
    }
    if (knee_buffer == 0) return fmt::format("{}: fewer than two measured buffer sizes", where);
    return fmt::format("{}: {} reaches {:.0f}% of the best throughput ({:.1f} MiB/s with {})", where,
                       format_compact(knee_buffer), spec.fraction * 100, best_mib_s, format_compact(best_buffer));
}

KneeResult find_knee(const KneeSpec& k, const std::vector<CaseResult>& cases) {
    std::vector<const CaseResult*> sweep;
    for (const auto& c : cases)
        if (c.ranked() && c.spec.group == k.group && c.name() == k.strategy) sweep.push_back(&c);
    return knee_of(k, sweep);
}

KneeResult knee_of(const KneeSpec& k, const std::vector<const CaseResult*>& sweep) {
    KneeResult r;
    r.spec = k;
    r.suite = k.suite;
    const auto point = [&](const CaseResult* c) -> std::size_t {
        return k.over_jobs ? c->spec.workload.jobs : c->spec.workload.buffer;
    };
    // A knee needs a sweep: two points at least.
    std::set<std::size_t> points;
    for (const auto* c : sweep) points.insert(point(c));
    if (points.size() < 2) return r;
    // The best: the winner of the sweep as a table's answer picks it, inside its winner group
    // (standing.hpp); no knee where noise could have decided it.
    const Standing s = stand(sweep);
    if (!s.pick) {
        r.note = s.unsettled ? fmt::format("{} is unstable ({}), and its median beat every stable point",
                                           s.unsettled->spec.label(), instability(*s.unsettled))
                             : "no point of the sweep is stable";
        return r;
    }
    r.best_mib_s = s.pick->throughput_mib_s;
    r.best_buffer = point(s.pick);
    for (const auto& p : s.places)
        if (p.rank > 0 && p.c->throughput_mib_s >= k.fraction * r.best_mib_s &&
            (r.knee_buffer == 0 || point(p.c) < r.knee_buffer))
            r.knee_buffer = point(p.c);
    // An unstable point below the knee might have reached the fraction too.
    for (const auto& p : s.places)
        if (p.rank == 0 && p.c->status == Status::ok && p.c->ranked() && point(p.c) < r.knee_buffer &&
            p.c->throughput_mib_s >= k.fraction * r.best_mib_s) {
            r.note = fmt::format("{} is unstable ({}) and might be the knee", p.c->spec.label(), instability(*p.c));
            r.knee_buffer = 0;
            break;
        }
    return r;
}

}  // namespace iolab
