// Statistics against values computed by hand (and checked against published t tables).
#include <gtest/gtest.h>

#include <cmath>

#include "iolab/harness/runner.hpp"
#include "iolab/harness/stats.hpp"

namespace iolab {
namespace {

TEST(Stats, StudentTQuantilesMatchTables) {
    // Two-sided 99.9 %: t(0.9995; dof) from standard tables.
    EXPECT_NEAR(t_quantile(0.999, 1), 636.619, 1e-3);
    EXPECT_NEAR(t_quantile(0.999, 4), 8.610, 1e-3);
    EXPECT_NEAR(t_quantile(0.999, 9), 4.781, 1e-3);
    EXPECT_NEAR(t_quantile(0.999, 29), 3.659, 1e-3);
    EXPECT_NEAR(t_quantile(0.95, 10), 2.228, 1e-3);
}

TEST(Stats, SummaryOfAKnownSample) {
    const Summary s = summarize({1, 2, 3, 4, 5});
    EXPECT_EQ(s.n, 5u);
    EXPECT_DOUBLE_EQ(s.mean, 3);
    EXPECT_DOUBLE_EQ(s.median, 3);
    EXPECT_DOUBLE_EQ(s.min, 1);
    EXPECT_DOUBLE_EQ(s.max, 5);
    EXPECT_NEAR(s.stddev, 1.5811388, 1e-6);
    EXPECT_NEAR(s.cv, 1.5811388 / 3, 1e-6);
    // half width = t(0.9995; 4) * s / sqrt(5) = 8.6103 * 1.5811 / 2.2361 = 6.0884
    EXPECT_NEAR(s.ci_high - s.mean, 6.0884, 1e-3);
    EXPECT_NEAR(s.mean - s.ci_low, 6.0884, 1e-3);
}

TEST(Stats, EdgeCases) {
    EXPECT_EQ(summarize({}).n, 0u);
    const Summary one = summarize({2.5});
    EXPECT_DOUBLE_EQ(one.mean, 2.5);
    EXPECT_DOUBLE_EQ(one.ci_low, 2.5);
    EXPECT_DOUBLE_EQ(one.ci_high, 2.5);
    EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
    const Summary flat = summarize({7, 7, 7});
    EXPECT_DOUBLE_EQ(flat.stddev, 0);
    EXPECT_DOUBLE_EQ(flat.ci_high, 7);
}

// The median's interval against binomial tables: for n = 10, P(Bin(10, 1/2) <= 1) = 11/1024, so
// [x(2), x(9)] covers the median with 1 - 22/1024; [x(3), x(8)] would only reach 1 - 112/1024.
TEST(Stats, MedianIntervalMatchesTheBinomialTable) {
    std::vector<double> xs = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};  // 1..10, shuffled
    MedianInterval m = median_interval(xs, 0.95);
    EXPECT_DOUBLE_EQ(m.low, 2);
    EXPECT_DOUBLE_EQ(m.high, 9);
    EXPECT_DOUBLE_EQ(m.confidence, 1 - 22.0 / 1024);
    // n = 20: P(X <= 5) = 21700/2^20 -> [x(6), x(15)] at 1 - 43400/2^20.
    xs.clear();
    for (int i = 20; i >= 1; --i) xs.push_back(i);
    m = median_interval(xs, 0.95);
    EXPECT_DOUBLE_EQ(m.low, 6);
    EXPECT_DOUBLE_EQ(m.high, 15);
    EXPECT_NEAR(m.confidence, 1 - 43400.0 / 1048576, 1e-12);
    // n = 6: only [min, max] reaches 95 % (1 - 2/64); n = 5 cannot (1 - 2/32 = 93.75 %).
    m = median_interval({3, 1, 2, 6, 5, 4}, 0.95);
    EXPECT_DOUBLE_EQ(m.low, 1);
    EXPECT_DOUBLE_EQ(m.high, 6);
    EXPECT_DOUBLE_EQ(m.confidence, 1 - 2.0 / 64);
    m = median_interval({3, 1, 2, 5, 4}, 0.95);
    EXPECT_DOUBLE_EQ(m.confidence, 1 - 2.0 / 32);
    EXPECT_LT(m.confidence, 0.95);
    const Summary s = summarize({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    EXPECT_DOUBLE_EQ(s.median_low, 2);
    EXPECT_DOUBLE_EQ(s.median_high, 9);
    EXPECT_DOUBLE_EQ(s.median_precision(), 3.5 / 5.5);  // the larger side, relative to the median
}

TEST(Stats, RatioOfMediansHasItsOwnReproducibleInterval) {
    const std::vector<double> a = {1.0, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98};
    const std::vector<double> b = {3.0, 3.3, 2.7, 3.15, 2.85, 3.06, 2.94};
    const RatioEstimate r = ratio_of_medians(b, a);
    EXPECT_DOUBLE_EQ(r.ratio, 3.0);
    EXPECT_LE(r.low, r.ratio);
    EXPECT_GE(r.high, r.ratio);
    EXPECT_GT(r.low, 2.4);  // the two spreads cannot make it smaller
    EXPECT_LT(r.high, 3.8);
    const RatioEstimate again = ratio_of_medians(b, a);
    EXPECT_EQ(r.low, again.low);  // seeded: the same interval every time
    EXPECT_EQ(r.high, again.high);
    // No spread: the interval is the ratio itself.
    const RatioEstimate exact = ratio_of_medians({6, 6, 6, 6, 6}, {2, 2, 2, 2, 2});
    EXPECT_DOUBLE_EQ(exact.ratio, 3);
    EXPECT_DOUBLE_EQ(exact.low, 3);
    EXPECT_DOUBLE_EQ(exact.high, 3);
    // Skewed samples: the mean ratio is far from 1, the median ratio and its interval are not.
    const RatioEstimate skew = ratio_of_medians({1, 1, 1, 1, 1, 1, 9, 9}, {1, 1.01, 1, 1.02, 1, 1.01, 1, 1});
    EXPECT_GE(skew.ratio, skew.low);
    EXPECT_LE(skew.ratio, skew.high);
}

// p-values computed independently by enumerating every split of the pooled sample (exact, ties
// counting one half: up to 400 pairs) and by the textbook normal approximation with tie and
// continuity corrections (beyond).
TEST(Stats, MannWhitneyMatchesEnumerationAndTheNormalApproximation) {
    EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 2.0 / 252, 1e-12);
    EXPECT_NEAR(mann_whitney_p({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}), 0.6904761904761905, 1e-12);
    EXPECT_NEAR(mann_whitney_p({1.0, 2.5, 3, 7}, {2, 4, 5, 6, 8, 9}), 0.2571428571428571, 1e-12);
    // Ties, exact: 0.0387 by enumerating all 24,310 splits (the normal approximation said 0.0448).
    EXPECT_NEAR(mann_whitney_p({1, 1, 2, 2, 3, 3, 3, 7}, {2, 3, 3, 4, 4, 5, 6, 6, 9}), 0.03866721513780337, 1e-12);
    // A tie inside one sample does not hide that five are all above five (the approximation gave 0.0119).
    EXPECT_NEAR(mann_whitney_p({2, 2, 1.99, 2.02, 1.98}, {1, 1.01, 0.99, 1.02, 0.98}), 2.0 / 252, 1e-12);
    // 21 against 21 (441 pairs), with ties: the normal approximation.
    EXPECT_NEAR(mann_whitney_p({1, 1, 2, 2, 3, 3, 3, 7, 4, 5, 6, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                               {2, 3, 3, 4, 4, 5, 6, 6, 9, 10, 11, 12, 3, 4, 5, 6, 7, 8, 9, 10, 11}),
                0.022821535290738104, 1e-12);
    EXPECT_DOUBLE_EQ(mann_whitney_p({}, {1, 2}), 1);
    EXPECT_DOUBLE_EQ(mann_whitney_p({1, std::nan(""), 3}, {4, 5, 6}), 1);  // no order, and no hang
    EXPECT_NEAR(geometric_mean({1, 4, 16}), 4, 1e-12);
}

TEST(Stats, ModifiedZScoreFindsTheOutlier) {
    const std::vector<double> xs = {10, 10.1, 9.9, 10.05, 9.95, 30};
    const auto z = modified_z_scores(xs);
    // median 10.025, MAD 0.075: z(30) = 0.6745 * 19.975 / 0.075
    EXPECT_NEAR(z[5], 0.6745 * 19.975 / 0.075, 1e-6);
    EXPECT_EQ(outliers(xs), std::vector<std::size_t>{5});
    EXPECT_TRUE(outliers({1, 1.1, 0.9, 1.05, 0.95}).empty());
    EXPECT_TRUE(outliers({3, 3, 3, 3}).empty());  // MAD 0: nothing can be called an outlier
}

TEST(Iterations, TargetTimeChoosesTheCountLikeGoogleBenchmark) {
    EXPECT_EQ(iterations_for(1.0, 0.01, 10000), 100u);
    EXPECT_EQ(iterations_for(1.0, 0.3, 10000), 4u);  // ceil(3.33)
    EXPECT_EQ(iterations_for(1.0, 5.0, 10000), 3u);  // never fewer than 3: an interval needs them
    EXPECT_EQ(iterations_for(1.0, 1e-7, 10000), 10000u);
    EXPECT_EQ(iterations_for(1.0, 0, 50), 50u);
}

TEST(Amounts, CountsAndTimes) {
    EXPECT_EQ(parse_amount("10", "--iterations", false).count, 10u);
    EXPECT_DOUBLE_EQ(parse_amount("2s", "--iterations", false).seconds, 2.0);
    EXPECT_DOUBLE_EQ(parse_amount("500ms", "--warmup", true).seconds, 0.5);
    EXPECT_EQ(parse_amount("0", "--warmup", true).count, 0u);
    EXPECT_THROW(parse_amount("0", "--iterations", false), std::invalid_argument);
    EXPECT_THROW(parse_amount("-3", "--iterations", false), std::invalid_argument);
    EXPECT_THROW(parse_amount("1.5", "--iterations", false), std::invalid_argument);
    EXPECT_THROW(parse_amount("fast", "--warmup", true), std::invalid_argument);
    EXPECT_TRUE(parse_amount("auto", "--iterations", false, true).adaptive);
    EXPECT_THROW(parse_amount("auto", "--warmup", true), std::invalid_argument);
    EXPECT_DOUBLE_EQ(parse_precision("3%", "--precision"), 0.03);
    EXPECT_DOUBLE_EQ(parse_precision("0.05", "--precision"), 0.05);
    EXPECT_THROW(parse_precision("0%", "--precision"), std::invalid_argument);
    EXPECT_THROW(parse_precision("", "--precision"), std::invalid_argument);
    EXPECT_DOUBLE_EQ(parse_budget("500ms", "--budget"), 0.5);
    EXPECT_THROW(parse_budget("5", "--budget"), std::invalid_argument);
    EXPECT_EQ(value_of(kVerifyModes, "full"), VerifyMode::full);
    EXPECT_EQ(value_of(kVerifyModes, "some"), std::nullopt);
}

}  // namespace
}  // namespace iolab
