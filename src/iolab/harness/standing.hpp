#pragma once
// How the cases of one table stand, decided from the comparison of each pair (ratio.hpp) at a
// margin: the winner group (every ranked case that no other is shown faster than by more than the
// margin), the one case picked from it by a stated rule, and ranks with ties. Ranks, answers,
// knees, racing and iolab tune all decide by this. A case's own spread vetoes nothing: it widens
// the intervals of its comparisons.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "iolab/harness/ratio.hpp"
#include "iolab/harness/result.hpp"

namespace iolab {

// Compares cases by their per-byte times at a margin and a confidence, keeping what it computed.
// Cases must not change while it is alive.
class Comparator {
public:
    explicit Comparator(double margin = kDefaultMargin, double confidence = kRatioConfidence)
        : margin_(margin), confidence_(confidence) {}
    // a's time per byte over b's, with its interval at the comparator's confidence.
    RatioEstimate ratio(const CaseResult& a, const CaseResult& b);
    Order order(const CaseResult& a, const CaseResult& b) { return order_at(ratio(a, b), margin_); }
    bool tied(const CaseResult& a, const CaseResult& b) { return order(a, b) == Order::tied; }
    double margin() const { return margin_; }

private:
    const std::vector<double>& times(const CaseResult& c);
    double margin_, confidence_;
    std::map<const CaseResult*, std::vector<double>> times_;
    std::map<std::pair<const CaseResult*, const CaseResult*>, RatioEstimate> ratios_;
};

// How surely high a case's throughput is: at the slow end of its median's interval (the 95 %
// one; with too few samples for it, the slowest sample's rate over the envelope factor of that
// many samples, ratio.hpp), so that a wild or barely measured figure is not taken at its word.
double sure_rate(const CaseResult& c);

// The rule that picks one case of a winner group, as a filter: the cases whose sure rate is within
// half the margin of the highest; of those the smallest buffer (a patterned case's block; a
// strategy without a buffer counts as none), the fewest jobs, the ones within a tenth of the least
// CPU time per MiB (a tool's is not known: its start-up's is in it), the fewest system calls per
// MiB (none counted: last), the faster median, then the name. A case nothing verified (cat) is
// picked only when no checked case is in the group.
const CaseResult* pick_of(std::vector<const CaseResult*> group, double margin = kDefaultMargin);

struct Standing {
    struct Place {
        const CaseResult* c = nullptr;
        std::size_t rank = 0;           // from 1; 0: not ranked (failed, skipped, not proven cold, no figure)
        bool tied = false;              // tied with the first case of its rank: "1="
        bool winner = false;            // in the winner group
        std::string rank_text() const;  // "1", "1=", "-"
    };
    // Ranked cases (the pick first, then the rest of the winner group, then the others by their
    // medians), then those never ranked.
    std::vector<Place> places;
    const CaseResult* leader = nullptr;              // the ranked case with the fastest median
    const CaseResult* pick = nullptr;                // chosen inside the winner group; nullptr: no case is ranked
    std::vector<const CaseResult*> winners() const;  // the winner group, the pick first
    std::size_t ranked() const;                      // how many places have a rank
};

// A case is kept out of the winner group by one of the fastest this many (larger tables).
inline constexpr std::size_t kMaxRivals = 64;

// The standing of one table's cases (any order; one family of one group).
Standing stand(const std::vector<const CaseResult*>& cases, Comparator& cmp);
Standing stand(const std::vector<const CaseResult*>& cases, double margin = kDefaultMargin);

}  // namespace iolab
