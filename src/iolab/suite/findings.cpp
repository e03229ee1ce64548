#include "iolab/suite/findings.hpp"
#include "iolab/harness/params.hpp"

#include <fnmatch.h>

#include <algorithm>
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
    const Parameter* p = find_parameter(key == "size" && c.full_bytes ? "slice_of" : key);
    if (!p || !p->case_param() || !p->has(c)) return false;
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

// Why a case cannot decide a finding, or "". Its spread is no reason: the interval carries it.
std::string untrusted(const CaseResult& c) {
    if (c.samples.size() < kMinSamplesForVerdict)
        return fmt::format("too few samples: {} has {}, fewer than {}", c.spec.label(), c.samples.size(),
                           kMinSamplesForVerdict);
    if (c.cold_unproven) return fmt::format("{} was not proven cold", c.spec.label());
    if (!c.no_figure.empty()) return fmt::format("{} has no figure: {}", c.spec.label(), c.no_figure);
    if (c.checked == Checked::none) return fmt::format("{} is unverified", c.spec.label());
    return {};
}

// Why an interval that decides nothing does not, for the note: it straddles the threshold.
std::string straddles(const FindingResult& r) {
    return fmt::format("its interval [{}, {}] straddles {}", format_ratio(r.low),
                       std::isfinite(r.high) ? format_ratio(r.high) : std::string("inf"), r.threshold());
}

const CaseResult* select_from(const Selector& s, const std::vector<const CaseResult*>& cases) {
    const CaseResult* pick = nullptr;
    for (const CaseResult* c : cases) {
        if (c->status != Status::ok || !matches(s, *c)) continue;
        if (!pick ||
            (s.slowest ? c->throughput_mib_s < pick->throughput_mib_s : c->throughput_mib_s > pick->throughput_mib_s))
            pick = c;
    }
    return pick;
}

// Whether a case can never decide a finding, however many samples it gets: its output is not
// checked, or it was found cached where it had to be cold.
bool hopeless(const CaseResult& c) {
    return c.status != Status::ok || c.cold_unproven || (!c.samples.empty() && c.checked == Checked::none);
}

// Whether a selector's side is gone: it matches cases, and every one failed or was skipped.
bool gone(const Selector& s, const std::vector<const CaseResult*>& cases) {
    bool any = false;
    for (const CaseResult* c : cases)
        if (matches(s, *c)) {
            if (c->status == Status::ok) return false;
            any = true;
        }
    return any;
}

// Whether a finding or a knee needs the case measured.
bool needs(const Finding& f, const CaseSpec& c) { return selects(f.faster, c) || selects(f.slower, c); }
bool needs(const KneeSpec& k, const CaseSpec& c) {
    return c.group == k.group && c.strategy && c.strategy->name == k.strategy;
}

// A finding's result on its two cases, before its ratio: what evaluate() and look_at() share.
FindingResult on_cases(const Finding& f, const CaseResult& fast, const CaseResult& slow) {
    FindingResult r;
    r.finding = f;
    r.suite = f.suite;
    r.faster_case = fast.spec.label();
    r.slower_case = slow.spec.label();
    r.samples = std::min(fast.samples.size(), slow.samples.size());
    return r;
}

// The verdict of a ratio's interval against a finding's threshold.
Verdict3 verdict_of(const Finding& f, double low, double high) {
    if (f.within > 0) {
        const double hi = 1 + f.within, lo = 1 / hi;
        if (low >= lo && high <= hi) return Verdict3::holds;
        if (high < lo || low > hi) return Verdict3::does_not_hold;
        return Verdict3::inconclusive;
    }
    if (low >= f.at_least) return Verdict3::holds;
    if (high < f.at_least) return Verdict3::does_not_hold;
    return Verdict3::inconclusive;
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
        for (const Finding& f : suite.findings) held[i] = held[i] || needs(f, c);
        for (const KneeSpec& k : suite.knees) held[i] = held[i] || needs(k, c);
    }
    return held;
}

const CaseResult* select_case(const Selector& s, const std::vector<CaseResult>& cases) {
    std::vector<const CaseResult*> all;
    for (const auto& c : cases) all.push_back(&c);
    return select_from(s, all);
}

std::string FindingResult::threshold() const {
    if (finding.within > 0) return fmt::format("within {}", format_ratio(1 + finding.within));
    return fmt::format(">= {}", format_ratio(finding.at_least));
}

