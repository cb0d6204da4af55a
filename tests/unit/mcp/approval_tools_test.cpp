// The approval MCP tools (list_pending_approvals, approve_request,
// reject_request) and the approval-gated identity write tools, through the
// real pipeline over a real Identity and ApprovalManager.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "support/temp_dir.hpp"
#include "yuzu/approval/approval_manager.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/common/correlation_id.hpp"
#include "yuzu/common/readiness.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/pipeline.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using auth::Principal;
using auth::PrincipalKind;
using nlohmann::json;

constexpr char kPassword[] = "approval-tools-test-password";

Principal token_of(const std::string& user, const std::string& tier) {
    Principal p;
    p.username = user;
    p.kind = PrincipalKind::kMcpToken;
    p.mcp_tier = tier;
    return p;
}

class ApprovalToolsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auth::IdentityOptions options;
        options.data_dir = dir.str();
        options.bootstrap_password_value = kPassword;
        options.user_options.password_log_n = 10;
        auto id = auth::Identity::open(options, SystemClock::instance());
        ASSERT_TRUE(id.ok()) << id.status().to_string();
        identity = std::move(id).value();
        ASSERT_TRUE(identity->users().create_user("vera", kPassword, {"Viewer"}).ok());
        auto m = approval::ApprovalManager::open((dir / "approvals.db").string(),
                                                 SystemClock::instance());
        ASSERT_TRUE(m.ok()) << m.status().to_string();
        approvals = std::move(m).value();
        CatalogueDeps deps{audit_log, *identity, readiness, SystemClock::instance(), "test", 0};
        deps.approvals = approvals.get();
        ASSERT_TRUE(register_identity_write_tools(tools, deps).ok());
        ASSERT_TRUE(register_approval_tools(tools, deps).ok());
    }

    CallOutcome call(const Principal& who, const std::string& tool, json args) {
        PipelineEnv env{tools, settings, &audit_log, &identity->authorizer(), approvals.get()};
        RequestInfo info{next_correlation_id(), "127.0.0.1", "test"};
        return run_tool_call(env, who, {{"name", tool}, {"arguments", std::move(args)}}, info);
    }

    std::string mint(const std::string& tool, const json& args) {
        auto out = call(admin, tool, args);
        EXPECT_TRUE(out.error);
        if (!out.error) return "";
        EXPECT_EQ(out.error->code, kApprovalRequired) << out.error->message;
        return out.error->data.value("approval_id", "");
    }

    testing::TempDir dir;
    std::unique_ptr<auth::Identity> identity;
    std::unique_ptr<approval::ApprovalManager> approvals;
    audit::MemoryAuditLog audit_log;
    Readiness readiness;
    ToolCatalogue tools;
    McpSettings settings;
    Principal admin = token_of("admin", "supervised");
};

TEST_F(ApprovalToolsTest, ApproveAndRejectOverMcpAlwaysNeedApproverAssurance) {
    const std::string id = mint("unlock_account", {{"username", "vera"}});
    for (const char* tool : {"approve_request", "reject_request"}) {
        SCOPED_TRACE(tool);
        auto out = call(admin, tool, {{"approval_id", id}, {"comment", "looks fine"}});
        ASSERT_TRUE(out.error);
        EXPECT_EQ(out.error->code, kPermissionDenied);
        EXPECT_EQ(out.error->message, "approver_assurance_required:non_interactive_session");
        EXPECT_TRUE(out.error->data.at("retry_after_ms").is_null());
        const auto ev = audit_log.events().back();
        EXPECT_EQ(ev.action, std::string("mcp.") + tool);
        EXPECT_EQ(ev.result, audit::AuditResult::kDenied);
        EXPECT_EQ(ev.detail, "approval_id=" + id + " approver_assurance:non_interactive_session");
    }
    // A web session cookie replayed over MCP is no better.
    Principal session;
    session.username = "admin";
    auto out = call(session, "approve_request", {{"approval_id", id}});
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->message, "approver_assurance_required:non_interactive_session");
    EXPECT_EQ(approvals->get(id)->state, approval::ApprovalState::kPending);
}

TEST_F(ApprovalToolsTest, TheApprovalApproveCheckAnswersFirst) {
    auto out = call(token_of("vera", "supervised"), "approve_request",
                    {{"approval_id", "0123456789abcdef0123456789abcdef"}});
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kPermissionDenied);
    EXPECT_EQ(out.error->message, "permission denied: Approval:Approve");
    // A readonly token is refused by its tier before either.
    auto tier = call(token_of("admin", "readonly"), "approve_request",
                     {{"approval_id", "0123456789abcdef0123456789abcdef"}});
    ASSERT_TRUE(tier.error);
    EXPECT_EQ(tier.error->code, kTierDenied);
}

