// The access layer as the MCP pipeline enforces it, over the real execution
// tools, a real Identity, fleet and ApprovalManager: arguments that can never
// run are refused before a ticket is minted, a dispatch nobody may receive is
// refused before mint, a throwing handler answers -32603 with an error row,
// and every tool declares its permission and scope.
#include <gtest/gtest.h>

#include <algorithm>

#include "execution_tools_fixture.hpp"
#include "support/doc_block.hpp"
#include "yuzu/approval/approval_manager.hpp"
#include "yuzu/mcp/error_codes.hpp"

namespace yuzu::mcp::testing {
namespace {

class AccessDeclarationsTest : public ExecutionToolsTest {
  protected:
    void SetUp() override {
        ExecutionToolsTest::SetUp();
        auto m = approval::ApprovalManager::open(":memory:", SystemClock::instance());
        ASSERT_TRUE(m.ok()) << m.status().to_string();
        manager = std::move(m).value();
        approvals = manager.get();
    }

    size_t tickets() const {
        approval::ApprovalFilter all;
        all.limit = 100;
        auto page = manager->list(all);
        EXPECT_TRUE(page.ok());
        return page.ok() ? page->approvals.size() : 0;
    }

    std::unique_ptr<approval::ApprovalManager> manager;
    const auth::Principal supervised = token_of("admin", "supervised");
};

TEST_F(AccessDeclarationsTest, EveryToolDeclaresItsPermissionAndScope) {
    for (const auto& tool : tools.tools()) {
        SCOPED_TRACE(tool.name);
        ASSERT_TRUE(tool.access.has_value()) << "tool without an access declaration";
        const json props = tool.input_schema.value("properties", json::object());
        if (!tool.access->target.empty()) {
            EXPECT_TRUE(props.contains(tool.access->target))
                << "target '" << tool.access->target << "' is not an argument";
        }
        // An agent the tool acts on (a required agent_id, not a filter) is
        // the pipeline's to check.
        const auto& required = tool.input_schema.value("required", json::array());
        const bool acts_on_agent =
            std::find(required.begin(), required.end(), "agent_id") != required.end();
        if (acts_on_agent && tool.access->scope == AccessScope::kAgents) {
            EXPECT_EQ(tool.access->target, "agent_id") << "an agent argument the pipeline skips";
        }
    }
}

TEST_F(AccessDeclarationsTest, ParamsThatCanNeverRunAreRefusedBeforeATicketIsMinted) {
    enroll("web-01");
    // file.exists requires "path": a ticket for this call could never be redeemed.
    auto bad = call(supervised, "execute_instruction",
                    {{"plugin", "file"}, {"action", "exists"}, {"params", json::object()}});
    ASSERT_TRUE(bad.error);
    EXPECT_EQ(bad.error->code, kInvalidParams) << bad.error->message;
    auto unknown = call(supervised, "execute_instruction", {{"plugin", "rm"}, {"action", "rf"}});
    ASSERT_TRUE(unknown.error);
    EXPECT_EQ(unknown.error->code, kInvalidParams) << unknown.error->message;
    ASSERT_TRUE(executions->definitions().set_enabled("os.info", false).ok());
    auto disabled = call(supervised, "execute_instruction", {{"plugin", "os"}, {"action", "info"}});
    ASSERT_TRUE(disabled.error);
    EXPECT_EQ(disabled.error->code, kInvalidParams) << disabled.error->message;
    EXPECT_EQ(tickets(), 0u);
    // The one-cid pattern: the answer's correlation id is in the audit row.
    const audit::AuditEvent last = audit_log.events().back();
    EXPECT_EQ(last.result, audit::AuditResult::kFailure);
    EXPECT_NE(last.detail.find("correlation_id=" +
                               disabled.error->data["correlation_id"].get<std::string>()),
              std::string::npos)
        << last.detail;

    // Valid arguments do mint.
    ASSERT_TRUE(executions->definitions().set_enabled("os.info", true).ok());
    auto good = call(supervised, "execute_instruction", {{"plugin", "os"}, {"action", "info"}});
    ASSERT_TRUE(good.error);
    EXPECT_EQ(good.error->code, kApprovalRequired);
    EXPECT_EQ(tickets(), 1u);
}

TEST_F(AccessDeclarationsTest, BundleStepsThatCanNeverRunAreRefusedBeforeATicketIsMinted) {
    const std::string agent = enroll("web-01");
    auto bad = call(supervised, "execute_bundle",
                    {{"agent_id", agent},
                     {"steps", json::array({{{"plugin", "file"}, {"action", "exists"}}})}});
    ASSERT_TRUE(bad.error);
    EXPECT_EQ(bad.error->code, kInvalidParams) << bad.error->message;
    EXPECT_EQ(tickets(), 0u);
}

TEST_F(AccessDeclarationsTest, ADispatchNoAgentMayReceiveIsDeniedBeforeMint) {
    enroll("web-01");
    ASSERT_TRUE(identity->users().create_user("nora", "nora-password-123", {}).ok());
    auto nobody = call(token_of("nora", "supervised"), "execute_instruction",
                       {{"plugin", "os"}, {"action", "info"}});
    ASSERT_TRUE(nobody.error);
    EXPECT_EQ(nobody.error->code, kPermissionDenied) << nobody.error->message;
    EXPECT_EQ(audit_log.events().back().result, audit::AuditResult::kDenied);
    EXPECT_EQ(tickets(), 0u);
}

TEST_F(AccessDeclarationsTest, ADestructiveInstructionNeedsExplicitTargets) {
    const std::string agent = enroll("web-01");
    execution::DefinitionSpec wipe;
    wipe.id = "demo.wipe";
    wipe.name = "Wipe";
    wipe.plugin = "demo";
    wipe.action = "wipe";
    wipe.type = "action";
    wipe.destructive = true;
    ASSERT_TRUE(executions->definitions().create(wipe).ok());
    auto fleet_wide =
        call(supervised, "execute_instruction", {{"plugin", "demo"}, {"action", "wipe"}});
    ASSERT_TRUE(fleet_wide.error);
    EXPECT_EQ(fleet_wide.error->code, kPermissionDenied) << fleet_wide.error->message;
    EXPECT_NE(fleet_wide.error->message.find("explicit targets"), std::string::npos);
    EXPECT_EQ(tickets(), 0u);
    auto named =
        call(supervised, "execute_instruction",
             {{"plugin", "demo"}, {"action", "wipe"}, {"agent_ids", json::array({agent})}});
    ASSERT_TRUE(named.error);
    EXPECT_EQ(named.error->code, kApprovalRequired);
}

TEST_F(AccessDeclarationsTest, AThrowingHandlerAnswersInternalErrorWithAnErrorRow) {
    ToolSpec boom;
    boom.name = "boom";
    boom.title = "boom";
    boom.description = "throws";
    boom.input_schema = {{"type", "object"}};
    boom.tier_key = auth::Permission{auth::Securable::kInfrastructure, auth::Operation::kRead};
    boom.access = ToolAccess{*boom.tier_key, AccessScope::kSelf, ""};
    boom.handler = [](const ToolCall&) -> Result<json> { throw std::runtime_error("kaboom"); };
    ASSERT_TRUE(tools.add(boom).ok());
    ToolSpec odd = boom;
    odd.name = "odd";
    odd.handler = [](const ToolCall&) -> Result<json> { throw 42; };
    ASSERT_TRUE(tools.add(odd).ok());
    for (const char* name : {"boom", "odd"}) {
        SCOPED_TRACE(name);
        auto out = call(operator_token, name);
        ASSERT_TRUE(out.error);
        EXPECT_EQ(out.error->code, kInternalError);
        EXPECT_EQ(out.error->message, "Internal error");
        EXPECT_TRUE(out.error->data.contains("correlation_id"));
        EXPECT_TRUE(out.error->data.contains("remediation"));
        EXPECT_EQ(out.audit_result, "error");
        const audit::AuditEvent row = audit_log.events().back();
        EXPECT_EQ(row.action, std::string("mcp.") + name);
        EXPECT_EQ(row.result, audit::AuditResult::kError);
        EXPECT_EQ(row.detail.find("kaboom"), std::string::npos) << "internals stay in the log";
    }
}

}  // namespace
}  // namespace yuzu::mcp::testing

