#pragma once
// Checking a suite's findings against the measured cases.
#include <optional>
#include <string>
#include <vector>

#include "iolab/harness/runner.hpp"
#include "iolab/suite/suite.hpp"

namespace iolab {

enum class Verdict3 { holds, does_not_hold, inconclusive };
std::string_view to_string(Verdict3 v);

struct FindingResult {
    Finding finding;
    std::string suite;
    Verdict3 verdict = Verdict3::inconclusive;
    double ratio = 0;  // measured: slower time per byte / faster time per byte (medians)
    double low = 0;    // 99.9 % interval of the ratio, from the intervals of the two means
    double high = 0;
    std::string faster_case;  // the labels of the cases compared
    std::string slower_case;
    std::string note;  // why it is inconclusive when a case is missing
    std::string threshold() const;  // ">= 100x" or "within 1.25x"
};

struct KneeResult {
    KneeSpec spec;
    std::string suite;
    std::size_t knee_buffer = 0;  // 0: not found
    std::size_t best_buffer = 0;
    double best_mib_s = 0;
    std::string describe() const;
};

// slower's time per byte over faster's: the ratio of the medians, and its interval from the
// 99.9 % intervals of the two means.
struct RatioInterval {
    double ratio = 0, low = 0, high = 0;
};
RatioInterval ratio_of(const CaseResult& slower, const CaseResult& faster);

// The case a selector picks among results, or nullptr.
const CaseResult* select_case(const Selector& s, const std::vector<CaseResult>& cases);
FindingResult evaluate(const Finding& f, const std::vector<CaseResult>& cases);
KneeResult find_knee(const KneeSpec& k, const std::vector<CaseResult>& cases);

}  // namespace iolab
