#pragma once
// The answer of a table, in one line: the winner (picked inside the winner group by the rule of
// standing.hpp), its throughput with its interval, the cases tied with it, and how much faster it
// is than the family's everyday way and than the slowest case, each ratio with its interval.
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
    bool tied = false;    // the two are not told apart (Comparator::order): "tied with"
};

struct Answer {
    std::string group;
    Family family = Family::read;
    std::string table;                    // "read, 64 MiB, cache warm"
    std::string winner;                   // the winner's label; empty: no stable winner
    double mib_s = 0, low = 0, high = 0;  // the winner's throughput and its 95 % interval
    std::size_t item = 0;                 // durable, files: bytes of a commit or a file (the rate reads in items/s)
    std::string item_name;                // "commits" or "files"
    std::vector<std::string> tied;        // the rest of the winner group
    std::vector<Versus> versus;
    std::string no_winner;  // why there is no stable winner
    bool partial = false;   // the group was cut short by a signal
    std::string text() const;
};

// One answer for every table of more than one strategy.
std::vector<Answer> answers(const std::vector<RankedTable>& tables);

}  // namespace iolab
