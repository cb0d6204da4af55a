#include "yuzu/metrics/histogram.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace yuzu::metrics {
namespace {

[[maybe_unused]] bool AreStrictlyIncreasingBounds(const Histogram::BucketBoundaries& bounds) {
    for (size_t i = 0; i < bounds.size(); ++i) {
        if (std::isnan(bounds[i])) return false;
        if (i > 0 && !(bounds[i - 1] < bounds[i])) return false;
    }
    return true;
}

// Sorted, unique, without NaN or +Inf: what the exposition needs whatever the
// caller passed.
Histogram::BucketBoundaries NormalizedBounds(Histogram::BucketBoundaries bounds) {
    std::erase_if(bounds, [](double b) { return std::isnan(b) || (std::isinf(b) && b > 0); });
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    return bounds;
}

}  // namespace

Histogram::Histogram(BucketBoundaries bounds) {
    if (!bounds.empty() && bounds.back() == std::numeric_limits<double>::infinity()) {
        bounds.pop_back();
    }
    assert(AreStrictlyIncreasingBounds(bounds) &&
           "histogram bounds must be strictly increasing and not NaN");
    bounds_ = NormalizedBounds(std::move(bounds));
    bucket_counts_ = std::make_unique<std::atomic<uint64_t>[]>(bounds_.size() + 1);
}

void Histogram::Observe(double value) {
    // First bound >= value; NaN compares false against everything, so send it
    // to +Inf explicitly rather than let lower_bound pick bucket 0.
    const size_t bucket =
        std::isnan(value)
            ? bounds_.size()
            : static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) -
                                  bounds_.begin());
    bucket_counts_[bucket].fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(value, std::memory_order_relaxed);
}

HistogramSnapshot Histogram::Snapshot() const {
    HistogramSnapshot snapshot;
    snapshot.upper_bounds = bounds_;
    snapshot.cumulative_counts.reserve(bounds_.size() + 1);
    uint64_t running = 0;
    for (size_t i = 0; i <= bounds_.size(); ++i) {
        running += bucket_counts_[i].load(std::memory_order_relaxed);
        snapshot.cumulative_counts.push_back(running);
    }
    // The count is the buckets' total, never a separate atomic read at another
    // moment, so `le="+Inf"` always equals `_count`.
    snapshot.count = running;
    snapshot.sum = sum_.load(std::memory_order_relaxed);
    return snapshot;
}

Histogram::BucketBoundaries Histogram::DefaultLatencyBuckets() {
    return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

}  // namespace yuzu::metrics
