// Statistics against values computed by hand or another way (published t tables, every split of a
// sample listed, every pair of two samples listed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "iolab/harness/ratio.hpp"
#include "iolab/harness/result.hpp"
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

// P(U <= k) by listing every way to label n of the n + m values as the first sample (no ties: U
// counts the pairs where a first-sample value is below a second-sample one).
double enumerated_u_cdf(unsigned n, unsigned m, std::size_t k) {
    std::size_t below = 0, all = 0;
    for (unsigned mask = 0; mask < (1u << (n + m)); ++mask) {
        if (static_cast<unsigned>(__builtin_popcount(mask)) != n) continue;
        std::size_t u = 0, seen_first = 0;
        for (unsigned i = 0; i < n + m; ++i) {
            if (mask & (1u << i))
                ++seen_first;
            else
                u += seen_first;  // the first-sample values below this second-sample one
        }
        ++all;
        below += u <= k;
    }
    return static_cast<double>(below) / static_cast<double>(all);
}

TEST(Ratio, TheNullDistributionOfUMatchesEnumeration) {
    for (unsigned n = 1; n <= 7; ++n)
        for (unsigned m = 1; m <= 7; ++m)
            for (std::size_t k = 0; k <= n * m; ++k)
                EXPECT_NEAR(u_cdf(n, m, k), enumerated_u_cdf(n, m, k), 1e-12) << n << " " << m << " " << k;
    // Moses's rank: the largest C with P(U <= C - 1) within the tail, by the enumerated law.
    for (unsigned n = 2; n <= 8; ++n)
        for (unsigned m = n; m <= 8; ++m)
            for (const double conf : {0.9, 0.95, 0.99}) {
                const std::size_t c = moses_rank(n, m, conf);
                const double tail = (1 - conf) / 2;
                if (c > 0) {
                    EXPECT_LE(enumerated_u_cdf(n, m, c - 1), tail * (1 + 1e-9)) << n << m << conf;
                }
                EXPECT_GT(enumerated_u_cdf(n, m, c), tail) << n << " " << m << " " << conf;
            }
    // The tables' critical values: ten against ten at 1 % two-sided rejects U <= 16; five against
    // five, U = 0 (p = 2/252); four against four cannot reach it.
    EXPECT_EQ(moses_rank(10, 10, 0.99), 17u);
    EXPECT_EQ(moses_rank(5, 5, 0.99), 1u);
    EXPECT_EQ(moses_rank(4, 4, 0.99), 0u);
    // Past the exact range, the normal approximation lands beside it.
    EXPECT_NEAR(static_cast<double>(moses_rank(400, 400, 0.99)), 71588, 20);
}

TEST(Ratio, HodgesLehmannAndMosesFromEveryPair) {
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> d(0, 0.3);
    for (std::size_t n : {3u, 6u, 13u})
        for (std::size_t m : {5u, 8u, 21u}) {
            std::vector<double> a, b, logs;
            for (std::size_t i = 0; i < n; ++i) a.push_back(2 * d(rng));
            for (std::size_t j = 0; j < m; ++j) b.push_back(d(rng));
            for (double x : a)
                for (double y : b) logs.push_back(std::log(x) - std::log(y));
            std::sort(logs.begin(), logs.end());
            const std::size_t nm = logs.size();
            const double mid = nm % 2 ? logs[nm / 2] : (logs[nm / 2 - 1] + logs[nm / 2]) / 2;
            const RatioEstimate r = ratio_interval(a, b, 0.95);
            EXPECT_NEAR(r.ratio, std::exp(mid), 1e-12);
            const std::size_t c = moses_rank(n, m, 0.95);
            if (c == 0) continue;
            EXPECT_FALSE(r.envelope);
            EXPECT_NEAR(r.low, std::exp(logs[c - 1]), 1e-12);
            EXPECT_NEAR(r.high, std::exp(logs[nm - c]), 1e-12);
        }
}

// Distribution-free: samples of one skewed law, one side scaled by 1.5, are covered at 99 % or more
// whatever the sizes.
TEST(Ratio, TheIntervalCoversTheTrueRatioAsOftenAsItSays) {
    std::mt19937_64 rng(11);
    std::exponential_distribution<double> e(1.0);
    for (const auto& [n, m] : {std::pair{5, 5}, std::pair{8, 12}, std::pair{20, 20}}) {
        int covered = 0;
        constexpr int kDraws = 4000;
        for (int i = 0; i < kDraws; ++i) {
            std::vector<double> a, b;
            for (int k = 0; k < n; ++k) a.push_back(1.5 * (1 + e(rng)));
            for (int k = 0; k < m; ++k) b.push_back(1 + e(rng));
            const RatioEstimate r = ratio_interval(a, b, 0.99);
            covered += r.low <= 1.5 && 1.5 <= r.high;
        }
        // 99 % at least (the exact level is higher where ranks are coarse); 3.5 sigma of 4,000 draws.
        EXPECT_GE(covered, kDraws * 0.99 - 3.5 * std::sqrt(kDraws * 0.0099)) << n << " " << m;
    }
}

TEST(Ratio, TooFewSamplesGetTheEnvelopeAndNoTimeGetsNothing) {
    const RatioEstimate r = ratio_interval({2, 2.2, 1.8, 2.1}, {1, 1.1, 0.9, 1.05}, 0.99);
    EXPECT_TRUE(r.envelope);
    EXPECT_NEAR(r.low, 1.8 / 1.1 / envelope_factor(4), 1e-12);
    EXPECT_NEAR(r.high, 2.2 / 0.9 * envelope_factor(4), 1e-12);
    EXPECT_GT(envelope_factor(1), envelope_factor(2));
    EXPECT_EQ(envelope_factor(5), envelope_factor(50));
    for (const auto& bad : {std::vector<double>{}, std::vector<double>{1, 0}, std::vector<double>{1, -1},
                            std::vector<double>{1, std::nan("")}}) {
        const RatioEstimate none = ratio_interval(bad, {1, 1}, 0.99);
        EXPECT_EQ(none.ratio, 0);
        EXPECT_TRUE(std::isinf(none.high));
        EXPECT_EQ(order_at(none, 0), Order::tied);
    }
}

// A net time (a tool's, a JVM worker's) takes away the median of the case's fixed costs: a probe
// that a hiccup made longer than its run (a round trip of 3 ms beside a copy of 1 ms) leaves every
// time positive, so the case keeps its ratio; taking away each run's own probe, that run's time
// was below zero and the finding's interval nothing ([-, inf]).
TEST(Ratio, ANetTimeTakesAwayTheMedianOfTheFixedCosts) {
    CaseResult c;
    for (int i = 0; i < 9; ++i) {
        Sample s;
        s.wall_s = 1e-3 * (1 + 0.01 * i);
        s.fixed_s = i == 4 ? 3e-3 : 1e-4 * (1 + 0.01 * i);
        s.bytes = 1 << 20;
        c.samples.push_back(s);
    }
    const std::vector<double> t = c.per_byte();
    ASSERT_EQ(t.size(), 9u);
    for (const double x : t) EXPECT_GT(x, 0);
    EXPECT_NEAR(t[0] * (1 << 20), 1e-3 - 1.05e-4, 1e-12);  // the median probe: the fifth smallest, 105 us
    CaseResult slower = c;
    for (auto& s : slower.samples) s.wall_s *= 10;
    const RatioEstimate r = ratio_of(slower, c, 0.99);
    EXPECT_GT(r.ratio, 10);
    EXPECT_TRUE(std::isfinite(r.high));
    EXPECT_GT(r.low, 1);
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
