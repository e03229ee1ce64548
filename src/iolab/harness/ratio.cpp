#include "iolab/harness/ratio.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <tuple>

namespace iolab {

namespace {

// Past this much work (the smaller size times the half of n * m the lower tail needs), the normal
// approximation: 340 against 340 samples is exact.
constexpr double kMostExactWork = 4e7;

// P(U = u) for u = 0..k: the coefficients of the q-binomial [n+m choose n]_q, the product over
// i = 1..n of (1 - q^(m+i)) / (1 - q^i), each step scaled by i / (m + i) so that the coefficients
// stay probabilities. Every step only mixes a coefficient with lower ones, so keeping the first
// k + 1 is exact.
std::vector<double> u_distribution(std::size_t n, std::size_t m, std::size_t k) {
    if (n > m) std::swap(n, m);  // U of n against m and of m against n have one distribution
    std::vector<double> c(k + 1, 0);
    c[0] = 1;
    for (std::size_t i = 1; i <= n; ++i) {
        if (k >= m + i)
            for (std::size_t d = k; d >= m + i; --d) c[d] -= c[d - (m + i)];
        for (std::size_t d = i; d <= k; ++d) c[d] += c[d - i];
        const double scale = static_cast<double>(i) / static_cast<double>(m + i);
        for (double& x : c) x *= scale;
    }
    return c;
}

bool exact_for(std::size_t n, std::size_t m) {
    const double half = static_cast<double>(n) * static_cast<double>(m) / 2;
    return static_cast<double>(std::min(n, m)) * half <= kMostExactWork;
}

double normal_cdf(std::size_t n, std::size_t m, double k) {
    const double nm = static_cast<double>(n) * static_cast<double>(m);
    const double sd = std::sqrt(nm * static_cast<double>(n + m + 1) / 12);
    return 0.5 * std::erfc(-((k + 0.5 - nm / 2) / sd) / std::sqrt(2.0));
}

// Past this many differences, kth_difference counts instead of listing them.
constexpr std::size_t kListed = 1 << 16;

// A double's place in the order of doubles, as an integer: bisection over it visits every double.
std::int64_t key_of(double x) {
    const auto bits = std::bit_cast<std::int64_t>(x);
    return bits >= 0 ? bits : std::numeric_limits<std::int64_t>::min() - bits;
}
double double_of(std::int64_t key) {
    return std::bit_cast<double>(key >= 0 ? key : std::numeric_limits<std::int64_t>::min() - key);
}

// The k-th smallest (from 1) of the differences x_i - y_j of two sorted samples, without listing
// the n * m of them: the smallest double t with at least k differences <= t, by bisection over
// the doubles; each count walks both samples once (for x_i ascending, the y_j with x_i - y_j <= t
// are a suffix that only shrinks).
double kth_difference(const std::vector<double>& x, const std::vector<double>& y, std::size_t k) {
    // Few enough to list (a run's cases, most of the time): listed.
    if (x.size() * y.size() <= kListed) {
        thread_local std::vector<double> d;
        d.clear();
        for (const double xi : x)
            for (const double yj : y) d.push_back(xi - yj);
        std::nth_element(d.begin(), d.begin() + static_cast<long>(k - 1), d.end());
        return d[k - 1];
    }
    const auto at_most = [&](double t) {
        std::size_t count = 0, j = 0;
        for (const double xi : x) {
            while (j < y.size() && xi - y[j] > t) ++j;
            count += y.size() - j;
        }
        return count;
    };
    std::int64_t lo = key_of(x.front() - y.back()), hi = key_of(x.back() - y.front());
    // at_most(double_of(hi)) is n * m >= k; find the smallest key whose count reaches k.
    while (lo < hi) {
        // hi - lo may not fit an int64 (keys of both signs): halve it unsigned.
        const auto mid =
            lo + static_cast<std::int64_t>((static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo)) / 2);
        if (at_most(double_of(mid)) >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return double_of(lo);
}

}  // namespace

double u_cdf(std::size_t n, std::size_t m, std::size_t k) {
    if (n == 0 || m == 0) return 1;
    if (k >= n * m) return 1;
    if (!exact_for(n, m)) return std::min(1.0, normal_cdf(n, m, static_cast<double>(k)));
    const std::vector<double> p = u_distribution(n, m, k);
    double sum = 0;
    for (const double x : p) sum += x;
    return std::min(1.0, sum);
}

std::size_t moses_rank(std::size_t n, std::size_t m, double confidence) {
    if (n == 0 || m == 0) return 0;
    const double tail = (1 - confidence) / 2;
    // The ranks asked for again and again while racing: kept, per thread.
    thread_local std::map<std::tuple<std::size_t, std::size_t, double>, std::size_t> known;
    const auto key = std::tuple{std::min(n, m), std::max(n, m), confidence};
    if (const auto it = known.find(key); it != known.end()) return it->second;
    const std::size_t half = n * m / 2;
    std::size_t c = 0;  // the largest C with P(U <= C - 1) <= tail
    if (exact_for(n, m)) {
        const std::vector<double> p = u_distribution(n, m, half);
        double below = 0;  // P(U <= c - 1)
        while (c < half && below + p[c] <= tail * (1 + 1e-9)) below += p[c++];
    } else {
        // The normal approximation is monotone: bisect.
        std::size_t lo = 0, hi = half;
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo + 1) / 2;
            if (normal_cdf(n, m, static_cast<double>(mid) - 1) <= tail)
                lo = mid;
            else
                hi = mid - 1;
        }
        c = lo;
    }
    known.emplace(key, c);
    return c;
}

