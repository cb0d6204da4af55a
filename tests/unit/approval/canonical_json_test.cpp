#include "yuzu/approval/canonical_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "yuzu/approval/approval.hpp"
#include "yuzu/approval/approval_json.hpp"

namespace yuzu::approval {
namespace {

TEST(CanonicalJsonTest, SortsKeysAndDropsWhitespaceAtEveryLevel) {
    const auto a =
        nlohmann::json::parse(R"({ "b": 1, "a": { "z": [3, 2, {"y":1,"x":2}], "c": null } })");
    const auto b = nlohmann::json::parse(R"({"a":{"c":null,"z":[3,2,{"x":2,"y":1}]},"b":1})");
    EXPECT_EQ(canonical_json(a), R"({"a":{"c":null,"z":[3,2,{"x":2,"y":1}]},"b":1})");
    EXPECT_EQ(canonical_json(a), canonical_json(b));
}

TEST(CanonicalJsonTest, OrdersKeysByByteValue) {
    const auto v = nlohmann::json::parse(R"({"é":1,"Z":2,"a":3,"_":4})");
    EXPECT_EQ(canonical_json(v), "{\"Z\":2,\"_\":4,\"a\":3,\"\xc3\xa9\":1}");
}

TEST(CanonicalJsonTest, ArgumentsLeaveOutOnlyTheTopLevelApprovalId) {
    const auto with = nlohmann::json::parse(
        R"({"name":"g","approval_id":"0123456789abcdef0123456789abcdef","x":{"approval_id":1}})");
    const auto without = nlohmann::json::parse(R"({"x":{"approval_id":1},"name":"g"})");
    EXPECT_EQ(canonical_arguments(with), canonical_arguments(without));
    EXPECT_EQ(canonical_arguments(without), R"({"name":"g","x":{"approval_id":1}})");
    EXPECT_NE(canonical_arguments(nlohmann::json::parse(R"({"n":1})")),
              canonical_arguments(nlohmann::json::parse(R"({"n":1.0})")));
}

TEST(ApprovalJsonTest, ReportsTheEffectiveStateAndTheStatusUrl) {
    Approval a;
    a.id = "0123456789abcdef0123456789abcdef";
    a.definition_id = "mcp.unlock_account";
    a.submitted_by = "alice";
    a.state = ApprovalState::kApproved;
    a.created_at_ms = 1'000'000;
    auto j = to_json(a, a.created_at_ms + 1);
    EXPECT_EQ(j.at("status"), "approved");
    EXPECT_EQ(j.at("status_url"), "/api/v1/approvals/0123456789abcdef0123456789abcdef");
    EXPECT_EQ(j.at("expires_at"), (a.created_at_ms + kApprovalLifetimeMs) / 1000);
    EXPECT_EQ(to_json(a, a.expires_at_ms()).at("status"), "expired");
}

TEST(ApprovalStateTest, NamesRoundTrip) {
    for (auto s : {ApprovalState::kPending, ApprovalState::kApproved, ApprovalState::kRejected,
                   ApprovalState::kExpired, ApprovalState::kConsumed}) {
        EXPECT_EQ(parse_approval_state(approval_state_name(s)), s);
    }
    for (auto s : {Surface::kMcp, Surface::kRest, Surface::kSchedule}) {
        EXPECT_EQ(parse_surface(surface_name(s)), s);
    }
    EXPECT_FALSE(parse_approval_state("Pending").has_value());
    EXPECT_TRUE(is_approval_id("0123456789abcdef0123456789abcdef"));
    EXPECT_FALSE(is_approval_id("0123456789ABCDEF0123456789abcdef"));
    EXPECT_FALSE(is_approval_id("0123456789abcdef0123456789abcde"));
}

}  // namespace
}  // namespace yuzu::approval