std::string FindingResult::outcome() const {
    std::string text = std::string(to_string(verdict)) + finding.runtime_words();
    if (ratio > 0)
        text += fmt::format(" {} [{}, {}]", format_ratio(ratio), format_ratio(low),
                            std::isfinite(high) ? format_ratio(high) : std::string("-"));
    if (samples > 0) text += fmt::format(" after {} sample{}", samples, samples == 1 ? "" : "s");
    return text;
}

FindingResult evaluate(const Finding& f, const std::vector<CaseResult>& cases, double confidence) {
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
    r = on_cases(f, *fast, *slow);
    const RatioEstimate ri = ratio_of(*slow, *fast, confidence);
    r.ratio = ri.ratio;
    r.low = ri.low;
    r.high = ri.high;
    for (const CaseResult* c : {fast, slow})
        if (const std::string why = untrusted(*c); !why.empty()) {
            r.note = why;
            return r;  // INCONCLUSIVE
        }
    r.verdict = verdict_of(f, r.low, r.high);
    if (r.verdict == Verdict3::inconclusive) r.note = straddles(r);
    return r;
}

double look_alpha(std::size_t look) { return (1 - kRatioConfidence) / std::ldexp(1.0, static_cast<int>(look + 1)); }

double final_confidence(std::size_t looks) {
    const double alpha = 1 - kRatioConfidence;
    // Looks 1..J spent alpha/4 + ... + alpha/2^(J+1) = alpha/2 (1 - 2^-J).
    return 1 - (alpha - alpha / 2 * (1 - std::ldexp(1.0, -static_cast<int>(looks))));
}

FindingResult look_at(const Finding& f, const CaseResult& faster, const CaseResult& slower, std::size_t look) {
    FindingResult r = on_cases(f, faster, slower);
    r.look = look;
    const RatioEstimate ri = ratio_of(slower, faster, 1 - look_alpha(look));
    r.ratio = ri.ratio;
    r.low = ri.low;
    r.high = ri.high;
    if (r.ratio > 0) r.verdict = verdict_of(f, r.low, r.high);
    return r;
}

Judge::Judge(const Suite& suite) : knees_(suite.knees) {
    // Raced in this process: a group in child processes has its samples only at the end.
    const auto raced = [&](const std::string& group) {
        for (const Group& g : suite.groups)
            if (g.id == group)
                return g.options.race && g.options.iterations.adaptive && g.options.forks == 0 &&
                       g.options.cache_budget == 0;
        return false;
    };
    for (const Finding& f : suite.findings)
        tracks_.push_back({f, raced(f.faster.group) && raced(f.slower.group), 0, {}});
}

std::size_t Judge::decided() const {
    return static_cast<std::size_t>(
        std::count_if(tracks_.begin(), tracks_.end(), [](const Track& t) { return t.decided.has_value(); }));
}

std::vector<bool> Judge::hold(const std::vector<CaseResult>& earlier, const std::vector<CaseResult>& now) {
    std::vector<const CaseResult*> all;
    for (const auto& c : earlier) all.push_back(&c);
    for (const auto& c : now) all.push_back(&c);
    const auto running = [&](const CaseResult* c) { return c >= now.data() && c < now.data() + now.size(); };
    for (Track& t : tracks_) {
        if (t.decided || !t.raced) continue;
        const CaseResult* fast = select_from(t.finding.faster, all);
        const CaseResult* slow = select_from(t.finding.slower, all);
        // Looks come with the samples of the group measured now.
        if (fast && slow && !running(fast) && !running(slow)) continue;
        // A look needs both cases fit to decide: measured, checked, cold where they must be. One
        // that never can be (its output is not checked, or it was not proven cold), or a side whose
        // every case failed or was skipped, lets the finding go: more samples would not decide it,
        // and it is judged at the end. Asked again every round: a side's pick may change.
        t.hopeless = gone(t.finding.faster, all) || gone(t.finding.slower, all) ||
                     (fast && slow && (hopeless(*fast) || hopeless(*slow)));
        if (t.hopeless) continue;
        if (!fast || !slow || !fast->trusted() || !slow->trusted()) continue;
        // The look due: the last whose sample count both cases have reached (a skipped look
        // spends nothing).
        const std::size_t n = std::min(fast->samples.size(), slow->samples.size());
        const std::size_t due = n >= kMinSamplesForVerdict ? looks_until(n) : 0;
        if (due <= t.looks) continue;
        t.looks = due;
        FindingResult r = look_at(t.finding, *fast, *slow, due);
        if (r.verdict == Verdict3::inconclusive) continue;
        t.decided = std::move(r);
        if (on_decided) on_decided(*t.decided);
    }
    std::vector<bool> held(now.size(), false);
    for (std::size_t i = 0; i < now.size(); ++i) {
        const CaseSpec& c = now[i].spec;
        for (const Track& t : tracks_) held[i] = held[i] || (!t.decided && !t.hopeless && needs(t.finding, c));
        // A knee needs its sweep's points placed: it holds each until its table can place it.
        for (const KneeSpec& k : knees_) held[i] = held[i] || (needs(k, c) && now[i].samples.size() < kPlacedSamples);
    }
    return held;
}

