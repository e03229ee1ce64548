#include "iolab/harness/standing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace iolab {

namespace {

// The bootstrap resamples of a comparison (stats.hpp's ratio_of_medians uses as many).
constexpr std::size_t kResamples = 10000;
constexpr std::uint64_t kSeed = 0x10ab5eedu;

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
    const double calls = calls_per_mib(c);
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

const std::vector<double>& Comparator::boot(const CaseResult& c) {
    auto it = boot_.find(&c);
    if (it == boot_.end()) it = boot_.emplace(&c, bootstrap_medians(times(c), kResamples, kSeed)).first;
    return it->second;
}

RatioEstimate Comparator::ratio(const CaseResult& slower, const CaseResult& faster) {
    const auto& s = times(slower);
    const auto& f = times(faster);
    if (s.empty() || f.empty()) return {};
    const double num = median(s), den = median(f);
    // A median that is no time at all (a tool's net time within its start-up's noise): no ratio.
    if (num <= 0 || den <= 0) return {0, 0, std::numeric_limits<double>::infinity()};
    if (s.size() < 2 && f.size() < 2) return {num / den, num / den, num / den};
    return ratio_from_bootstraps(num / den, boot(slower), boot(faster));
}

Order Comparator::order(const CaseResult& a, const CaseResult& b) {
    return order_of(times(a), times(b), [&] { return ratio(a, b); });
}

const CaseResult* pick_of(std::vector<const CaseResult*> group) {
    if (group.empty()) return nullptr;
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

Standing stand(const std::vector<const CaseResult*>& cases) {
    Comparator cmp;
    return stand(cases, cmp);
}

namespace {

// The leader: the fastest stable median of a case that racing did not stop as slower than
// another (that one was faster), where there is one. `stable` is sorted fastest first.
const CaseResult* leader_of(const std::vector<const CaseResult*>& stable) {
    for (const CaseResult* c : stable)
        if (c->stopped != StopReason::clearly_slower) return c;
    return stable.empty() ? nullptr : stable.front();
}

// The members of the winner group the pick may be: not a case racing stopped as slower (but the
// leader), not a case another member is shown faster than, and not an unverified case (nothing
// checked its work: cat) while a checked one is tied with it. The leader when none is left.
std::vector<const CaseResult*> eligible_of(const std::vector<const CaseResult*>& group, const CaseResult* leader,
                                           Comparator& cmp) {
    std::vector<const CaseResult*> eligible;
    for (const CaseResult* c : group)
        if (c == leader || c->stopped != StopReason::clearly_slower) eligible.push_back(c);
    std::erase_if(eligible, [&](const CaseResult* c) {
        return std::any_of(group.begin(), group.end(),
                           [&](const CaseResult* d) { return d != c && cmp.order(*c, *d) == Order::slower; });
    });
    if (std::any_of(eligible.begin(), eligible.end(), [](const CaseResult* c) { return c->checked != Checked::none; }))
        std::erase_if(eligible, [](const CaseResult* c) { return c->checked == Checked::none; });
    if (eligible.empty() && leader) eligible.push_back(leader);
    return eligible;
}

// The places of the stable cases outside the winner group: each tied with the first case of its
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
    std::vector<const CaseResult*> stable, unstable, rest;
    for (const CaseResult* c : cases) {
        if (!c->ranked())
            rest.push_back(c);
        else
            (c->stable ? stable : unstable).push_back(c);
    }
    std::stable_sort(stable.begin(), stable.end(), faster);
    std::stable_sort(unstable.begin(), unstable.end(), faster);
    s.leader = leader_of(stable);
    // The winner group: the leader and every stable case not shown slower than it — a case racing
    // stopped against an earlier leader included, tested again against this one; it cannot be the
    // pick (a case was shown faster than it). The pick is chosen among the rest by the stated rule,
    // and the group keeps only the cases tied with the pick too (ties do not chain: a case shown
    // faster or slower than the pick is not "tied" with it).
    std::vector<const CaseResult*> group, others;
    for (const CaseResult* c : stable) (c == s.leader || cmp.tied(*c, *s.leader) ? group : others).push_back(c);
    // A noisy case never wins: an unstable median faster than the leader's leaves the table without
    // a stable winner.
    if (!unstable.empty() && (!s.leader || faster(unstable.front(), s.leader))) s.unsettled = unstable.front();
    if (const CaseResult* pick = pick_of(eligible_of(group, s.leader, cmp))) {
        std::vector<const CaseResult*> kept{pick};
        for (const CaseResult* c : group)
            if (c != pick) (cmp.tied(*c, *pick) ? kept : others).push_back(c);
        group = kept;  // the pick first, the rest by their medians
        std::stable_sort(others.begin(), others.end(), faster);
        if (!s.unsettled) s.pick = pick;
    }
    for (std::size_t i = 0; i < group.size(); ++i) s.places.push_back({group[i], 1, i > 0, true});
    place_others(s, others, cmp);
    for (const CaseResult* c : unstable) s.places.push_back({c, 0, false, false});
    for (const CaseResult* c : rest) s.places.push_back({c, 0, false, false});
    return s;
}

}  // namespace iolab
