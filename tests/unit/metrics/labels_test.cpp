#include "yuzu/metrics/labels.hpp"

#include <gtest/gtest.h>

namespace yuzu::metrics {
namespace {

TEST(MetricName, AcceptsPrometheusNames) {
    EXPECT_TRUE(IsValidMetricName("yuzu_http_requests_total"));
    EXPECT_TRUE(IsValidMetricName("_private"));
    EXPECT_TRUE(IsValidMetricName("job:rate5m"));
    EXPECT_TRUE(IsValidMetricName("A1"));
}

TEST(MetricName, RejectsMalformedNames) {
    EXPECT_FALSE(IsValidMetricName(""));
    EXPECT_FALSE(IsValidMetricName("1abc"));
    EXPECT_FALSE(IsValidMetricName("has-dash"));
    EXPECT_FALSE(IsValidMetricName("has space"));
    EXPECT_FALSE(IsValidMetricName("caf\xC3\xA9"));
}

TEST(LabelName, AcceptsPrometheusNames) {
    EXPECT_TRUE(IsValidLabelName("method"));
    EXPECT_TRUE(IsValidLabelName("_x"));
    EXPECT_TRUE(IsValidLabelName("Status2"));
}

TEST(LabelName, RejectsMalformedAndReservedNames) {
    EXPECT_FALSE(IsValidLabelName(""));
    EXPECT_FALSE(IsValidLabelName("2xx"));
    EXPECT_FALSE(IsValidLabelName("a:b"));  // colons are for metric names only
    EXPECT_FALSE(IsValidLabelName("a-b"));
    EXPECT_FALSE(IsValidLabelName("__name__"));
    EXPECT_FALSE(IsValidLabelName("__x"));
}

}  // namespace
}  // namespace yuzu::metrics
