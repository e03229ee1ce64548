#pragma once
// Checking a suite's findings against the measured cases.
#include <optional>
#include <string>
#include <vector>

#include "iolab/harness/runner.hpp"
#include "iolab/suite/suite.hpp"

namespace iolab {

enum class Verdict3 { holds, does_not_hold, inconclusive };
inline constexpr Named<Verdict3> kVerdicts[] = {
    {Verdict3::holds, "HOLDS"}, {Verdict3::does_not_hold, "DOES NOT HOLD"}, {Verdict3::inconclusive, "INCONCLUSIVE"}};
inline std::string_view to_string(Verdict3 v) { return name_of(kVerdicts, v); }

struct FindingResult {
    Finding finding;
    std::string suite;
    Verdict3 verdict = Verdict3::inconclusive;
    double ratio = 0;  // measured: slower time per byte / faster time per byte (medians)
    double low = 0;    // kRatioConfidence bootstrap interval of that ratio
    double high = 0;
    std::string faster_case;  // the labels of the cases compared
    std::string slower_case;
    std::string note;               // why it is inconclusive: a case missing, too few samples, unverified, not cold
    std::string threshold() const;  // ">= 100x" or "within 1.25x"
};

struct KneeResult {
    KneeSpec spec;
    std::string suite;
    std::size_t knee_buffer = 0;  // 0: not found (a job count when the knee is over jobs)
    std::size_t best_buffer = 0;
    double best_mib_s = 0;
    std::string note;  // why there is no knee although the sweep has points (an unstable case)
    std::string describe() const;
};

// Whether a selector can pick this case (its group, strategy and parameters match).
bool selects(const Selector& s, const CaseSpec& c);
// The cases of a group (its plan, in order) that a finding or a knee of the suite needs: racing
// measures them until they are precise, whatever the rest of their table does.
std::vector<bool> held_cases(const Suite& suite, const std::vector<CaseSpec>& group_cases);
// The case a selector picks among results, or nullptr.
const CaseResult* select_case(const Selector& s, const std::vector<CaseResult>& cases);
FindingResult evaluate(const Finding& f, const std::vector<CaseResult>& cases);
KneeResult find_knee(const KneeSpec& k, const std::vector<CaseResult>& cases);
// The same rule on given cases (one line of a sweep), whatever their group and strategy.
KneeResult knee_of(const KneeSpec& k, const std::vector<const CaseResult*>& sweep);

}  // namespace iolab
