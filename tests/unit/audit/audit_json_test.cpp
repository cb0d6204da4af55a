#include "yuzu/audit/audit_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace yuzu::audit {
namespace {

TEST(AuditJson, HasEveryFieldUnderItsName) {
    AuditEvent e;
    e.id = 17;
    e.timestamp_ms = 1'700'000'000'999;
    e.principal = "alice";
    e.principal_kind = "mcp_token";
    e.action = "mcp.list_agents";
    e.target_type = "mcp_tool";
    e.target_id = "list_agents";
    e.detail = "ok";
    e.source_ip = "198.51.100.4";
    e.user_agent = "inspector/0.9";
    e.result = AuditResult::kPending;
    e.correlation_id = "abc123";

    const nlohmann::json expected = {
        {"id", 17},
        {"timestamp", 1'700'000'000},
        {"timestamp_ms", 1'700'000'000'999},
        {"principal", "alice"},
        {"principal_kind", "mcp_token"},
        {"action", "mcp.list_agents"},
        {"target_type", "mcp_tool"},
        {"target_id", "list_agents"},
        {"detail", "ok"},
        {"source_ip", "198.51.100.4"},
        {"user_agent", "inspector/0.9"},
        {"result", "pending"},
        {"correlation_id", "abc123"},
    };
    const nlohmann::json got = to_json(e);
    EXPECT_EQ(got, expected) << got.dump(2);
    EXPECT_TRUE(got["timestamp"].is_number_integer());
}

}  // namespace
}  // namespace yuzu::audit