TEST_F(ApprovalToolsTest, ListPendingApprovalsShowsTheTicket) {
    const std::string id = mint("create_management_group", {{"name", "web"}});
    auto out = call(token_of("admin", "readonly"), "list_pending_approvals", json::object());
    ASSERT_TRUE(out.result) << out.error->message;
    const json& list = (*out.result)["structuredContent"]["approvals"];
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0]["id"], id);
    EXPECT_EQ(list[0]["definition_id"], "mcp.create_management_group");
    EXPECT_EQ(list[0]["status"], "pending");
    EXPECT_EQ(list[0]["scope_expression"], R"({"name":"web"})");
    auto approved = call(admin, "list_pending_approvals", {{"status", "approved"}});
    ASSERT_TRUE(approved.result);
    EXPECT_TRUE((*approved.result)["structuredContent"]["approvals"].empty());
}

TEST_F(ApprovalToolsTest, EveryIdentityWriteToolIsGatedAtTheSupervisedTier) {
    const json calls = {
        {"create_api_token", {{"name", "t"}}},
        {"revoke_api_token", {{"token_id", "0123456789abcdef01234567"}}},
        {"unlock_account", {{"username", "vera"}}},
        {"create_management_group", {{"name", "g"}}},
        {"update_management_group", {{"group_id", "000000000000"}, {"description", "d"}}},
        {"add_management_group_member", {{"group_id", "000000000000"}, {"agent_id", "a"}}},
        {"assign_management_group_role",
         {{"group_id", "000000000000"}, {"principal_id", "vera"}, {"role", "Operator"}}},
    };
    for (const auto& [tool, args] : calls.items()) {
        SCOPED_TRACE(tool);
        auto out = call(admin, tool, args);
        ASSERT_TRUE(out.error);
        EXPECT_EQ(out.error->code, kApprovalRequired);
        // Honest tools/list: the recall argument is declared.
        EXPECT_TRUE(tools.list_entry(*tools.find(tool))["inputSchema"]["properties"].contains(
            "approval_id"));
        // Operator tokens may not do any of these at all.
        auto op = call(token_of("admin", "operator"), tool, args);
        ASSERT_TRUE(op.error);
        EXPECT_EQ(op.error->code, kTierDenied);
    }
    EXPECT_EQ(*approvals->pending_count(), 7);
}

TEST_F(ApprovalToolsTest, AnApprovedCreateManagementGroupRunsOnceOnRecall) {
    const json args = {{"name", "web-servers"}, {"description", "the web tier"}};
    const std::string id = mint("create_management_group", args);
    ASSERT_TRUE(approvals->approve(id, "vera", "").ok());
    json recall = args;
    recall["approval_id"] = id;
    auto out = call(admin, "create_management_group", recall);
    ASSERT_TRUE(out.result) << out.error->message;
    const json group = (*out.result)["structuredContent"]["group"];
    EXPECT_EQ(group["name"], "web-servers");
    EXPECT_EQ(group["created_by"], "admin");
    auto groups = identity->groups().list();
    ASSERT_TRUE(groups.ok());
    int named = 0;
    for (const auto& g : *groups) named += g.name == "web-servers" ? 1 : 0;
    EXPECT_EQ(named, 1);
    auto replay = call(admin, "create_management_group", recall);
    ASSERT_TRUE(replay.error);
    EXPECT_EQ(replay.error->code, kPermissionDenied);
}

TEST_F(ApprovalToolsTest, AnApprovedCreateApiTokenMintsATokenForTheCaller) {
    const json args = {{"name", "ci"}, {"mcp_tier", "readonly"}, {"expires_at", 4102444800}};
    auto too_far = call(admin, "create_api_token", args);
    ASSERT_TRUE(too_far.error);  // minted first; the 90-day rule is the service's
    const std::string id = too_far.error->data.value("approval_id", "");
    ASSERT_TRUE(approvals->approve(id, "vera", "").ok());
    json recall = args;
    recall["approval_id"] = id;
    auto out = call(admin, "create_api_token", recall);
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kInvalidParams);
    EXPECT_NE(out.error->message.find("90 days"), std::string::npos);

    const json ok_args = {{"name", "ci2"}};
    const std::string id2 = mint("create_api_token", ok_args);
    ASSERT_TRUE(approvals->approve(id2, "vera", "").ok());
    json ok_recall = ok_args;
    ok_recall["approval_id"] = id2;
    auto created = call(admin, "create_api_token", ok_recall);
    ASSERT_TRUE(created.result) << created.error->message;
    const std::string token_id = (*created.result)["structuredContent"]["id"];
    EXPECT_EQ(identity->tokens().get(token_id)->owner, "admin");
}

}  // namespace
}  // namespace yuzu::mcp
