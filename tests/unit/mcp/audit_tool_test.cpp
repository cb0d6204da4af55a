// query_audit_log leaves an audit.read row naming its filter, as GET
// /api/v1/audit does, written after the query so the page never holds it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/temp_dir.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/common/readiness.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using nlohmann::json;

TEST(AuditTool, AQueryLeavesOneAuditReadRowWithItsFilter) {
    testing::TempDir dir;
    auth::IdentityOptions options;
    options.data_dir = dir.str();
    options.bootstrap_password_value = "audit-tool-test-password";
    options.user_options.password_log_n = 10;
    auto identity = auth::Identity::open(options, SystemClock::instance());
    ASSERT_TRUE(identity.ok()) << identity.status().to_string();
    audit::MemoryAuditLog audit_log;
    Readiness readiness;
    CatalogueDeps deps{audit_log, **identity, readiness, SystemClock::instance(), "test", 0};
    Catalogues c;
    ASSERT_TRUE(build_yuzu_catalogue(c, deps).ok());
    const ToolSpec* tool = c.tools.find("query_audit_log");
    ASSERT_NE(tool, nullptr);
    ASSERT_TRUE(tool->handler);

    auth::Principal who;
    who.username = "mia";
    who.kind = auth::PrincipalKind::kMcpToken;
    const json args = {{"action", "mcp.*"}, {"since", 100}, {"limit", 5}};
    const std::string correlation_id = "req-1-2";
    const std::string source_ip = "127.0.0.1";
    auto out = tool->handler(ToolCall{who, args, correlation_id, source_ip});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    EXPECT_TRUE((*out)["events"].empty()) << "the read's own row is not in its page";

    ASSERT_EQ(audit_log.events().size(), 1u);
    const audit::AuditEvent row = audit_log.events().back();
    EXPECT_EQ(row.action, "audit.read");
    EXPECT_EQ(row.principal, "mia");
    EXPECT_EQ(row.principal_kind, "mcp_token");
    EXPECT_EQ(row.result, audit::AuditResult::kSuccess);
    EXPECT_EQ(row.correlation_id, correlation_id);
    EXPECT_EQ(json::parse(row.detail),
              json({{"action", "mcp.*"}, {"since", 100}, {"limit", 5}, {"cursor", false}}));

    const json bad = {{"cursor", "not-a-cursor"}};
    EXPECT_FALSE(tool->handler(ToolCall{who, bad, correlation_id, source_ip}).ok());
    ASSERT_EQ(audit_log.events().size(), 2u);
    EXPECT_EQ(audit_log.events().back().result, audit::AuditResult::kFailure);
    EXPECT_EQ(json::parse(audit_log.events().back().detail)["cursor"], true);
}

}  // namespace
}  // namespace yuzu::mcp
