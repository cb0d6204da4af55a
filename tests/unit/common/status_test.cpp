#include "yuzu/common/status.hpp"

#include <gtest/gtest.h>

#include "yuzu/common/clock.hpp"

namespace yuzu {
namespace {

TEST(Status, OkByDefault) {
    Status s;
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(s.to_string(), "Ok");
}

TEST(Status, NamedConstructorsCarryCodeAndMessage) {
    Status s = Status::NotFound("agent 'x' is not registered");
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kNotFound);
    EXPECT_EQ(s.to_string(), "NotFound: agent 'x' is not registered");
}

TEST(Status, WireMappingIsOneTable) {
    EXPECT_EQ(http_status_for(StatusCode::kInvalidArgument), 400);
    EXPECT_EQ(http_status_for(StatusCode::kUnauthenticated), 401);
    EXPECT_EQ(http_status_for(StatusCode::kPermissionDenied), 403);
    EXPECT_EQ(http_status_for(StatusCode::kNotFound), 404);
    EXPECT_EQ(http_status_for(StatusCode::kPayloadTooLarge), 413);
    EXPECT_EQ(http_status_for(StatusCode::kResourceExhausted), 429);
    EXPECT_EQ(http_status_for(StatusCode::kUnavailable), 503);
    EXPECT_EQ(jsonrpc_code_for(StatusCode::kInvalidArgument), -32602);
    EXPECT_EQ(jsonrpc_code_for(StatusCode::kPermissionDenied), -32003);
    EXPECT_EQ(jsonrpc_code_for(StatusCode::kInternal), -32603);
}

Result<int> parse_positive(int v) {
    if (v <= 0) return Status::InvalidArgument("must be positive");
    return v;
}

Status chain(int v) {
    auto r = parse_positive(v);
    if (!r.ok()) return r.status();
    YUZU_RETURN_IF_ERROR(Status::Ok());
    return Status::Ok();
}

TEST(Result, ValueOrStatus) {
    auto good = parse_positive(3);
    ASSERT_TRUE(good.ok());
    EXPECT_EQ(*good, 3);
    auto bad = parse_positive(-1);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(chain(1).ok());
    EXPECT_EQ(chain(0).code(), StatusCode::kInvalidArgument);
}

TEST(ManualClock, MovesOnlyWhenTold) {
    ManualClock clock(1000);
    EXPECT_EQ(clock.now_ms(), 1000);
    clock.advance_ms(2500);
    EXPECT_EQ(clock.now_ms(), 3500);
    EXPECT_EQ(clock.now_s(), 3);
}

}  // namespace
}  // namespace yuzu
