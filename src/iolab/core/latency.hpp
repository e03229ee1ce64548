#pragma once
// The latency of each operation of a patterned job, in a log-linear histogram of bounded size (as
// fio's clat percentiles): 2^kSubBits buckets per power of two, so a value is placed within
// 1/2^kSubBits (3 %) of itself, from 1 ns to hours, in 16 KiB whatever the number of operations.
// And the operations completed in each slice of time, so a change of rate during a run (a cache
// filling up) shows instead of being averaged away.
#include <array>
#include <cstdint>
#include <vector>

namespace iolab {

class Latency {
public:
    static constexpr unsigned kSubBits = 5;
    static constexpr unsigned kBuckets = (64 - kSubBits + 1) << kSubBits;
    static constexpr std::uint64_t kSliceNs = 100'000'000;  // 0.1 s

    // An operation that took ns nanoseconds and ended `at_ns` after the job started.
    void add(std::uint64_t ns, std::uint64_t at_ns) {
        ++buckets_[bucket_of(ns)];
        ++count_;
        if (ns > max_) max_ = ns;
        const std::uint64_t slice = at_ns / kSliceNs;
        if (slice < kMaxSlices) {
            if (slice >= slices_.size()) slices_.resize(slice + 1);
            ++slices_[slice];
        }
    }
    void merge(const Latency& o);
    void clear() { *this = Latency(); }

    std::uint64_t count() const { return count_; }
    std::uint64_t max() const { return max_; }
    // The value below which a fraction q (0..1) of the operations fall: the upper edge of its
    // bucket, never above the largest value seen.
    std::uint64_t percentile(double q) const;
    // Operations completed in each 0.1 s of the run (for every run merged: summed slice by slice).
    const std::vector<std::uint64_t>& slices() const { return slices_; }
    // The non-empty buckets: (upper edge in ns, count).
    std::vector<std::pair<std::uint64_t, std::uint64_t>> buckets() const;

    // The counts by bucket index, and the same put back (a sample sent by a child or a rank).
    std::vector<std::pair<unsigned, std::uint64_t>> counts() const;
    void restore(const std::vector<std::pair<unsigned, std::uint64_t>>& counts, std::uint64_t max,
                 std::vector<std::uint64_t> slices);

    static unsigned bucket_of(std::uint64_t ns);
    static std::uint64_t upper_edge(unsigned bucket);  // the largest value in the bucket

private:
    static constexpr std::size_t kMaxSlices = 36000;  // an hour
    std::array<std::uint64_t, kBuckets> buckets_{};
    std::uint64_t count_ = 0;
    std::uint64_t max_ = 0;
    std::vector<std::uint64_t> slices_;
};

// CLOCK_MONOTONIC in nanoseconds.
std::uint64_t monotonic_ns();

// What one reading of the monotonic clock costs here (nanoseconds, the median of several
// batches): the price every timed operation pays twice.
double clock_read_cost_ns();

}  // namespace iolab
