// Histogram: observations counted into buckets by upper bound, plus their sum
// and count (request latency, payload sizes).
//
// Thread-safety: every member is safe to call from any thread; Observe() is
// lock-free. A Snapshot() taken while other threads observe is internally
// consistent in its buckets and count (the count is the total of the buckets
// read); the sum may include an observation whose bucket was read just before
// it landed.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "yuzu/metrics/metric_type.hpp"

namespace yuzu::metrics {

// What a Histogram holds at one moment, with the buckets already cumulative.
struct HistogramSnapshot {
    std::vector<double> upper_bounds;         // finite bounds, strictly increasing
    std::vector<uint64_t> cumulative_counts;  // one per bound, then the +Inf bucket
    double sum = 0.0;
    uint64_t count = 0;  // equals cumulative_counts.back()
};

class Histogram {
  public:
    // Upper bounds of the buckets ("le"); the +Inf bucket always exists.
    using BucketBoundaries = std::vector<double>;
    static constexpr MetricType kType = MetricType::kHistogram;

    // `bounds` must be strictly increasing and free of NaN (asserted). A
    // trailing +Inf is dropped, since the +Inf bucket is implicit. Release
    // builds sort and de-duplicate bad bounds so the exposition stays valid.
    explicit Histogram(BucketBoundaries bounds);
    Histogram(const Histogram&) = delete;
    Histogram& operator=(const Histogram&) = delete;

    // Counts `value` in the first bucket whose bound is >= value (bounds are
    // inclusive). NaN lands in the +Inf bucket and makes the sum NaN.
    void Observe(double value);

    HistogramSnapshot Snapshot() const;
    const BucketBoundaries& Bounds() const { return bounds_; }

    // HTTP latency in seconds: 1 ms … 10 s.
    static BucketBoundaries DefaultLatencyBuckets();

  private:
    BucketBoundaries bounds_;
    // bounds_.size() + 1 per-bucket (not cumulative) counts; the last is +Inf.
    std::unique_ptr<std::atomic<uint64_t>[]> bucket_counts_;
    std::atomic<double> sum_{0.0};
};

using BucketBoundaries = Histogram::BucketBoundaries;

}  // namespace yuzu::metrics
