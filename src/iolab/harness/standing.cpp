#include "iolab/harness/standing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace iolab {

namespace {

// The buffer a case holds: its buffer, a patterned case's block, or none.
std::size_t buffer_of(const CaseResult& c) {
    if (c.spec.workload.patterned) return c.spec.workload.block;
    return c.spec.strategy && c.spec.strategy->honours(kParamBuffer) ? c.spec.workload.buffer : 0;
}

// CPU time (user and system, every thread and child) per MiB moved, median over the samples;
// NaN for a tool, whose figure holds its start-up (the probe's CPU time is not kept).
double cpu_of(const CaseResult& c) {
    if (c.net()) return std::numeric_limits<double>::quiet_NaN();
    std::vector<double> per;
    for (const Sample& s : c.samples)
        if (s.bytes > 0) per.push_back((s.user_s + s.sys_s) / (static_cast<double>(s.bytes) * s.passes / (1 << 20)));
    return per.empty() ? std::numeric_limits<double>::quiet_NaN() : median(per);
}

double calls_of(const CaseResult& c) {
    const double calls = c.spec.workload.item_bytes() > 0 ? calls_per_item(c) : calls_per_mib(c);
    return calls < 0 ? std::numeric_limits<double>::infinity() : calls;
}

bool faster(const CaseResult* a, const CaseResult* b) {
    if (a->throughput_mib_s != b->throughput_mib_s) return a->throughput_mib_s > b->throughput_mib_s;
    return a->spec.label() < b->spec.label();
}

// Keeps the cases whose key is lowest (within `slack` of it, relative); NaN keys stay only where
// no case has a number.
template <class Key>
void keep_lowest(std::vector<const CaseResult*>& cases, Key key, double slack = 0) {
    double low = std::numeric_limits<double>::infinity();
    bool any = false;
    for (const CaseResult* c : cases)
        if (const double k = key(*c); !std::isnan(k)) {
            any = true;
            low = std::min(low, k);
        }
    if (!any) return;  // nothing to tell them apart by
    std::erase_if(cases, [&](const CaseResult* c) {
        const double k = key(*c);
        return std::isnan(k) || k > low * (1 + slack);
    });
}

}  // namespace

const std::vector<double>& Comparator::times(const CaseResult& c) {
    auto it = times_.find(&c);
    if (it == times_.end()) it = times_.emplace(&c, c.per_byte()).first;
    return it->second;
}

RatioEstimate Comparator::ratio(const CaseResult& a, const CaseResult& b) {
    if (const auto it = ratios_.find({&a, &b}); it != ratios_.end()) return it->second;
    // b over a is its inverse (the median of the inverse ratios is the inverse of their median).
    if (const auto it = ratios_.find({&b, &a}); it != ratios_.end()) {
        const RatioEstimate& r = it->second;
        if (r.ratio <= 0) return r;
        return {1 / r.ratio, r.high > 0 ? 1 / r.high : 0,
                r.low > 0 ? 1 / r.low : std::numeric_limits<double>::infinity(), r.envelope};
    }
    return ratios_[{&a, &b}] = ratio_interval(times(a), times(b), confidence_, !a.device_bound && !b.device_bound);
}

double sure_rate(const CaseResult& c) {
    if (c.throughput_mib_s <= 0 || c.stats.median <= 0) return 0;
    if (has_interval(c)) return c.stats.median_high > 0 ? c.throughput_mib_s * c.stats.median / c.stats.median_high : 0;
    return c.stats.max > 0 ? c.throughput_mib_s * c.stats.median / c.stats.max / envelope_factor(c.stats.n) : 0;
}

