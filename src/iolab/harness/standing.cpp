#include "iolab/harness/standing.hpp"

#include <algorithm>
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

// CPU time (user and system, every thread and child) per MiB moved, median over the samples.
double cpu_of(const CaseResult& c) {
    std::vector<double> per;
    for (const Sample& s : c.samples)
        if (s.bytes > 0) per.push_back((s.user_s + s.sys_s) / (static_cast<double>(s.bytes) * s.passes / (1 << 20)));
    return per.empty() ? std::numeric_limits<double>::infinity() : median(per);
}

double calls_of(const CaseResult& c) {
    const double calls = calls_per_mib(c);
    return calls < 0 ? std::numeric_limits<double>::infinity() : calls;
}

bool faster(const CaseResult* a, const CaseResult* b) {
    if (a->throughput_mib_s != b->throughput_mib_s) return a->throughput_mib_s > b->throughput_mib_s;
    return a->spec.label() < b->spec.label();
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
    RatioEstimate r;
    if (s.empty() || f.empty()) return r;
    const double d = median(f);
    r.ratio = d > 0 ? median(s) / d : 0;
    r.low = r.high = r.ratio;
    if ((s.size() < 2 && f.size() < 2) || d <= 0) return r;
    return ratio_from_bootstraps(r.ratio, boot(slower), boot(faster));
}

Order Comparator::order(const CaseResult& a, const CaseResult& b) {
    const auto& x = times(a);
    const auto& y = times(b);
    if (x.empty() || y.empty() || mann_whitney_p(x, y) >= 1 - kRatioConfidence) return Order::tied;
    const RatioEstimate r = ratio(a, b);
    if (r.low > 1) return Order::slower;
    if (r.high < 1) return Order::faster;
    return Order::tied;
}

bool picked_before(const CaseResult& a, const CaseResult& b) {
    if (buffer_of(a) != buffer_of(b)) return buffer_of(a) < buffer_of(b);
    if (a.spec.workload.jobs != b.spec.workload.jobs) return a.spec.workload.jobs < b.spec.workload.jobs;
    // Less CPU time, where the two differ by a tenth or more (less than that is noise).
    if (const double x = cpu_of(a), y = cpu_of(b); x < 0.9 * y || y < 0.9 * x) return x < y;
    if (calls_of(a) != calls_of(b)) return calls_of(a) < calls_of(b);
    return faster(&a, &b);
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
    // The leader: the fastest stable median, of a case that racing did not stop as slower than
    // another (it was, so it cannot lead), where there is one.
    for (const CaseResult* c : stable)
        if (c->stopped != StopReason::clearly_slower) {
            s.leader = c;
            break;
        }
    if (!s.leader && !stable.empty()) s.leader = stable.front();
    // The winner group: the leader and every stable case not shown slower than it. A case that
    // racing stopped as shown slower than its table's fastest is not in it, whatever the leader
    // is in the end.
    std::vector<const CaseResult*> group, others;
    for (const CaseResult* c : stable)
        (c == s.leader || (c->stopped != StopReason::clearly_slower && cmp.tied(*c, *s.leader)) ? group : others)
            .push_back(c);
    // A noisy case never wins: an unstable median faster than every stable one leaves the table
    // without a stable winner.
    if (!unstable.empty() && (!s.leader || faster(unstable.front(), s.leader))) s.unsettled = unstable.front();
    if (!group.empty()) {
        const auto pick = std::min_element(
            group.begin(), group.end(), [](const CaseResult* a, const CaseResult* b) { return picked_before(*a, *b); });
        std::rotate(group.begin(), pick, pick + 1);  // the pick first, the rest by their medians
        if (!s.unsettled) s.pick = group.front();
    }
    for (std::size_t i = 0; i < group.size(); ++i) s.places.push_back({group[i], 1, i > 0, true});
    // The others: each tied with the first case of its rank, or the first of a new rank.
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
    for (const CaseResult* c : unstable) s.places.push_back({c, 0, false, false});
    for (const CaseResult* c : rest) s.places.push_back({c, 0, false, false});
    return s;
}

}  // namespace iolab
