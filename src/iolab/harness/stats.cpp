#include "iolab/harness/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/students_t.hpp>

namespace iolab {

double Summary::median_precision() const {
    if (median <= 0 || n < 2) return 0;
    return std::max(median - median_low, median_high - median) / median;
}

double t_quantile(double confidence, std::size_t dof) {
    const boost::math::students_t dist(static_cast<double>(dof));
    return boost::math::quantile(dist, 1 - (1 - confidence) / 2);
}

double median(std::vector<double> xs) {
    if (xs.empty()) return 0;
    const std::size_t mid = xs.size() / 2;
    std::nth_element(xs.begin(), xs.begin() + static_cast<long>(mid), xs.end());
    const double upper = xs[mid];
    if (xs.size() % 2 == 1) return upper;
    const double lower = *std::max_element(xs.begin(), xs.begin() + static_cast<long>(mid));
    return (lower + upper) / 2;
}

MedianInterval median_interval(std::vector<double> xs, double confidence) {
    MedianInterval m;
    if (xs.empty()) return m;
    std::sort(xs.begin(), xs.end());
    const std::size_t n = xs.size();
    if (n == 1) {
        m.low = m.high = xs[0];
        return m;
    }
    const boost::math::binomial_distribution<double> bin(static_cast<double>(n), 0.5);
    // Coverage of [x(k), x(n+1-k)] (1-based k) is 1 - 2 P(X <= k - 1).
    const auto coverage = [&](std::size_t k) { return 1 - 2 * boost::math::cdf(bin, static_cast<double>(k - 1)); };
    // The largest k from 1 to n/2 whose coverage is enough (coverage falls as k grows), or 1.
    std::size_t k = 1, beyond = n / 2 + 1;  // coverage(k) is enough or k is 1; beyond: not enough
    while (beyond - k > 1) {
        const std::size_t mid = k + (beyond - k) / 2;
        (coverage(mid) >= confidence ? k : beyond) = mid;
    }
    m.low = xs[k - 1];
    m.high = xs[n - k];
    m.confidence = coverage(k);
    return m;
}

Summary summarize(const std::vector<double>& xs, double mean_confidence) {
    Summary s;
    s.n = xs.size();
    if (xs.empty()) return s;
    s.mean = std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(s.n);
    const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
    s.min = *lo;
    s.max = *hi;
    s.median = median(xs);
    const MedianInterval mi = median_interval(xs);
    s.median_low = mi.low;
    s.median_high = mi.high;
    s.median_confidence = mi.confidence;
    s.ci_low = s.ci_high = s.mean;
    if (s.n < 2) return s;
    double ss = 0;
    for (double x : xs) ss += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
    s.cv = s.mean > 0 ? s.stddev / s.mean : 0;
    const double half = t_quantile(mean_confidence, s.n - 1) * s.stddev / std::sqrt(static_cast<double>(s.n));
    s.ci_low = s.mean - half;
    s.ci_high = s.mean + half;
    return s;
}

namespace {

// Σ (t³ - t) over the runs of t equal values of a sorted sample: the ties' variance correction.
double tie_term(const std::vector<double>& sorted) {
    double term = 0;
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i;
        while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
        const double t = static_cast<double>(j - i);
        term += t * t * t - t;
        i = j;
    }
    return term;
}

// The exact distribution of 2U, ties or not: the number of ways to label the pooled sample,
// block of equal values by block of equal values (ascending), that gives each 2U (pairs a < b
// count 2, equal pairs 1). f[a][v]: ways with a a's labelled so far and 2U = v so far. In a block
// of t values with i a's and j = t - i b's, each b is above the a's labelled before it (2 each)
// and equal to the block's i a's (1 each).
std::vector<double> exact_u_distribution(const std::vector<double>& sorted, std::size_t n1, std::size_t n2) {
    const std::size_t vmax = 2 * n1 * n2;
    std::vector<std::vector<double>> f(n1 + 1, std::vector<double>(vmax + 1, 0));
    f[0][0] = 1;
    std::size_t placed = 0;
    for (std::size_t start = 0; start < sorted.size();) {
        std::size_t end = start;
        while (end < sorted.size() && sorted[end] == sorted[start]) ++end;
        const std::size_t t = end - start;
        std::vector<std::vector<double>> g(n1 + 1, std::vector<double>(vmax + 1, 0));
        for (std::size_t used = 0; used <= n1 && used <= placed; ++used) {
            if (placed - used > n2) continue;
            for (std::size_t v = 0; v <= vmax; ++v) {
                if (f[used][v] == 0) continue;
                double ways = 1;  // C(t, i), built up as i grows
                for (std::size_t i = 0; i <= t && used + i <= n1; ++i) {
                    if (i > 0) ways = ways * static_cast<double>(t - i + 1) / static_cast<double>(i);
                    const std::size_t j = t - i;
                    if (placed - used + j > n2) continue;
                    const std::size_t add = 2 * used * j + i * j;
                    if (v + add <= vmax) g[used + i][v + add] += f[used][v] * ways;
                }
            }
        }
        f = std::move(g);
        placed += t;
        start = end;
    }
    return std::move(f[n1]);
}

// The two-sided p of U from its exact distribution (of 2U).
double exact_p(const std::vector<double>& dist, double u) {
    const double total = std::accumulate(dist.begin(), dist.end(), 0.0);
    const auto k = static_cast<std::size_t>(std::llround(2 * u));
    double below = 0, above = 0;
    for (std::size_t v = 0; v < dist.size(); ++v) {
        if (v <= k) below += dist[v];
        if (v >= k) above += dist[v];
    }
    return total > 0 ? std::min(1.0, 2 * std::min(below, above) / total) : 1.0;
}

// The two-sided p of U from the normal approximation, with the ties' correction and a
// continuity correction.
double normal_p(double u, std::size_t n1, std::size_t n2, double ties) {
    const double m1 = static_cast<double>(n1), m2 = static_cast<double>(n2), n = m1 + m2;
    const double mu = m1 * m2 / 2;
    const double var = m1 * m2 / 12 * ((n + 1) - ties / (n * (n - 1)));
    if (var <= 0) return 1;
    const double z = (std::fabs(u - mu) - 0.5) / std::sqrt(var);
    if (z <= 0) return 1;
    return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

}  // namespace

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
    const std::size_t n1 = a.size(), n2 = b.size();
    if (n1 == 0 || n2 == 0) return 1;
    // A NaN is no time: no order can be told (and it would never equal itself below).
    if (std::any_of(a.begin(), a.end(), [](double x) { return std::isnan(x); }) ||
        std::any_of(b.begin(), b.end(), [](double x) { return std::isnan(x); }))
        return 1;
    // U of a: pairs where a is below b, ties counting one half: n1 n2 less a's rank sum over the
    // pooled sample (ties at their mean rank) less n1 (n1 + 1) / 2.
    std::vector<std::pair<double, bool>> pooled;  // value, from a
    pooled.reserve(n1 + n2);
    for (double x : a) pooled.emplace_back(x, true);
    for (double y : b) pooled.emplace_back(y, false);
    std::sort(pooled.begin(), pooled.end());
    double rank_sum = 0;
    for (std::size_t i = 0; i < pooled.size();) {
        std::size_t j = i;
        std::size_t from_a = 0;
        while (j < pooled.size() && pooled[j].first == pooled[i].first) from_a += pooled[j++].second;
        rank_sum += static_cast<double>(from_a) * (static_cast<double>(i + 1 + j) / 2);  // ranks i+1..j
        i = j;
    }
    const double m1 = static_cast<double>(n1), m2 = static_cast<double>(n2);
    const double u = m1 * m2 - (rank_sum - m1 * (m1 + 1) / 2);
    std::vector<double> all;
    all.reserve(pooled.size());
    for (const auto& p : pooled) all.push_back(p.first);
    if (n1 * n2 <= 400) return exact_p(exact_u_distribution(all, n1, n2), u);
    return normal_p(u, n1, n2, tie_term(all));
}

double geometric_mean(const std::vector<double>& xs) {
    double s = 0;
    std::size_t n = 0;
    for (double x : xs)
        if (x > 0) {
            s += std::log(x);
            ++n;
        }
    return n ? std::exp(s / static_cast<double>(n)) : 0;
}

std::vector<double> modified_z_scores(const std::vector<double>& xs) {
    const double m = median(xs);
    std::vector<double> dev;
    dev.reserve(xs.size());
    for (double x : xs) dev.push_back(std::fabs(x - m));
    const double mad = median(dev);
    std::vector<double> z;
    z.reserve(xs.size());
    for (double x : xs) z.push_back(mad > 0 ? 0.6745 * (x - m) / mad : 0);
    return z;
}

std::vector<std::size_t> outliers(const std::vector<double>& xs, double threshold) {
    const auto z = modified_z_scores(xs);
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < z.size(); ++i)
        if (std::fabs(z[i]) > threshold) out.push_back(i);
    return out;
}

}  // namespace iolab