const CaseResult* pick_of(std::vector<const CaseResult*> group, double margin) {
    if (group.empty()) return nullptr;
    if (std::any_of(group.begin(), group.end(), [](const CaseResult* c) { return c->checked != Checked::none; }))
        std::erase_if(group, [](const CaseResult* c) { return c->checked == Checked::none; });
    double surest = 0;
    for (const CaseResult* c : group) surest = std::max(surest, sure_rate(*c));
    std::erase_if(group, [&](const CaseResult* c) { return sure_rate(*c) * (1 + margin / 2) < surest; });
    keep_lowest(group, [](const CaseResult& c) { return static_cast<double>(buffer_of(c)); });
    keep_lowest(group, [](const CaseResult& c) { return static_cast<double>(c.spec.workload.jobs); });
    keep_lowest(group, cpu_of, 0.10);
    keep_lowest(group, calls_of);
    return *std::min_element(group.begin(), group.end(), faster);
}

std::string Standing::Place::rank_text() const {
    if (rank == 0) return "-";
    return std::to_string(rank) + (tied ? "=" : "");
}

std::vector<const CaseResult*> Standing::winners() const {
    std::vector<const CaseResult*> out;
    for (const Place& p : places)
        if (p.winner) out.push_back(p.c);
    return out;
}

std::size_t Standing::ranked() const {
    return static_cast<std::size_t>(
        std::count_if(places.begin(), places.end(), [](const Place& p) { return p.rank > 0; }));
}

Standing stand(const std::vector<const CaseResult*>& cases, double margin) {
    Comparator cmp(margin);
    return stand(cases, cmp);
}

namespace {

// The places of the ranked cases outside the winner group: each tied with the first case of its
// rank, or the first of a new rank.
void place_others(Standing& s, const std::vector<const CaseResult*>& others, Comparator& cmp) {
    const CaseResult* head = nullptr;
    std::size_t head_rank = 0;
    for (const CaseResult* c : others) {
        const std::size_t position = s.places.size() + 1;
        if (head && cmp.tied(*c, *head)) {
            s.places.push_back({c, head_rank, true, false});
            continue;
        }
        head = c;
        head_rank = position;
        s.places.push_back({c, position, false, false});
    }
}

}  // namespace

Standing stand(const std::vector<const CaseResult*>& cases, Comparator& cmp) {
    Standing s;
    std::vector<const CaseResult*> ranked, rest;
    for (const CaseResult* c : cases) (c->ranked() ? ranked : rest).push_back(c);
    std::stable_sort(ranked.begin(), ranked.end(), faster);
    s.leader = ranked.empty() ? nullptr : ranked.front();
    // The winner group: every ranked case that no other is shown faster than by more than the
    // margin, with the interval of their comparison wholly beyond it — and that racing did not stop
    // as clearly slower: it was shown so then, at that look's confidence, against the leader of
    // the time (its few samples may not show it again). Intervals need not be transitive: should
    // every case be out, the leader alone. In a table of more than kMaxRivals + 1 cases, each is
    // compared with the kMaxRivals fastest (every pair of 10,000 cases took minutes).
    std::vector<const CaseResult*> group, others;
    const auto rivals_end = ranked.begin() + static_cast<std::ptrdiff_t>(std::min(ranked.size(), kMaxRivals + 1));
    for (const CaseResult* c : ranked) {
        const bool out = c->stopped == StopReason::clearly_slower ||
                         std::any_of(ranked.begin(), rivals_end,
                                     [&](const CaseResult* d) { return d != c && cmp.order(*c, *d) == Order::slower; });
        (out ? others : group).push_back(c);
    }
    if (group.empty() && s.leader) {
        group.push_back(s.leader);
        std::erase(others, s.leader);
    }
    s.pick = pick_of(group, cmp.margin());
    if (s.pick) {
        std::erase(group, s.pick);
        group.insert(group.begin(), s.pick);  // the pick first, the rest by their medians
    }
    for (std::size_t i = 0; i < group.size(); ++i) s.places.push_back({group[i], 1, i > 0, true});
    place_others(s, others, cmp);
    for (const CaseResult* c : rest) s.places.push_back({c, 0, false, false});
    return s;
}

}  // namespace iolab
