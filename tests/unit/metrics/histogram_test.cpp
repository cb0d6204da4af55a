#include "yuzu/metrics/histogram.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace yuzu::metrics {
namespace {

TEST(Histogram, EmptyHistogramHasZeroBucketsSumAndCount) {
    Histogram histogram({1, 2});
    const HistogramSnapshot s = histogram.Snapshot();
    EXPECT_EQ(s.upper_bounds, (std::vector<double>{1, 2}));
    EXPECT_EQ(s.cumulative_counts, (std::vector<uint64_t>{0, 0, 0}));
    EXPECT_EQ(s.sum, 0.0);
    EXPECT_EQ(s.count, 0u);
}

TEST(Histogram, BucketsAreCumulativeAndBoundsInclusive) {
    Histogram histogram({0.1, 1, 10});
    histogram.Observe(0.05);  // <= 0.1
    histogram.Observe(0.1);   // exactly on a bound: counted in that bucket
    histogram.Observe(0.5);   // <= 1
    histogram.Observe(10);    // <= 10
    histogram.Observe(11);    // +Inf only
    histogram.Observe(-3);    // below every bound: first bucket
    const HistogramSnapshot s = histogram.Snapshot();
    EXPECT_EQ(s.cumulative_counts, (std::vector<uint64_t>{3, 4, 5, 6}));
    for (size_t i = 1; i < s.cumulative_counts.size(); ++i) {
        EXPECT_LE(s.cumulative_counts[i - 1], s.cumulative_counts[i]);
    }
}

TEST(Histogram, InfBucketEqualsCount) {
    Histogram histogram(Histogram::DefaultLatencyBuckets());
    for (double v : {0.0001, 0.003, 0.2, 3.0, 99.0, 1e9}) histogram.Observe(v);
    const HistogramSnapshot s = histogram.Snapshot();
    EXPECT_EQ(s.count, 6u);
    EXPECT_EQ(s.cumulative_counts.back(), s.count);
    EXPECT_EQ(s.cumulative_counts.size(), s.upper_bounds.size() + 1);
}

TEST(Histogram, SumAddsEveryObservation) {
    Histogram histogram({1});
    histogram.Observe(0.25);
    histogram.Observe(0.5);
    histogram.Observe(4);
    histogram.Observe(-1);
    EXPECT_EQ(histogram.Snapshot().sum, 3.75);
}

TEST(Histogram, NaNGoesToTheInfBucketAndMakesTheSumNaN) {
    Histogram histogram({1, 2});
    histogram.Observe(std::numeric_limits<double>::quiet_NaN());
    const HistogramSnapshot s = histogram.Snapshot();
    EXPECT_EQ(s.cumulative_counts, (std::vector<uint64_t>{0, 0, 1}));
    EXPECT_TRUE(std::isnan(s.sum));
}

TEST(Histogram, TrailingInfBoundIsDropped) {
    Histogram histogram({1, 2, std::numeric_limits<double>::infinity()});
    EXPECT_EQ(histogram.Bounds(), (std::vector<double>{1, 2}));
    histogram.Observe(5);
    EXPECT_EQ(histogram.Snapshot().cumulative_counts, (std::vector<uint64_t>{0, 0, 1}));
}

TEST(Histogram, NoBoundsMeansOnlyTheInfBucket) {
    Histogram histogram({});
    histogram.Observe(7);
    const HistogramSnapshot s = histogram.Snapshot();
    EXPECT_EQ(s.cumulative_counts, (std::vector<uint64_t>{1}));
    EXPECT_EQ(s.count, 1u);
}

TEST(Histogram, DefaultLatencyBucketsSpanOneMillisecondToTenSeconds) {
    const auto buckets = Histogram::DefaultLatencyBuckets();
    ASSERT_FALSE(buckets.empty());
    EXPECT_EQ(buckets.front(), 0.001);
    EXPECT_EQ(buckets.back(), 10.0);
    for (size_t i = 1; i < buckets.size(); ++i) EXPECT_LT(buckets[i - 1], buckets[i]);
}

TEST(HistogramDeathTest, UnsortedBoundsAreAProgrammingError) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEBUG_DEATH(Histogram h({2, 1}), "strictly increasing");
    EXPECT_DEBUG_DEATH(Histogram h({1, 1}), "strictly increasing");
}

}  // namespace
}  // namespace yuzu::metrics
