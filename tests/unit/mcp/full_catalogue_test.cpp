// The whole Yuzu catalogue as the server builds it (identity, fleet,
// executions, compliance, approvals): every tool declares its permission and
// scope, docs/mcp-server.md's tool access table is exactly the declarations,
// and the compound group gate holds over MCP.
#include <gtest/gtest.h>

#include <algorithm>

#include "full_catalogue_fixture.hpp"
#include "support/doc_block.hpp"
#include "yuzu/auth/management_group.hpp"
#include "yuzu/auth/roles.hpp"
#include "yuzu/mcp/error_codes.hpp"

namespace yuzu::mcp::testing {
namespace {

using FullCatalogueTest = FullCatalogue;

TEST_F(FullCatalogueTest, EveryToolDeclaresAccessAndTheDocTableIsTheDeclarations) {
    std::string table =
        "| tool | tier key | permission | scope | target |\n| --- | --- | --- | --- | --- |\n";
    for (const auto& tool : full.tools.tools()) {
        SCOPED_TRACE(tool.name);
        ASSERT_TRUE(tool.tier_key.has_value()) << "tool without a tier key";
        ASSERT_TRUE(tool.access.has_value()) << "tool without an access declaration";
        const json props = tool.input_schema.value("properties", json::object());
        if (!tool.access->target.empty()) {
            EXPECT_TRUE(props.contains(tool.access->target)) << "target is not an argument";
        }
        // An agent the tool acts on (a required agent_id, not a filter) is
        // the pipeline's to check.
        const auto& required = tool.input_schema.value("required", json::array());
        const bool acts_on_agent =
            std::find(required.begin(), required.end(), "agent_id") != required.end();
        if (acts_on_agent && tool.access->scope == AccessScope::kAgents) {
            EXPECT_EQ(tool.access->target, "agent_id") << "an agent argument the pipeline skips";
        }
        if (props.contains("group_id") && tool.access->scope != AccessScope::kGroup) {
            EXPECT_EQ(tool.access->scope, AccessScope::kFleet)
                << "a per-group tool is fleet-wide or declares the group gate";
        }
        table += "| `" + tool.name + "` | " + auth::permission_name(*tool.tier_key) + " | " +
                 auth::permission_name(tool.access->permission) + " | " +
                 std::string(access_scope_name(tool.access->scope)) + " | " +
                 (tool.access->target.empty() ? "" : "`" + tool.access->target + "`") + " |\n";
    }
    EXPECT_EQ(::yuzu::testing::doc_block("mcp-server.md", "tool-access"), table);
}

TEST_F(FullCatalogueTest, AnItServiceOwnerAssignsRolesOnItsGroupOnly) {
    ASSERT_TRUE(identity->users().create_user("olga", kPassword, {}).ok());
    auth::NewManagementGroup g;
    g.name = "web";
    g.created_by = "admin";
    auto web = identity->groups().create(g);
    ASSERT_TRUE(web.ok()) << web.status().to_string();
    g.name = "db";
    auto db = identity->groups().create(g);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(identity->groups()
                    .assign_role(web->id, "user", "olga", std::string(auth::kRoleITServiceOwner))
                    .ok());
    const auth::Principal olga = [] {
        auth::Principal p;
        p.username = "olga";
        p.kind = auth::PrincipalKind::kUserSession;
        return p;
    }();
    auto own = call_full(olga, "assign_management_group_role",
                         {{"group_id", web->id}, {"principal_id", "admin"}, {"role", "Viewer"}});
    EXPECT_FALSE(own.error) << (own.error ? own.error->message : "");
    auto roles = call_full(olga, "list_management_group_roles", {{"group_id", web->id}});
    EXPECT_FALSE(roles.error) << (roles.error ? roles.error->message : "");
    auto other = call_full(olga, "assign_management_group_role",
                           {{"group_id", db->id}, {"principal_id", "admin"}, {"role", "Viewer"}});
    ASSERT_TRUE(other.error);
    EXPECT_EQ(other.error->code, kPermissionDenied);
    EXPECT_EQ(audit_log.events().back().result, audit::AuditResult::kDenied);
}

TEST_F(FullCatalogueTest, AComplianceReaderWithNoGrantIsAuditedDenied) {
    ASSERT_TRUE(identity->users().create_user("nils", kPassword, {}).ok());
    auth::Principal nils;
    nils.username = "nils";
    nils.kind = auth::PrincipalKind::kUserSession;
    for (const char* tool : {"list_policies", "get_fleet_compliance", "get_dex_perf_fleet"}) {
        SCOPED_TRACE(tool);
        auto out = call_full(nils, tool, json::object());
        ASSERT_TRUE(out.error);
        EXPECT_EQ(out.error->code, kPermissionDenied);
        EXPECT_EQ(audit_log.events().back().result, audit::AuditResult::kDenied);
    }
}

}  // namespace
}  // namespace yuzu::mcp::testing
