// query_audit_log leaves an audit.read row naming its filter, as GET
// /api/v1/audit does, written after the query so the page never holds it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/temp_dir.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/common/readiness.hpp"
#include "yuzu/mcp/pipeline.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using nlohmann::json;

// Reading the audit log is audited: the call's one mcp.query_audit_log row
// names the filter (success and denial alike) and is not in its own page.
TEST(AuditTool, AQueryLeavesOneRowNamingItsFilter) {
    testing::TempDir dir;
    auth::IdentityOptions options;
    options.data_dir = dir.str();
    options.bootstrap_password_value = "audit-tool-test-password";
    options.user_options.password_log_n = 10;
    auto identity = auth::Identity::open(options, SystemClock::instance());
    ASSERT_TRUE(identity.ok()) << identity.status().to_string();
    ASSERT_TRUE((*identity)->users().create_user("nils", "audit-tool-test-password", {}).ok());
    audit::MemoryAuditLog audit_log;
    Readiness readiness;
    CatalogueDeps deps{audit_log, **identity, readiness, SystemClock::instance(), "test", 0};
    Catalogues c;
    ASSERT_TRUE(build_yuzu_catalogue(c, deps).ok());
    McpSettings settings;
    PipelineEnv env{c.tools, settings, &audit_log, &(*identity)->authorizer()};
    auto call = [&](const std::string& user, const json& args) {
        auth::Principal who;
        who.username = user;
        who.kind = auth::PrincipalKind::kMcpToken;
        who.mcp_tier = "readonly";
        return run_tool_call(env, who, {{"name", "query_audit_log"}, {"arguments", args}},
                             RequestInfo{"req-1-2", "127.0.0.1", "test"});
    };

    const json args = {{"action", "mcp.*"}, {"since", 100}, {"limit", 5}};
    auto out = call("admin", args);
    ASSERT_FALSE(out.error) << out.error->message;
    EXPECT_TRUE((*out.result)["structuredContent"]["events"].empty())
        << "the read's own row is not in its page";
    ASSERT_EQ(audit_log.events().size(), 1u);
    const audit::AuditEvent row = audit_log.events().back();
    EXPECT_EQ(row.action, "mcp.query_audit_log");
    EXPECT_EQ(row.principal, "admin");
    EXPECT_EQ(row.result, audit::AuditResult::kSuccess);
    EXPECT_EQ(row.correlation_id, "req-1-2");
    ASSERT_EQ(row.detail.rfind("filter=", 0), 0u) << row.detail;
    EXPECT_EQ(json::parse(row.detail.substr(7)),
              json({{"action", "mcp.*"}, {"since", 100}, {"limit", 5}, {"cursor", false}}));

    // A denied read names its filter too.
    auto denied = call("nils", {{"principal", "admin"}});
    ASSERT_TRUE(denied.error);
    ASSERT_EQ(audit_log.events().size(), 2u);
    EXPECT_EQ(audit_log.events().back().result, audit::AuditResult::kDenied);
    EXPECT_NE(audit_log.events().back().detail.find("\"principal\":\"admin\""), std::string::npos)
        << audit_log.events().back().detail;
}

}  // namespace
}  // namespace yuzu::mcp
