// The transport's Accept rule: both application/json and text/event-stream
// must be acceptable, except that a request with no Accept (or an empty one)
// accepts anything (RFC 9110 §12.5.1) and so gets the JSON answer.
#include <gtest/gtest.h>

#include "yuzu/mcp/http_transport.hpp"

namespace yuzu::mcp {
namespace {

TEST(TransportAccept, MissingOrEmptyAcceptAcceptsTheJsonAnswer) {
    EXPECT_TRUE(accept_allows_mcp(""));
    EXPECT_TRUE(accept_allows_mcp(" "));
    EXPECT_TRUE(accept_allows_mcp("\t "));
}

TEST(TransportAccept, BothTypesOrWildcardsAreAccepted) {
    EXPECT_TRUE(accept_allows_mcp("application/json, text/event-stream"));
    EXPECT_TRUE(accept_allows_mcp("TEXT/Event-Stream;q=0.5,Application/JSON"));
    EXPECT_TRUE(accept_allows_mcp("*/*"));
    EXPECT_TRUE(accept_allows_mcp("application/*, text/*"));
    EXPECT_TRUE(accept_allows_mcp("application/json;charset=utf-8, text/event-stream;q=1"));
}

TEST(TransportAccept, AnAcceptThatExcludesJsonIsRefused) {
    EXPECT_FALSE(accept_allows_mcp("text/event-stream"));
    EXPECT_FALSE(accept_allows_mcp("text/html"));
    EXPECT_FALSE(accept_allows_mcp("text/*"));
    EXPECT_FALSE(accept_allows_mcp("application/json;q=0, text/event-stream"));
    EXPECT_FALSE(accept_allows_mcp("*/*, application/json;q=0.000"));
    EXPECT_FALSE(accept_allows_mcp("application/*;q=0, text/event-stream"));
}

TEST(TransportAccept, JsonAloneIsStillRefused) {
    // The Streamable HTTP transport asks clients to list both; only a
    // client that lists nothing is taken to accept everything.
    EXPECT_FALSE(accept_allows_mcp("application/json"));
    EXPECT_FALSE(accept_allows_mcp("application/json, text/event-stream;q=0"));
}

TEST(TransportAccept, TheMostSpecificRangeDecides) {
    EXPECT_TRUE(accept_allows_mcp("*/*;q=0, application/json, text/event-stream"));
    EXPECT_TRUE(accept_allows_mcp("application/*;q=0, application/json, text/*"));
    EXPECT_TRUE(accept_allows_mcp("application/json;q=0.001, text/event-stream;q=0.1"));
    EXPECT_FALSE(accept_allows_mcp("*/*, text/event-stream;q=0"));
}

TEST(TransportAccept, LookalikeTypesDoNotMatch) {
    EXPECT_FALSE(accept_allows_mcp("application/jsonx, text/event-stream"));
    EXPECT_FALSE(accept_allows_mcp("application/json, text/event-streams"));
    EXPECT_FALSE(accept_allows_mcp("applicationx/*, text/event-stream"));
    EXPECT_FALSE(accept_allows_mcp(","));
}

}  // namespace
}  // namespace yuzu::mcp
