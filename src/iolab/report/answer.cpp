#include "iolab/report/answer.hpp"

#include <algorithm>
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

}  // namespace

std::string_view everyday_strategy(Family f) {
    switch (f) {
        case Family::read: return "read.stdio-chunk";
        case Family::write: return "write.record-stdio";
        case Family::copy: return "copy.std-filesystem";
        case Family::durable: return "durable.fsync";
        case Family::files_read: return "files.read-ifstream";
        case Family::files_write: return "files.write-ofstream";
        case Family::files_copy: return "files.copy-std-filesystem";
        case Family::files_remove: return "files.remove-std-filesystem";
    }
    return {};
}

std::string Answer::text() const {
    std::string out = table + (partial ? " (PARTIAL)" : "") + ": ";
    if (winner.empty()) return out + "no stable winner: " + no_winner;
    if (item > 0) {
        const double per_mib = static_cast<double>(1 << 20) / static_cast<double>(item);
        out += fmt::format("{}, {} {}/s", winner, format_figure(mib_s * per_mib), item_name);
        if (low > 0 && high > 0)
            out += fmt::format(" ({}-{})", format_figure(low * per_mib), format_figure(high * per_mib));
    } else {
        out += fmt::format("{}, {}{}", winner, format_rate(mib_s), interval_text(mib_s, low, high));
    }
    if (!tied.empty()) {
        constexpr std::size_t kNamed = 3;
        std::vector<std::string> named(tied.begin(), tied.begin() + static_cast<long>(std::min(kNamed, tied.size())));
        out += fmt::format("; tied: {}{}", fmt::join(named, ", "),
                           tied.size() > kNamed ? fmt::format(" and {} more", tied.size() - kNamed) : "");
    }
    std::vector<std::string> vs;
    for (const Versus& v : versus) vs.push_back(versus_text(v));
    if (!vs.empty()) out += fmt::format("; {}", fmt::join(vs, ", "));
    return out;
}

std::vector<Answer> answers(const std::vector<RankedTable>& tables) {
    std::vector<Answer> out;
    for (const RankedTable& t : tables) {
        std::set<std::string> strategies;
        for (const CaseResult* c : t.cases)
            if (c->status == Status::ok) strategies.insert(c->name());
        if (strategies.size() < 2) continue;  // one strategy: its table says all
        Answer a;
        a.group = t.group.id;
        a.family = t.table.family;
        a.table = table_name(t);
        a.partial = t.group.partial;
        const Standing& s = t.standing;
        if (!s.pick) {
            if (s.unsettled && s.leader)
                a.no_winner = fmt::format("{}, which {}, had a faster median than the fastest stable case, {} at {}",
                                          s.unsettled->spec.label(), instability(*s.unsettled), s.leader->spec.label(),
                                          format_rate(s.leader->throughput_mib_s));
            else if (s.unsettled)
                a.no_winner = fmt::format("no case is stable; the one with the fastest median, {}, {}",
                                          s.unsettled->spec.label(), instability(*s.unsettled));
            else
                a.no_winner = "no case could be ranked (see the table for why)";
            out.push_back(std::move(a));
            continue;
        }
        const CaseResult& w = *s.pick;
        a.winner = w.spec.label();
        a.mib_s = w.throughput_mib_s;
        a.item = w.spec.workload.item_bytes();
        a.item_name = w.spec.workload.item_name();
        std::tie(a.low, a.high) = rate_interval(w);
        for (const CaseResult* c : s.winners())
            if (c != &w) a.tied.push_back(c->spec.label());
        // The references: the everyday way's fastest stable case, and the slowest ranked one;
        // neither when it is in the winner group.
        Comparator cmp;
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
