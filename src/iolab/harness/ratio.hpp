#pragma once
// The ratio of two cases' times per byte and its interval, on which every decision of iolab rests:
// the winner group, racing, a finding's verdict, a knee, iolab tune's choice and the CI gate
// (docs/harness.md, "Deciding from the comparison").
//
// The estimate is Hodges and Lehmann's: the median of all the ratios num_i / den_j. Its interval
// is Moses's: the order statistics D(C) and D(nm + 1 - C) of those ratios, where C comes from the
// Mann-Whitney null distribution. It is exact and distribution-free for any sample sizes (it needs
// the two cases to differ by a factor, not to have any shape), and it carries each case's spread:
// a noisy case gets a wide interval, never a veto. Where the samples are too few for the
// confidence asked (five against five reach 99.2 %, four against four only 97.1 %), the interval
// is an envelope calibrated on recorded noise: [min / E, max * E] of the ratios, E by the fewer
// samples (envelope_factor).
#include <cstddef>
#include <vector>

namespace iolab {

struct RatioEstimate {
    double ratio = 0;  // 0: no ratio (a side empty, or a time that is no time)
    double low = 0;
    double high = 0;
    bool envelope = false;  // the interval is the calibrated envelope, not Moses's
};

// P(U <= k) for the Mann-Whitney U of n against m values without ties, under the null hypothesis
// that they come from one distribution: exact for moderate sizes (the q-binomial coefficient's
// coefficients), the normal approximation with a continuity correction beyond.
double u_cdf(std::size_t n, std::size_t m, std::size_t k);

// The rank C of Moses's two-sided interval at `confidence`: the largest C with
// P(U <= C - 1) <= (1 - confidence) / 2; 0 when even [D(1), D(nm)] does not reach it.
std::size_t moses_rank(std::size_t n, std::size_t m, double confidence);

// The envelope factor E for a comparison whose fewer side has `fewer` samples (1 or more): over
// the 62 cases of 16 or more samples of a recorded iolab replicate on a 2-core cloud VM, the
// fastest of `fewer` consecutive samples of a case was never slower than E times the slowest of
// another window of the same case (about 2,000 draws a case; largest seen: 23.1, 7.8, 2.19, 1.76,
// 1.55 for 1 to 5 samples), so an envelope [min / E, max * E] of the ratios held every time.
double envelope_factor(std::size_t fewer);

// num's times over den's: the Hodges-Lehmann ratio with Moses's interval at `confidence`
// (two-sided; a one-sided test at level a asks for 1 - 2a), or the envelope where that rank is 0.
// {0, 0, inf} when a side is empty or holds a time that is not positive (a tool's net time inside
// its start-up's noise) or not a number: nothing can be told.
// envelope false: no envelope where Moses's rank is 0 (the device's noise, which the recorded noise
// the envelope was calibrated on does not bound): {ratio, 0, inf}, nothing told.
RatioEstimate ratio_interval(const std::vector<double>& num, const std::vector<double>& den, double confidence,
                             bool envelope = true);

// How two cases stand at a margin (0.10: by more than 10 %): `slower` when the whole interval of
// a's times over b's lies beyond 1 + margin, `faster` when it lies below 1 / (1 + margin), else
// `tied`: not told apart by more than the margin.
enum class Order { tied, faster, slower };  // of the first against the second
Order order_at(const RatioEstimate& a_over_b, double margin);

// The looks of racing and of sequential verdicts: at 1, 2, 3, 5, 8, 12, 16, 24, 32, 48, 64, ...
// samples (past 8, half as many again and twice as many in turn). look_at(n): the look n samples
// make (1 for 1 sample, 4 for 5, 5 for 8), or 0 when n is none; looks_until(n): the last look
// due with n samples.
std::size_t look_at(std::size_t n);
std::size_t looks_until(std::size_t n);
// The samples of look j (from 1).
std::size_t look_samples(std::size_t look);

}  // namespace iolab
