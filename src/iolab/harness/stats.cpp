#include "iolab/harness/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <boost/math/distributions/students_t.hpp>

namespace iolab {

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

Summary summarize(const std::vector<double>& xs, double confidence) {
    Summary s;
    s.n = xs.size();
    if (xs.empty()) return s;
    s.mean = std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(s.n);
    const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
    s.min = *lo;
    s.max = *hi;
    s.median = median(xs);
    s.ci_low = s.ci_high = s.mean;
    if (s.n < 2) return s;
    double ss = 0;
    for (double x : xs) ss += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
    s.cv = s.mean > 0 ? s.stddev / s.mean : 0;
    const double half = t_quantile(confidence, s.n - 1) * s.stddev / std::sqrt(static_cast<double>(s.n));
    s.ci_low = s.mean - half;
    s.ci_high = s.mean + half;
    return s;
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
