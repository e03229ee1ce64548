#pragma once
// Statistics over a case's samples, as pure functions: medians with order-statistic intervals, the
// Mann-Whitney U test. The ratio of two cases, on which decisions rest, is ratio.hpp's.
// docs/harness.md states each rule.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace iolab {

// The confidence of the median's interval in tables, and the one the precision target uses.
inline constexpr double kMedianConfidence = 0.95;
// The confidence of every ratio interval a table, a finding's last look or iolab compare shows,
// and the significance level of iolab compare's U test (1 - this).
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

// Two-sided p-value of the Mann-Whitney U test that a and b come from one distribution: exact
// (ties included, by their blocks) when n1 x n2 <= 400, else the normal approximation with tie
// and continuity corrections; U from the pooled sample's ranks (a sort, not every pair). 1 when
// either side is empty or holds a NaN.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

// The geometric mean of positive values (0 for none).
double geometric_mean(const std::vector<double>& xs);

// Modified z-score 0.6745 (x - median) / MAD for each x (0 when MAD is 0).
std::vector<double> modified_z_scores(const std::vector<double>& xs);
// Indices whose |modified z| exceeds the threshold: Iglewicz and Hoaglin's cut-off, 3.5.
inline constexpr double kOutlierThreshold = 3.5;
std::vector<std::size_t> outliers(const std::vector<double>& xs, double threshold = kOutlierThreshold);

}  // namespace iolab
