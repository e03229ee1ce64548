#pragma once
// How the cases of one table stand: which are tied, which are stable, the winner group (the
// fastest stable case and every stable case not shown slower than it) and the one case picked
// from it by a stated rule. Ranks, answers, knees, racing and iolab tune all decide by this.
#include <map>
#include <string>
#include <vector>

#include "iolab/harness/result.hpp"
#include "iolab/harness/stats.hpp"

namespace iolab {

// Compares cases by their per-byte times (Order: stats.hpp), keeping each case's bootstrap
// medians for the comparisons it is in. Cases must not change while it is alive.
class Comparator {
public:
    Order order(const CaseResult& a, const CaseResult& b);  // a against b
    bool tied(const CaseResult& a, const CaseResult& b) { return order(a, b) == Order::tied; }
    // slower's time per byte over faster's, with its kRatioConfidence interval.
    RatioEstimate ratio(const CaseResult& slower, const CaseResult& faster);

private:
    const std::vector<double>& times(const CaseResult& c);
    const std::vector<double>& boot(const CaseResult& c);
    std::map<const CaseResult*, std::vector<double>> times_, boot_;
};

// The rule that picks one case inside a tie group, as a filter: the cases with the smallest buffer
// (a patterned case's block; a strategy without a buffer counts as none), of those the fewest
// jobs, of those the ones within a tenth of the least CPU time per MiB (a tool's is not known:
// its start-up's is in it), of those the fewest system calls per MiB (none counted: last), of
// those the faster median, then the name.
const CaseResult* pick_of(std::vector<const CaseResult*> group);

struct Standing {
    struct Place {
        const CaseResult* c = nullptr;
        std::size_t rank = 0;           // from 1; 0: not ranked (unstable, failed, skipped, not proven cold)
        bool tied = false;              // tied with the first case of its rank: "1="
        bool winner = false;            // in the winner group
        std::string rank_text() const;  // "1", "1=", "-"
    };
    // Ranked cases (the pick first, then the rest of the winner group, then the others by their
    // medians), then the unstable ones, then those never ranked.
    std::vector<Place> places;
    const CaseResult* leader = nullptr;  // the stable case with the fastest median
    // The winner, chosen inside the winner group by pick_of; nullptr: no stable winner.
    const CaseResult* pick = nullptr;
    // Why there is no stable winner: the unstable case whose median beat every stable one's (or
    // the fastest unstable case, where none is stable).
    const CaseResult* unsettled = nullptr;
    std::vector<const CaseResult*> winners() const;  // the winner group, the pick first
    std::size_t ranked() const;                      // how many places have a rank
};

// The standing of one table's cases (any order; one family of one group).
Standing stand(const std::vector<const CaseResult*>& cases, Comparator& cmp);
Standing stand(const std::vector<const CaseResult*>& cases);

}  // namespace iolab
