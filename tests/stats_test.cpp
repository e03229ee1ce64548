// Statistics against values computed by hand (and checked against published t tables).
#include <gtest/gtest.h>

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
    EXPECT_EQ(iterations_for(1.0, 0.3, 10000), 4u);    // ceil(3.33)
    EXPECT_EQ(iterations_for(1.0, 5.0, 10000), 3u);    // never fewer than 3: an interval needs them
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
}

}  // namespace
}  // namespace iolab
