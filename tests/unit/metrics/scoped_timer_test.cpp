#include "yuzu/metrics/scoped_timer.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace yuzu::metrics {
namespace {

using std::chrono::milliseconds;

TEST(ObserveDuration, RecordsSeconds) {
    Histogram histogram({0.1, 1, 5});
    ObserveDuration(histogram, milliseconds(2500));
    ObserveDuration(histogram, std::chrono::microseconds(500));
    const HistogramSnapshot s = histogram.Snapshot();
    EXPECT_EQ(s.count, 2u);
    EXPECT_DOUBLE_EQ(s.sum, 2.5005);
    EXPECT_EQ(s.cumulative_counts, (std::vector<uint64_t>{1, 1, 2, 2}));
}

TEST(ScopedTimer, ObservesOnceWhenTheScopeEnds) {
    Histogram histogram(Histogram::DefaultLatencyBuckets());
    const auto before = std::chrono::steady_clock::now();
    {
        ScopedTimer timer(histogram);
        EXPECT_EQ(histogram.Snapshot().count, 0u);
    }
    const double upper_bound =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
    const HistogramSnapshot s = histogram.Snapshot();
    EXPECT_EQ(s.count, 1u);
    EXPECT_GE(s.sum, 0.0);
    EXPECT_LE(s.sum, upper_bound);
}

TEST(ScopedTimer, StopObservesOnceAndDisarmsTheDestructor) {
    Histogram histogram(Histogram::DefaultLatencyBuckets());
    {
        ScopedTimer timer(histogram);
        const double seconds = timer.Stop();
        EXPECT_GE(seconds, 0.0);
        EXPECT_EQ(histogram.Snapshot().sum, seconds);
        EXPECT_EQ(timer.Stop(), 0.0);
    }
    EXPECT_EQ(histogram.Snapshot().count, 1u);
}

}  // namespace
}  // namespace yuzu::metrics