std::vector<FindingResult> Judge::verdicts(const std::vector<CaseResult>& all) const {
    std::vector<FindingResult> out;
    // A look's verdict stands while its two cases are still the ones the selectors pick and fit
    // to decide; a case that failed afterwards (a later run's error or verification), or another
    // case picked at the end, takes it back: the finding is judged at the end, as any other.
    const auto still = [&](const Selector& s, const std::string& label) {
        const CaseResult* c = select_case(s, all);
        return c && c->spec.label() == label && c->trusted();
    };
    for (const Track& t : tracks_) {
        if (t.decided && still(t.finding.faster, t.decided->faster_case) &&
            still(t.finding.slower, t.decided->slower_case)) {
            out.push_back(*t.decided);
            continue;
        }
        FindingResult r = evaluate(t.finding, all, final_confidence(t.looks));
        if (r.verdict == Verdict3::inconclusive && t.raced && r.note.starts_with("its interval"))
            r.note += " (undecided within the budget)";
        out.push_back(std::move(r));
    }
    return out;
}

std::string KneeResult::describe() const {
    const std::string where = spec.group.empty() ? spec.strategy : spec.strategy + " in " + spec.group;
    const std::string also = note.empty() ? "" : "; " + note;
    if (spec.over_jobs) {
        if (knee_buffer == 0) return fmt::format("{}: fewer than two measured job counts", where);
        return fmt::format(
            "{}: {} job{} surely reach{} {:.0f}% of the best aggregate throughput ({:.1f} MiB/s with {} "
            "job{}){}",
            where, knee_buffer, knee_buffer == 1 ? "" : "s", knee_buffer == 1 ? "es" : "", spec.fraction * 100,
            best_mib_s, best_buffer, best_buffer == 1 ? "" : "s", also);
    }
    if (knee_buffer == 0) return fmt::format("{}: fewer than two measured buffer sizes", where);
    return fmt::format("{}: {} surely reaches {:.0f}% of the best throughput ({:.1f} MiB/s with {}){}", where,
                       format_compact(knee_buffer), spec.fraction * 100, best_mib_s, format_compact(best_buffer), also);
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
    // The best: the fastest median of the sweep's winner group (standing.hpp), the smaller point
    // between equals.
    Comparator cmp;
    const Standing s = stand(sweep, cmp);
    if (!s.pick) return r;
    const std::vector<const CaseResult*> group = s.winners();
    const CaseResult* best =
        *std::min_element(group.begin(), group.end(), [&](const CaseResult* a, const CaseResult* b) {
            if (a->throughput_mib_s != b->throughput_mib_s) return a->throughput_mib_s > b->throughput_mib_s;
            return point(a) < point(b);
        });
    r.best_mib_s = best->throughput_mib_s;
    r.best_buffer = point(best);
    // The knee: the smallest point whose time over the best's surely reaches the fraction (the
    // whole interval of their comparison within 1 / fraction); the best itself always does.
    std::vector<const CaseResult*> ranked;
    for (const auto& p : s.places)
        if (p.rank > 0) ranked.push_back(p.c);
    std::sort(ranked.begin(), ranked.end(),
              [&](const CaseResult* a, const CaseResult* b) { return point(a) < point(b); });
    const double bound = 1 / k.fraction;
    for (const CaseResult* c : ranked)
        if (c == best || cmp.ratio(*c, *best).high <= bound) {
            r.knee_buffer = point(c);
            break;
        }
    // A smaller point that might reach it too (its interval straddles the fraction): said.
    std::vector<std::string> might;
    for (const CaseResult* c : ranked)
        if (point(c) < r.knee_buffer && cmp.ratio(*c, *best).low <= bound) might.push_back(c->spec.label());
    if (!might.empty())
        r.note = fmt::format("{} might reach it too: the interval of {} straddles it", fmt::join(might, ", "),
                             might.size() == 1 ? "its comparison" : "their comparisons");
    return r;
}

}  // namespace iolab