double envelope_factor(std::size_t fewer) {
    // The largest seen (ratio.hpp), rounded up by about a tenth; past 5 samples the factor of 5
    // (more samples only make the envelope wider, since min and max spread further).
    constexpr double kFactors[] = {25, 8.5, 2.5, 2.0, 1.7};
    return kFactors[std::clamp<std::size_t>(fewer, 1, 5) - 1];
}

RatioEstimate ratio_interval(const std::vector<double>& num, const std::vector<double>& den, double confidence,
                             bool envelope) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const RatioEstimate nothing{0, 0, kInf, false};
    if (num.empty() || den.empty()) return nothing;
    const auto logs = [](const std::vector<double>& xs, std::vector<double>& out) {
        out.reserve(xs.size());
        for (const double x : xs) {
            if (!(x > 0) || !std::isfinite(x)) return false;
            out.push_back(std::log(x));
        }
        std::sort(out.begin(), out.end());
        return true;
    };
    std::vector<double> x, y;
    if (!logs(num, x) || !logs(den, y)) return nothing;
    const std::size_t n = x.size(), m = y.size(), nm = n * m;
    RatioEstimate r;
    // The median of the n * m log ratios: the middle one, or the mean of the middle two.
    const double mid = nm % 2 == 1 ? kth_difference(x, y, nm / 2 + 1)
                                   : (kth_difference(x, y, nm / 2) + kth_difference(x, y, nm / 2 + 1)) / 2;
    r.ratio = std::exp(mid);
    if (const std::size_t c = moses_rank(n, m, confidence); c > 0) {
        r.low = std::exp(kth_difference(x, y, c));
        r.high = std::exp(kth_difference(x, y, nm + 1 - c));
    } else if (!envelope) {
        r.low = 0;
        r.high = kInf;
        return r;
    } else {
        const double e = envelope_factor(std::min(n, m));
        r.low = std::exp(x.front() - y.back()) / e;
        r.high = std::exp(x.back() - y.front()) * e;
        r.envelope = true;
    }
    // The estimate lies inside its interval (exp and the middle's mean may round past an end).
    r.low = std::min(r.low, r.ratio);
    r.high = std::max(r.high, r.ratio);
    return r;
}

std::size_t look_samples(std::size_t look) {
    constexpr std::size_t kFirst[] = {1, 2, 3, 5, 8};
    if (look == 0) return 0;
    if (look <= 5) return kFirst[look - 1];
    // Look 6 is 12, 7 is 16, 8 is 24, ...: 8 * 2^k, or 12 * 2^k.
    const std::size_t k = (look - 6) / 2;
    if (k >= 58) return static_cast<std::size_t>(-1);
    return ((look - 6) % 2 == 0 ? 12 : 16) << k;
}

std::size_t looks_until(std::size_t n) {
    std::size_t j = 0;
    while (look_samples(j + 1) <= n) ++j;
    return j;
}

std::size_t look_at(std::size_t n) {
    const std::size_t j = looks_until(n);
    return j > 0 && look_samples(j) == n ? j : 0;
}

Order order_at(const RatioEstimate& r, double margin) {
    if (r.ratio <= 0) return Order::tied;  // nothing could be told
    if (r.low > 1 + margin) return Order::slower;
    if (r.high < 1 / (1 + margin)) return Order::faster;
    return Order::tied;
}

}  // namespace iolab
