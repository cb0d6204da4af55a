#include "yuzu/metrics/counter.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace yuzu::metrics {
namespace {

TEST(Counter, StartsAtZero) {
    Counter counter;
    EXPECT_EQ(counter.Value(), 0.0);
}

TEST(Counter, IncrementsByOneByDefault) {
    Counter counter;
    counter.Increment();
    counter.Increment();
    EXPECT_EQ(counter.Value(), 2.0);
}

TEST(Counter, IncrementsByTheGivenAmount) {
    Counter counter;
    counter.Increment(2.5);
    counter.Increment(0.5);
    counter.Increment(0.0);
    EXPECT_EQ(counter.Value(), 3.0);
}

TEST(Counter, IgnoresNegativeIncrements) {
    Counter counter;
    counter.Increment(5);
    counter.Increment(-1);
    counter.Increment(-0.001);
    EXPECT_EQ(counter.Value(), 5.0);
}

TEST(Counter, IgnoresNaNIncrements) {
    Counter counter;
    counter.Increment(1);
    counter.Increment(std::numeric_limits<double>::quiet_NaN());
    EXPECT_FALSE(std::isnan(counter.Value()));
    EXPECT_EQ(counter.Value(), 1.0);
}

}  // namespace
}  // namespace yuzu::metrics
