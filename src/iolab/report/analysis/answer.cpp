#include "iolab/report/analysis/answer.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "iolab/core/units.hpp"

namespace iolab {

namespace {

// "1.70x (1.62-1.77) faster than X", or "tied with X" where the two are not told apart.
std::string versus_text(const Versus& v) {
    const RatioEstimate& r = v.ratio;
    if (v.tied) return "tied with " + v.label;
    // "1.70x (1.62-1.77)": the interval's ends without their unit.
    const auto bare = [](double x) {
        std::string t = format_ratio(x);
        if (!t.empty() && t.back() == 'x') t.pop_back();
        return t;
    };
    if (r.ratio < 1)
        return fmt::format("{} ({}-{}) slower than {}", format_ratio(1 / r.ratio), bare(1 / r.high), bare(1 / r.low),
                           v.label);
    return fmt::format("{} ({}-{}) faster than {}", format_ratio(r.ratio), bare(r.low), bare(r.high), v.label);
}

// " (11.3-13.6 GiB/s)": the winner's interval in the unit of its median.
std::string interval_text(double mib_s, double low, double high) {
    if (low <= 0 || high <= 0) return "";
    const bool gib = mib_s >= 1024;
    const double unit = gib ? 1024 : 1;
    return fmt::format(" ({}-{} {})", format_figure(low / unit), format_figure(high / unit), gib ? "GiB/s" : "MiB/s");
}

// Why a table measured nothing: its cases' most common reason, and how many it stopped ("every case
// was skipped: the time budget was spent before its first sample (raise --time-budget)", "2 of 3
// cases failed: ...; 1 was skipped").
std::string nothing_measured(const RankedTable& t) {
    std::map<std::pair<Status, std::string>, std::size_t> reasons;
    for (const CaseResult* c : t.cases) ++reasons[{c->status, c->reason}];
    const auto most = std::max_element(reasons.begin(), reasons.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    const auto& [status, reason] = most->first;
    const std::size_t n = t.cases.size();
    const std::string who =
        most->second == n ? (n == 1 ? "its one case" : "every case") : fmt::format("{} of {} cases", most->second, n);
    const bool several = most->second > 1 && most->second < n;  // "2 of 3 cases were"; "every case was"
    return fmt::format("nothing was measured: {} {}: {}{}", who,
                       status == Status::failed ? "failed"
                       : several                ? "were skipped"
                                                : "was skipped",
                       reason.empty() ? "no reason given" : reason,
                       most->second == n ? "" : fmt::format("; the other {}: see the table", n - most->second));
}

}  // namespace

std::string_view everyday_strategy(Family f) { return row_of(f).everyday; }

std::string Answer::rate(double x) const {
    if (item == 0) return format_rate(x);
    return fmt::format("{} {}/s", format_figure(items_per_s(x, item)), item_name);
}

std::string Answer::figure() const {
    const auto n_of = [](std::size_t n, const std::string& v) {
        return fmt::format("{}n={}", v.empty() ? "" : "varies " + v + ", ", n);
    };
    std::string out = rate(mib_s);
    if (item > 0 && low > 0 && high > 0) {
        out += fmt::format(" ({}-{}, {})", format_figure(items_per_s(low, item)),
                           format_figure(items_per_s(high, item)), n_of(samples, varies));
    } else if (item == 0 && low > 0 && high > 0) {
        std::string range = interval_text(mib_s, low, high);  // " (a-b GiB/s)"
        range.insert(range.size() - 1, ", " + n_of(samples, varies));
        out += range;
    } else {
        out += fmt::format(" ({})", n_of(samples, varies));
    }
    return out;
}

std::string Answer::tied_text(bool figures, const std::string& beside) const {
    constexpr std::size_t kNamed = 3;
    // "files.write-io-uring queue=4 files=1000" beside "files.write-threads queue=4 files=1000": its
    // name and what differs, "files.write-io-uring".
    const auto named_beside = [&](const std::string& label) {
        if (beside.empty()) return label;
        std::vector<std::string> theirs;
        for (std::size_t at = beside.find(' '); at != std::string::npos; at = beside.find(' ', at + 1))
            theirs.push_back(beside.substr(at + 1, beside.find(' ', at + 1) - at - 1));
        std::string out = label.substr(0, label.find(' '));
        for (std::size_t at = label.find(' '); at != std::string::npos; at = label.find(' ', at + 1)) {
            const std::string word = label.substr(at + 1, label.find(' ', at + 1) - at - 1);
            if (std::find(theirs.begin(), theirs.end(), word) == theirs.end()) out += " " + word;
        }
        return out;
    };
    std::vector<std::string> named;
    for (std::size_t i = 0; i < std::min(kNamed, tied.size()); ++i)
        named.push_back(figures ? fmt::format("{} ({}, {}n={})", tied[i].label, rate(tied[i].mib_s),
                                              tied[i].varies.empty() ? "" : "varies " + tied[i].varies + ", ",
                                              tied[i].samples)
                                : named_beside(tied[i].label));
    return fmt::format("{}{}", fmt::join(named, ", "),
                       tied.size() > kNamed ? fmt::format(" and {} more", tied.size() - kNamed) : "");
}

std::string Answer::text() const {
    std::string out = table + (partial ? " (PARTIAL)" : "") + ": ";
    if (winner.empty()) return out + no_winner;
    out += fmt::format("{}, {}", winner, figure());
    if (!tied.empty())
        out +=
            fmt::format("; or any of these, none shown {:g}% slower than another: {}", margin * 100, tied_text(true));
    std::vector<std::string> vs;
    for (const Versus& v : versus) vs.push_back(versus_text(v));
    if (!vs.empty()) out += fmt::format("; {}", fmt::join(vs, ", "));
    return out;
}

Table answer_table(const std::vector<Answer>& answers) {
    Table t;
    t.title = "the answer";
    t.columns = {{"table", true}, {"pick", true}, {"figure"}, {"tied with", true}, {"vs everyday", true}};
    for (const Answer& a : answers) {
        Row row;
        row.cells = {a.table + (a.partial ? " (PARTIAL)" : ""), a.winner.empty() ? a.no_winner : a.winner};
        if (!a.winner.empty()) {
            const auto everyday =
                std::find_if(a.versus.begin(), a.versus.end(), [](const Versus& v) { return v.role == "everyday"; });
            row.cells.push_back(a.figure());
            row.cells.push_back(a.tied.empty() ? "-" : a.tied_text(false, a.winner));
            // Not beside the answer: the everyday way is the pick, or in its group, or was not measured.
            const std::string way(everyday_strategy(a.family));
            const auto is_way = [&](const std::string& label) { return label == way || label.starts_with(way + " "); };
            row.cells.push_back(
                everyday != a.versus.end() ? versus_text(*everyday)
                : is_way(a.winner)         ? "the pick is the everyday way"
                : std::any_of(a.tied.begin(), a.tied.end(), [&](const Member& m) { return is_way(m.label); })
                    ? "tied: in the winner group"
                    : "not in this table");
        } else {
            row.cells.insert(row.cells.end(), {"-", "-", "-"});
        }
        t.rows.push_back(std::move(row));
    }
    return t;
}

std::vector<Answer> answers(const std::vector<RankedTable>& tables) {
    std::vector<Answer> out;
    for (const RankedTable& t : tables) {
        std::set<std::string> strategies;
        for (const CaseResult* c : t.cases)
            if (c->status == Status::ok) strategies.insert(c->name());
        // One strategy: its table says all; none measured: the answer says why.
        if (strategies.size() == 1 || (strategies.empty() && t.cases.empty())) continue;
        Answer a;
        a.group = t.group.id;
        a.family = t.table.family;
        a.table = table_name(t);
        a.partial = t.group.partial;
        if (strategies.empty()) {
            a.no_winner = nothing_measured(t);
            out.push_back(std::move(a));
            continue;
        }
        const Standing& s = t.standing;
        a.margin = t.group.options.margin;
        if (!s.pick) {
            a.no_winner = "no case could be measured (see the table for why)";
            out.push_back(std::move(a));
            continue;
        }
        const CaseResult& w = *s.pick;
        a.winner = w.spec.label();
        a.mib_s = w.throughput_mib_s;
        a.samples = w.samples.size();
        a.varies = variation(w);
        a.item = w.spec.workload.item_bytes();
        a.item_name = w.spec.workload.item_name();
        std::tie(a.low, a.high) = rate_interval(w);
        for (const CaseResult* c : s.winners())
            if (c != &w) a.tied.push_back({c->spec.label(), c->throughput_mib_s, c->samples.size(), variation(*c)});
        // The references: the everyday way's fastest ranked case, and the slowest ranked one;
        // neither when it is in the winner group.
        Comparator cmp(a.margin);
        const auto in_group = [&](const CaseResult* c) {
            const auto g = s.winners();
            return std::find(g.begin(), g.end(), c) != g.end();
        };
        const CaseResult *everyday = nullptr, *slowest = nullptr;
        for (const auto& p : s.places) {
            if (p.rank == 0) continue;
            if (p.c->name() == everyday_strategy(t.table.family) && !everyday) everyday = p.c;
            slowest = p.c;
        }
        if (everyday && !in_group(everyday))
            a.versus.push_back({"everyday", everyday->spec.label(), cmp.ratio(*everyday, w), cmp.tied(*everyday, w)});
        if (slowest && !in_group(slowest) && slowest != everyday)
            a.versus.push_back({"slowest", slowest->spec.label(), cmp.ratio(*slowest, w), cmp.tied(*slowest, w)});
        out.push_back(std::move(a));
    }
    return out;
}

}  // namespace iolab