namespace yuzu::mcp::testing {
namespace {

TEST(AccessScopeDoc, MatchesTheCode) {
    const std::string block = ::yuzu::testing::doc_block("mcp-server.md", "access-scopes");
    ASSERT_FALSE(block.empty());
    size_t rows = 0;
    for (AccessScope scope : {AccessScope::kFleet, AccessScope::kAgents, AccessScope::kView,
                              AccessScope::kGroup, AccessScope::kSelf}) {
        SCOPED_TRACE(std::string(access_scope_name(scope)));
        EXPECT_NE(block.find("| `" + std::string(access_scope_name(scope)) + "` |"),
                  std::string::npos);
        ++rows;
    }
    EXPECT_EQ(static_cast<size_t>(std::count(block.begin(), block.end(), '\n')), rows + 2);
}

TEST_F(AccessDeclarationsTest, ToolsListShowsOnlyWhatTheTierCanReachAndMarksApproval) {
    const ToolSpec& execute = *tools.find("execute_instruction");
    EXPECT_FALSE(tier_can_reach(execute, "readonly"));
    EXPECT_TRUE(tier_can_reach(*tools.find("get_execution_status"), "readonly"));
    EXPECT_TRUE(tier_can_reach(execute, "operator"));
    EXPECT_FALSE(tools.list_entry(execute, "operator").contains("_meta"));
    const json gated = tools.list_entry(execute, "supervised");
    EXPECT_EQ(gated["_meta"]["io.yuzu/requiresApproval"], true);
    size_t readonly = 0;
    for (const auto& t : tools.tools()) readonly += tier_can_reach(t, "readonly") ? 1 : 0;
    EXPECT_LT(readonly, tools.tools().size());
}

}  // namespace
}  // namespace yuzu::mcp::testing
