#include "iolab/core/latency.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <ctime>

namespace iolab {

unsigned Latency::bucket_of(std::uint64_t ns) {
    constexpr std::uint64_t linear = std::uint64_t{1} << kSubBits;
    if (ns < linear) return static_cast<unsigned>(ns);                   // exact below 32 ns
    const unsigned msb = static_cast<unsigned>(std::bit_width(ns)) - 1;  // >= kSubBits
    const unsigned group = msb - kSubBits + 1;
    const auto sub = static_cast<unsigned>((ns >> (msb - kSubBits)) & (linear - 1));
    return (group << kSubBits) + sub;
}

std::uint64_t Latency::upper_edge(unsigned bucket) {
    constexpr std::uint64_t linear = std::uint64_t{1} << kSubBits;
    const unsigned group = bucket >> kSubBits;
    const std::uint64_t sub = bucket & (linear - 1);
    if (group == 0) return sub;
    const unsigned shift = group - 1;
    const std::uint64_t low = (linear + sub) << shift;
    return low + ((std::uint64_t{1} << shift) - 1);
}

void Latency::merge(const Latency& o) {
    for (unsigned b = 0; b < kBuckets; ++b) buckets_[b] += o.buckets_[b];
    count_ += o.count_;
    max_ = std::max(max_, o.max_);
    if (o.slices_.size() > slices_.size()) slices_.resize(o.slices_.size());
    for (std::size_t i = 0; i < o.slices_.size(); ++i) slices_[i] += o.slices_[i];
}

std::uint64_t Latency::percentile(double q) const {
    if (count_ == 0) return 0;
    const auto rank = static_cast<std::uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count_)));
    std::uint64_t seen = 0;
    for (unsigned b = 0; b < kBuckets; ++b) {
        seen += buckets_[b];
        if (seen >= std::max<std::uint64_t>(rank, 1)) return std::min(upper_edge(b), max_);
    }
    return max_;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> Latency::buckets() const {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    for (unsigned b = 0; b < kBuckets; ++b)
        if (buckets_[b]) out.emplace_back(upper_edge(b), buckets_[b]);
    return out;
}

std::vector<std::pair<unsigned, std::uint64_t>> Latency::counts() const {
    std::vector<std::pair<unsigned, std::uint64_t>> out;
    for (unsigned b = 0; b < kBuckets; ++b)
        if (buckets_[b]) out.emplace_back(b, buckets_[b]);
    return out;
}

void Latency::restore(const std::vector<std::pair<unsigned, std::uint64_t>>& counts, std::uint64_t max,
                      std::vector<std::uint64_t> slices) {
    clear();
    for (const auto& [b, n] : counts) {
        if (b >= kBuckets) continue;
        buckets_[b] += n;
        count_ += n;
    }
    max_ = max;
    if (slices.size() > kMaxSlices) slices.resize(kMaxSlices);
    slices_ = std::move(slices);
}

std::uint64_t monotonic_ns() {
    timespec t{};
    ::clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
}

double clock_read_cost_ns() {
    const auto now = monotonic_ns;
    constexpr int kBatch = 10000;
    std::vector<double> per;
    for (int k = 0; k < 9; ++k) {
        const std::uint64_t t0 = now();
        for (int i = 0; i < kBatch; ++i) now();
        per.push_back(static_cast<double>(now() - t0) / (kBatch + 1));
    }
    std::nth_element(per.begin(), per.begin() + 4, per.end());
    return per[4];
}

}  // namespace iolab
