#pragma once
// Checking a suite's findings against the measured cases.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "iolab/harness/ratio.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/harness/stats.hpp"
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
    std::size_t samples = 0;        // the fewer samples of its two cases when it was judged
    std::size_t look = 0;           // the look that decided it (1, 2, ...: sequential verdicts); 0: the end
    std::string threshold() const;  // ">= 100x" or "within 1.25x"
    // "HOLDS 394x [338x, 459x] after 16 samples": the verdict, the ratio and its interval.
    std::string outcome() const;
};

struct KneeResult {
    KneeSpec spec;
    std::string suite;
    std::size_t knee_buffer = 0;  // 0: not found (a job count when the knee is over jobs)
    std::size_t best_buffer = 0;
    double best_mib_s = 0;
    std::string note;  // smaller points that might reach the fraction too (their intervals straddle it)
    std::string describe() const;
};

// Whether a selector can pick this case (its group, strategy and parameters match).
bool selects(const Selector& s, const CaseSpec& c);
// The cases of a group (its plan, in order) that a finding or a knee of the suite needs: racing
// measures them until they are precise, whatever the rest of their table does.
std::vector<bool> held_cases(const Suite& suite, const std::vector<CaseSpec>& group_cases);
// The case a selector picks among results, or nullptr.
const CaseResult* select_case(const Selector& s, const std::vector<CaseResult>& cases);
// The fewest samples a side before a finding is judged: fewer are "too few samples".
inline constexpr std::size_t kMinSamplesForVerdict = 3;
// The verdict of a finding on measured cases: its ratio's interval (ratio.hpp) at `confidence`
// (kRatioConfidence when it is the only look), on one side of the threshold or across it.
FindingResult evaluate(const Finding& f, const std::vector<CaseResult>& cases, double confidence = kRatioConfidence);
// Sequential verdicts (docs/harness.md). alpha = 1 - kRatioConfidence is spent over a finding's
// looks: look j comes when each of its two cases has the samples of racing's look j (3, 5, 8, 12,
// ...: ratio.hpp; none before kMinSamplesForVerdict) and decides by the ratio's interval at
// confidence 1 - look_alpha(j); the final look, at the end of the run, judges a finding still
// undecided at final_confidence(the looks it had). However many looks there are, the chance of a
// wrong verdict is at most alpha (the union bound: the sum of what each look spends).
double look_alpha(std::size_t look);         // alpha / 2^(look + 1)
double final_confidence(std::size_t looks);  // 1 - (alpha - what looks 1..looks spent)
// Look `look` at a finding whose two cases are given: decided, or inconclusive.
FindingResult look_at(const Finding& f, const CaseResult& faster, const CaseResult& slower, std::size_t look);

// A suite's findings judged while its groups run: after each racing round, the findings that are
// due are looked at, and the cases only decided findings needed are let go.
class Judge {
public:
    explicit Judge(const Suite& suite);
    // Called as a look decides a finding.
    std::function<void(const FindingResult&)> on_decided;
    // After a round: looks at the findings due, over the cases measured before (earlier groups,
    // final) and now (the running group, as it stands); returns which of `now` a finding not yet
    // decided or a knee still needs.
    std::vector<bool> hold(const std::vector<CaseResult>& earlier, const std::vector<CaseResult>& now);
    // Every finding's verdict at the end: as its look decided it, or judged now (the final look).
    std::vector<FindingResult> verdicts(const std::vector<CaseResult>& all) const;
    std::size_t decided() const;
    std::size_t size() const { return tracks_.size(); }

private:
    struct Track {
        Finding finding;
        bool raced = false;  // its groups race within a time budget
        std::size_t looks = 0;
        std::optional<FindingResult> decided;
        bool hopeless = false;  // a case of it can never decide it: it holds nothing
    };
    std::vector<Track> tracks_;
    std::vector<KneeSpec> knees_;
};

KneeResult find_knee(const KneeSpec& k, const std::vector<CaseResult>& cases);
// The same rule on given cases (one line of a sweep), whatever their group and strategy.
KneeResult knee_of(const KneeSpec& k, const std::vector<const CaseResult*>& sweep);

}  // namespace iolab
