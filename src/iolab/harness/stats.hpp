#pragma once
// Statistics over a case's samples, as pure functions: medians with order-statistic intervals,
// ratios with a seeded bootstrap, the Mann-Whitney U test. docs/harness.md states each rule.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace iolab {

// The confidence of the median's interval in tables, and the one the precision target uses.
inline constexpr double kMedianConfidence = 0.95;
// The confidence of every ratio interval (findings, iolab compare) and the significance level
// of iolab compare (1 - this).
inline constexpr double kRatioConfidence = 0.99;

struct Summary {
    std::size_t n = 0;
    double mean = 0;
    double stddev = 0;  // sample standard deviation (n - 1)
    double median = 0;
    double min = 0;
    double max = 0;
    double cv = 0;      // stddev / mean
    double ci_low = 0;  // interval of the mean (Student's t), kept for the JSON
    double ci_high = 0;
    // The median's interval: order statistics x(k), x(n+1-k) covering the median with at least
    // median_confidence (kMedianConfidence when n allows it; less for very small n).
    double median_low = 0;
    double median_high = 0;
    double median_confidence = 0;
    // The larger side of the median's interval relative to the median: the "±" of tables.
    double median_precision() const;
};

// Two-sided Student's t quantile: the t with P(|T| <= t) = confidence, for `dof` degrees.
double t_quantile(double confidence, std::size_t dof);
double median(std::vector<double> xs);

// The distribution-free interval of the median: [x(k), x(n+1-k)] for the largest k whose
// binomial coverage 1 - 2 P(Bin(n, 1/2) <= k - 1) is at least `confidence`. With too few
// samples for that, [min, max] and the coverage it has.
struct MedianInterval {
    double low = 0;
    double high = 0;
    double confidence = 0;  // the coverage actually reached
};
MedianInterval median_interval(std::vector<double> xs, double confidence = kMedianConfidence);

// Summary of xs: the mean's interval at mean_confidence, the median's at kMedianConfidence.
// With one sample the intervals collapse to the value; with none everything is 0.
Summary summarize(const std::vector<double>& xs, double mean_confidence = 0.999);

// median(num) / median(den), with a percentile bootstrap interval of that same ratio: both
// sides resampled `resamples` times from a fixed seed, so a result is reproducible. The
// interval always contains the ratio.
struct RatioEstimate {
    double ratio = 0;
    double low = 0;
    double high = 0;
};
RatioEstimate ratio_of_medians(const std::vector<double>& num, const std::vector<double>& den,
                               double confidence = kRatioConfidence, std::size_t resamples = 10000,
                               std::uint64_t seed = 0x10ab5eedu);

// The medians of `resamples` bootstrap resamples of xs (each of xs.size() values drawn with
// replacement), from a generator seeded with `seed`: what ratio_of_medians pairs up, kept so that
// one case's resamples serve every comparison it is in.
std::vector<double> bootstrap_medians(const std::vector<double>& xs, std::size_t resamples, std::uint64_t seed);
// The ratio num/den with the percentile interval of the paired ratios of their bootstrap medians.
RatioEstimate ratio_from_bootstraps(double ratio, const std::vector<double>& num_medians,
                                    const std::vector<double>& den_medians, double confidence = kRatioConfidence);

// median(num) / median(den) with a distribution-free interval of at least `confidence`: each
// median's order-statistic interval at 1 - (1 - confidence) / 2, divided crosswise. It holds
// whatever the two distributions are (independent samples of each); with too few samples for
// that confidence the interval is [0, inf): nothing can be told. The interval of sequential
// verdicts (docs/harness.md), cheap enough to compute after every round.
RatioEstimate ratio_by_order_statistics(const std::vector<double>& num, const std::vector<double>& den,
                                        double confidence);

// Whether two sets of times tell their medians apart: the U test gives p < 1 - kRatioConfidence
// and the kRatioConfidence bootstrap interval of the ratio of the medians excludes 1. Otherwise
// they are tied (the rule of ranks, winner groups and racing: docs/harness.md).
enum class Order { tied, faster, slower };  // of the first against the second
Order order_of(const std::vector<double>& a, const std::vector<double>& b);
// The same with the ratio of the medians from `ratio` (asked for only when the U test separates
// them; a caller may keep the bootstraps it made).
Order order_of(const std::vector<double>& a, const std::vector<double>& b, const std::function<RatioEstimate()>& ratio);

// Two-sided p-value of the Mann-Whitney U test that a and b come from one distribution: exact
// (ties included, by their blocks) when n1 x n2 <= 400, else the normal approximation with tie
// and continuity corrections. 1 when either side is empty or holds a NaN.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

// The geometric mean of positive values (0 for none).
double geometric_mean(const std::vector<double>& xs);

// Modified z-score 0.6745 (x - median) / MAD for each x (0 when MAD is 0).
std::vector<double> modified_z_scores(const std::vector<double>& xs);
// Indices whose |modified z| exceeds the threshold: Iglewicz and Hoaglin's cut-off, 3.5.
inline constexpr double kOutlierThreshold = 3.5;
std::vector<std::size_t> outliers(const std::vector<double>& xs, double threshold = kOutlierThreshold);

}  // namespace iolab
