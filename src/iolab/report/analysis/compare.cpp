#include "iolab/report/analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "iolab/harness/ratio.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/strategies/kind.hpp"

namespace iolab {

std::size_t Comparison::significant() const {
    return static_cast<std::size_t>(std::count_if(shared.begin(), shared.end(), [](const CaseChange& c) {
        return c.change == Change::faster || c.change == Change::slower;
    }));
}

std::size_t Comparison::tripped() const {
    return static_cast<std::size_t>(
        std::count_if(shared.begin(), shared.end(), [](const CaseChange& c) { return c.tripped; }));
}

std::size_t Comparison::gated() const {
    return static_cast<std::size_t>(std::count_if(
        shared.begin(), shared.end(), [](const CaseChange& c) { return c.change != Change::too_few && c.ratio > 0; }));
}

bool Comparison::gate_failed() const {
    return threshold >= 0 && (tripped() > 0 || !broken.empty() || gated() == 0 || !ranks.empty() || !options.empty() ||
                              !partial.empty() || (!missing.empty() && !allow_missing));
}

std::string_view to_string(Change c) {
    switch (c) {
        case Change::faster: return "faster";
        case Change::slower: return "slower";
        case Change::too_few: return "~ (no time to compare)";
        case Change::same: break;
    }
    return "~";
}

namespace {

// Cases are matched by group, strategy and every parameter but a count sized by time and the size
// it makes (its rate is per item: 364 files one run and 385 the next are the same case).
using CaseKey = std::tuple<std::string, std::string, std::map<std::string, std::string>>;

CaseKey key_of(const CaseResult& c) {
    auto params = c.spec.params();
    if (c.spec.sized) {
        params.erase(std::string(kind_module(c.spec.workload.family).items_key));
        params.erase("size");
    }
    return CaseKey{c.spec.group, c.name(), std::move(params)};
}

// The high end of an interval that has none, as a result file keeps it.
constexpr double kNoBound = 1e9;

}  // namespace

std::string comparison_label(const CaseResult& c) {
    return fmt::format("{}{} size={}", c.spec.group.empty() ? "" : c.spec.group + " ", c.spec.label(),
                       format_compact(c.spec.whole_bytes()));
}

std::string matched_label(const CaseResult& c) {
    if (!c.spec.sized) return comparison_label(c);
    const auto& [group, name, params] = key_of(c);
    std::string out = group.empty() ? name : group + " " + name;
    for (const auto& [k, v] : params) out += fmt::format(" {}={}", k, v);
    return out + " (count sized by time)";
}

// The ratio of a case's times per byte, after over before (below 1 the second run is faster; a
// tool's net time, as ranked), its interval widened by the between-run margin.
CaseChange compare_case(const CaseResult& b, const CaseResult& a, const GateSettings& gate) {
    CaseChange ch{comparison_label(b), b.throughput_mib_s, a.throughput_mib_s, 0, 0, 0, 1, Change::too_few, false};
    const RatioEstimate r = ratio_of(a, b, kRatioConfidence);
    // A case that moved no bytes, or has no figure, has no time per byte to compare.
    if (a.throughput_mib_s <= 0 || b.throughput_mib_s <= 0 || r.ratio <= 0) return ch;
    ch.ratio = r.ratio;
    ch.low = r.low / (1 + gate.between);
    // No bound (a device-bound case with too few samples for Moses's interval): nothing is told.
    ch.high = std::min(r.high * (1 + gate.between), kNoBound);
    ch.envelope = r.envelope;
    ch.p = mann_whitney_p(a.per_byte(), b.per_byte());
    ch.change = ch.low > 1 ? Change::slower : ch.high < 1 ? Change::faster : Change::same;
    ch.tripped = gate.threshold >= 0 && ch.low > 1 + gate.threshold;
    return ch;
}

namespace {

// Under MPI a case is every rank's work: runs of different rank counts moved different bytes.
std::string rank_warning(const Report& before, const Report& after) {
    const auto ranks = [](const Report& r) { return std::max<std::size_t>(1, r.environment.hosts.size()); };
    if (ranks(before) == ranks(after)) return "";
    return fmt::format(
        "the runs had {} and {} MPI rank(s): each case's bytes and throughput are all ranks' together, so the "
        "times compare different amounts of work",
        ranks(before), ranks(after));
}

// Runs whose groups ran under other options (cache, sync, verification) measured other work.
std::string options_warning(const Report& before, const Report& after) {
    const auto options_of = [](const Report& r, const std::string& group) {
        for (const ReportGroup& g : r.groups)
            if (g.id == group) return options_text(g.options);
        return options_text(r.options);
    };
    std::vector<std::string> groups{""};
    for (const ReportGroup& g : before.groups) groups.push_back(g.id);
    for (const std::string& g : groups) {
        const bool in_both = g.empty() || std::any_of(after.groups.begin(), after.groups.end(),
                                                      [&](const ReportGroup& x) { return x.id == g; });
        if (!in_both) continue;
        const std::string b = options_of(before, g), a = options_of(after, g);
        if (a != b)
            return fmt::format("the runs were measured under other options{}: {}; against {}",
                               g.empty() ? "" : " in group " + g, b, a);
    }
    return "";
}

// Runs measured on other machines: their differences, said beside the verdict.
std::string machine_warning(const Environment& b, const Environment& a) {
    const auto differ = machine_differences(b, a);
    if (differ.empty()) return "";
    return fmt::format("the runs were measured on other machines: {}; their times differ by more than code",
                       fmt::join(differ, "; "));
}

std::string ratio_text(double x) { return x > 0 && x < 0.01 ? fmt::format("{:.3g}", x) : fmt::format("{:.3f}", x); }

}  // namespace

// Not the kernel nor the date: a gate is there to catch what those change.
std::vector<std::string> machine_differences(const Environment& b, const Environment& a) {
    std::vector<std::string> differ;
    // What either run does not say (an older file, a field left out) is not a difference.
    const auto text = [&](const char* what, const std::string& x, const std::string& y) {
        if (!x.empty() && !y.empty() && x != y)
            differ.push_back(fmt::format("{} {} against {}", what, one_line(x), one_line(y)));
    };
    text("processor", b.cpu_model, a.cpu_model);
    if (b.cpus > 0 && a.cpus > 0 && b.cpus != a.cpus)
        differ.push_back(fmt::format("cpus {} against {}", b.cpus, a.cpus));
    // The same machine reports slightly other totals under another kernel.
    const double mem_b = static_cast<double>(b.memory_bytes), mem_a = static_cast<double>(a.memory_bytes);
    if (mem_b > 0 && mem_a > 0 && std::fabs(mem_b - mem_a) > 0.05 * std::max(mem_b, mem_a))
        differ.push_back(fmt::format("memory {} against {}", format_size(b.memory_bytes), format_size(a.memory_bytes)));
    text("scratch filesystem", b.fs_type, a.fs_type);
    text("device", b.device_model, a.device_model);
    return differ;
}

Comparison compare_runs(const Report& before, const Report& after, std::string before_name, std::string after_name,
                        const GateSettings& gate) {
    Comparison out;
    out.before = one_line(before_name);
    out.after = one_line(after_name);
    out.threshold = gate.threshold;
    out.between = gate.between;
    out.between_source = gate.between_source;
    out.allow_missing = gate.allow_missing;
    out.ranks = rank_warning(before, after);
    out.options = options_warning(before, after);
    out.machine = machine_warning(before.environment, after.environment);
    if (before.partial || after.partial)
        out.partial = fmt::format("a signal stopped {}: its cases not measured before it are missing here",
                                  before.partial && after.partial ? "both runs"
                                  : before.partial                ? out.before
                                                                  : out.after);
    // A case found twice in a file (the same key) is matched with the next one of the other file.
    std::map<CaseKey, std::vector<const CaseResult*>> later;
    for (const auto& c : after.cases) later[key_of(c)].push_back(&c);
    std::map<CaseKey, std::size_t> taken;
    std::vector<double> ratios;
    const auto status_in = [](const CaseResult& c, const std::string& run) {
        return fmt::format("{} in {}{}", to_string(c.status), run, c.reason.empty() ? "" : " (" + c.reason + ")");
    };
    for (const auto& b : before.cases) {
        const CaseKey key = key_of(b);
        auto& next = taken[key];
        const auto it = later.find(key);
        const std::string label = comparison_label(b);
        if (it == later.end() || next >= it->second.size()) {
            out.removed.push_back(label);
            if (b.status == Status::ok) out.missing.push_back(one_line(label + ": not in " + out.after));
            continue;
        }
        const CaseResult& a = *it->second[next++];
        if (b.status == Status::ok && a.status == Status::failed) {
            out.broken.push_back(one_line(label + ": " + status_in(a, out.after)));
        } else if (b.status != Status::ok || a.status != Status::ok) {
            out.not_compared.push_back(
                one_line(label + ": " + (b.status != Status::ok ? status_in(b, out.before) : status_in(a, out.after))));
            if (b.status == Status::ok) out.missing.push_back(out.not_compared.back());
        } else {
            out.shared.push_back(compare_case(b, a, gate));
            if (out.shared.back().ratio > 0)
                ratios.push_back(out.shared.back().ratio);
            else if (b.throughput_mib_s > 0)
                out.missing.push_back(one_line(label + ": no time to compare in " + out.after +
                                               (a.no_figure.empty() ? "" : " (" + a.no_figure + ")")));
        }
    }
    for (const auto& [key, cases] : later)
        for (std::size_t i = taken.count(key) ? taken[key] : 0; i < cases.size(); ++i)
            out.added.push_back(comparison_label(*cases[i]));
    if (!ratios.empty()) out.geomean = geometric_mean(ratios);
    // The cases that tripped the gate first, the rest in the first run's order.
    std::stable_partition(out.shared.begin(), out.shared.end(), [](const CaseChange& c) { return c.tripped; });
    return out;
}

Table comparison_table(const Comparison& c) {
    Table t;
    t.title = fmt::format("{} against {}", c.after, c.before);
    t.columns = {{"case", true},
                 {"MiB/s before"},
                 {"MiB/s after"},
                 {"time ratio"},
                 {fmt::format("{:.0f}% interval ±runs", kRatioConfidence * 100)},
                 {"p (U test)"},
                 {"change", true}};
    for (const CaseChange& ch : c.shared) {
        Row row;
        row.cells = {
            ch.label,
            fmt::format("{:.1f}", ch.before_mib_s),
            fmt::format("{:.1f}", ch.after_mib_s),
            ratio_text(ch.ratio),
            fmt::format("[{}, {}]", ratio_text(ch.low), ratio_text(ch.high)),
            ch.change == Change::too_few ? "-" : fmt::format("{:.3g}", ch.p),
            ch.tripped ? fmt::format("slower, beyond {:g}%", c.threshold * 100) : std::string(to_string(ch.change))};
        row.tone = ch.change == Change::faster ? Tone::good : ch.change == Change::slower ? Tone::bad : Tone::plain;
        t.rows.push_back(std::move(row));
    }
    return t;
}

std::vector<std::string> comparison_lines(const Comparison& c, std::size_t most) {
    std::vector<std::string> out;
    std::size_t with_ratio = 0;
    for (const CaseChange& ch : c.shared) with_ratio += ch.ratio > 0;
    if (c.shared.empty())
        out.push_back(fmt::format("no case was measured in both {} and {}: nothing to compare", c.before, c.after));
    else
        out.push_back(fmt::format(
            "geometric mean of the time ratios over {} case(s): {:.3f} ({} change(s) whose whole interval excludes 1; "
            "~: none)",
            with_ratio, c.geomean, c.significant()));
    const auto some = [&](const std::vector<std::string>& labels) {
        std::vector<std::string> shown(labels.begin(), labels.begin() + std::min(labels.size(), most));
        return fmt::format("{}{}", fmt::join(shown, "; "),
                           labels.size() > most ? fmt::format("; and {} more", labels.size() - most) : "");
    };
    if (!c.broken.empty())
        out.push_back(fmt::format("{} case(s) measured in {} failed in {}: {}", c.broken.size(), c.before, c.after,
                                  some(c.broken)));
    if (!c.not_compared.empty())
        out.push_back(
            fmt::format("{} case(s) in both runs not compared: {}", c.not_compared.size(), some(c.not_compared)));
    if (!c.removed.empty())
        out.push_back(fmt::format("{} case(s) only in {} (removed): {}", c.removed.size(), c.before, some(c.removed)));
    if (!c.added.empty())
        out.push_back(fmt::format("{} case(s) only in {} (added): {}", c.added.size(), c.after, some(c.added)));
    if (!c.ranks.empty()) out.push_back(c.ranks);
    if (!c.options.empty()) out.push_back(c.options);
    if (!c.machine.empty()) out.push_back(c.machine);
    if (!c.partial.empty()) out.push_back(c.partial);
    out.push_back(fmt::format(
        "intervals: the {:.0f}% interval of the ratio (Hodges-Lehmann, Moses; the calibrated envelope for {} case(s) "
        "with too few samples) widened by {:g}% either way for the spread between runs ({})",
        kRatioConfidence * 100,
        std::count_if(c.shared.begin(), c.shared.end(), [](const CaseChange& ch) { return ch.envelope; }),
        c.between * 100, c.between_source));
    if (c.threshold < 0) return out;
    if (!c.missing.empty())
        out.push_back(fmt::format("{} case(s) measured in {} and not tested in {}{}: {}", c.missing.size(), c.before,
                                  c.after, c.allow_missing ? " (allowed: --allow-missing)" : "", some(c.missing)));
    const std::string rule = fmt::format("by more than {:g}% (the whole widened interval beyond {:.3f})",
                                         c.threshold * 100, 1 + c.threshold);
    if (c.tripped() > 0)
        out.push_back(fmt::format("REGRESSION: {} case(s) slower {}", c.tripped(), rule));
    else if (!c.broken.empty())
        out.push_back(fmt::format("REGRESSION: {} case(s) failed in {}", c.broken.size(), c.after));
    else if (!c.missing.empty() && !c.allow_missing)
        out.push_back(
            fmt::format("GATE FAILED: {} case(s) the baseline measured were not tested (first: {}); "
                        "--allow-missing lets a run leave cases out",
                        c.missing.size(), c.missing.front()));
    else if (!c.ranks.empty())
        out.push_back("GATE FAILED: runs of different MPI rank counts cannot be gated");
    else if (!c.options.empty())
        out.push_back("GATE FAILED: runs measured under other options cannot be gated");
    else if (!c.partial.empty())
        out.push_back("GATE FAILED: a run a signal stopped cannot be gated: its missing cases were not tested");
    else if (c.gated() == 0)
        out.push_back("GATE FAILED: it could test no case; it fails rather than pass what it did not test");
    else
        out.push_back(fmt::format("no case is slower {}: the gate passes ({} case(s) tested)", rule, c.gated()));
    return out;
}

std::string verdict_counts(const Comparison& c) {
    std::size_t slower = 0, faster = 0, same = 0, few = 0;
    for (const CaseChange& ch : c.shared) {
        slower += ch.change == Change::slower;
        faster += ch.change == Change::faster;
        same += ch.change == Change::same;
        few += ch.change == Change::too_few;
    }
    std::string out = fmt::format("{} case(s) compared: {} slower", c.shared.size(), slower);
    if (c.threshold >= 0) out += fmt::format(" ({} beyond the gate's {:g}%)", c.tripped(), c.threshold * 100);
    out += fmt::format(", {} the same, {} faster", same, faster);
    if (few > 0) out += fmt::format(", {} without a time to compare", few);
    if (!c.ranks.empty() || !c.options.empty()) out += " (the runs are not alike: see below)";
    return out;
}

std::vector<std::string> gate_lines(const Comparison& c) {
    std::vector<std::string> out;
    for (const CaseChange& ch : c.shared)
        if (ch.tripped)
            out.push_back(fmt::format("slower: {}: time ratio {:.3f} [{:.3f}, {:.3f}], p = {:.3g}", ch.label, ch.ratio,
                                      ch.low, ch.high, ch.p));
    for (const std::string& b : c.broken) out.push_back("failed: " + b);
    return out;
}

std::string render_comparison(const Comparison& c, bool markdown) {
    const auto text = [&](const std::string& s) { return markdown ? markdown_escape(s) : s; };
    // The cases that tripped the gate, first, one line each; then the verdicts in one line.
    std::string out;
    for (const std::string& l : gate_lines(c)) out += (markdown ? "- " : "") + text(l) + "\n";
    if (!out.empty()) out += "\n";
    if (!c.shared.empty()) out += text(verdict_counts(c)) + (markdown ? "\n\n" : "\n");
    const Table t = comparison_table(c);
    if (!c.shared.empty()) out += (markdown ? markdown_table(t) : text_table(t, false)) + "\n";
    for (const auto& l : comparison_lines(c)) out += text(l) + (markdown ? "\n\n" : "\n");
    return out;
}

std::string render_comparison(const Report& before, const Report& after, bool markdown) {
    return render_comparison(compare_runs(before, after, "the first run", "the second run", GateSettings{}), markdown);
}

double parse_threshold(const std::string& text, const std::string& option) {
    std::string_view t = trim(text);
    if (t.ends_with('%')) t.remove_suffix(1);
    // Digits with an optional fraction: no sign, exponent, hex or spaces inside.
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    const std::size_t dot = t.find('.');
    const std::string_view whole = t.substr(0, dot), part = dot == std::string_view::npos ? "" : t.substr(dot + 1);
    const bool ok = !whole.empty() && std::all_of(whole.begin(), whole.end(), digit) &&
                    (dot == std::string_view::npos || (!part.empty() && std::all_of(part.begin(), part.end(), digit)));
    const double x = ok ? std::stod(std::string(t)) : -1;
    if (!ok || x > 1000)
        throw InputError(
            one_line(fmt::format("invalid {} '{}': expected a percentage from 0% to 1000%, like 5%", option, text)));
    return x / 100;
}

}  // namespace iolab
