#pragma once
// The answer of a table, in one line: the winner (picked inside the winner group by the rule of
// standing.hpp), its throughput with its interval and samples, the rest of the winner group (any
// of them will do: none is shown slower than another by more than the margin), and how much
// faster it is than the family's everyday way and than the slowest case, each ratio with its
// interval.
#include <string>
#include <vector>

#include "iolab/report/table.hpp"

namespace iolab {

// The everyday way of each family, which the answer measures the winner against.
std::string_view everyday_strategy(Family f);

struct Versus {
    std::string role;     // "everyday" or "slowest"
    std::string label;    // the case
    RatioEstimate ratio;  // its time per byte over the winner's
    bool tied = false;    // not told apart by more than the margin (Comparator::order): "tied with"
};

// A case of the winner group as the answer names it.
struct Member {
    std::string label;
    double mib_s = 0;
    std::size_t samples = 0;
    std::string varies;  // "±31%" where its figure varies past ±10 % (result.hpp), or ""
};

struct Answer {
    std::string group;
    Family family = Family::read;
    std::string table;                    // "read, 64 MiB, cache warm"
    std::string winner;                   // the winner's label; empty: no case could be measured
    double mib_s = 0, low = 0, high = 0;  // the winner's throughput and its 95 % interval
    std::size_t samples = 0;              // the winner's
    std::string varies;                   // as Member::varies, of the winner
    std::size_t item = 0;                 // durable, files: bytes of a commit or a file (the rate reads in items/s)
    std::string item_name;                // "commits" or "files"
    std::vector<Member> tied;             // the rest of the winner group, by their medians
    double margin = kDefaultMargin;       // the winner group's
    std::vector<Versus> versus;
    std::string no_winner;  // why there is no winner: no case could be measured
    bool partial = false;   // the group was cut short by a signal
    std::string text() const;
    // A figure at the winner's median in its unit: "12.1 GiB/s", "4,210 commits/s".
    std::string rate(double mib_s) const;
    // The winner's figure with its interval and samples: "12.1 GiB/s (11.3-13.6 GiB/s, n=30)".
    std::string figure() const;
    // The rest of the winner group, the first three by name (with `figures`, each one's): "a, b, c
    // and 2 more"; `beside` a case's label, each named by what differs from it.
    std::string tied_text(bool figures, const std::string& beside = "") const;
};

// One answer for every table of more than one strategy.
std::vector<Answer> answers(const std::vector<RankedTable>& tables);
// The answers as one compact table, a row each: table, pick, figure, tied with, vs everyday.
Table answer_table(const std::vector<Answer>& answers);

}  // namespace iolab
