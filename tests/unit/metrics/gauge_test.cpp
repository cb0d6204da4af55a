#include "yuzu/metrics/gauge.hpp"

#include <gtest/gtest.h>

namespace yuzu::metrics {
namespace {

TEST(Gauge, StartsAtZero) {
    Gauge gauge;
    EXPECT_EQ(gauge.Value(), 0.0);
}

TEST(Gauge, IncrementsAndDecrementsByOneByDefault) {
    Gauge gauge;
    gauge.Increment();
    gauge.Increment();
    gauge.Increment();
    gauge.Decrement();
    EXPECT_EQ(gauge.Value(), 2.0);
}

TEST(Gauge, MovesByTheGivenAmountsAndGoesNegative) {
    Gauge gauge;
    gauge.Increment(1.5);
    gauge.Decrement(4);
    EXPECT_EQ(gauge.Value(), -2.5);
    gauge.Increment(-0.5);
    EXPECT_EQ(gauge.Value(), -3.0);
}

TEST(Gauge, SetReplacesTheValue) {
    Gauge gauge;
    gauge.Increment(10);
    gauge.Set(4.25);
    EXPECT_EQ(gauge.Value(), 4.25);
    gauge.Decrement(0.25);
    EXPECT_EQ(gauge.Value(), 4.0);
}

}  // namespace
}  // namespace yuzu::metrics
