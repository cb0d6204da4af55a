// The approval gate of the tools/call pipeline (ticket-then-recall) over a
// real ApprovalManager on an in-memory approvals.db, a fake Authorizer and
// the in-memory audit log: one test per answer the seed specifies.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "yuzu/approval/approval_manager.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/auth/authorizer.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/correlation_id.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/pipeline.hpp"
#include "yuzu/mcp/retry.hpp"

namespace yuzu::mcp {
namespace {

using approval::ApprovalState;
using auth::Operation;
using auth::Permission;
using auth::Principal;
using auth::PrincipalKind;
using auth::Securable;
using nlohmann::json;

class FakeAuthorizer final : public auth::Authorizer {
  public:
    bool allow = true;
    Result<bool> allowed(const Principal&, Permission) const override { return allow; }
    Result<bool> allowed_on_agent(const Principal&, Permission, const std::string&) const override {
        return allow;
    }
};

Principal token_of(const std::string& user, const std::string& tier) {
    Principal p;
    p.username = user;
    p.kind = PrincipalKind::kMcpToken;
    p.mcp_tier = tier;
    return p;
}

class ApprovalGateTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto m = approval::ApprovalManager::open(":memory:", clock);
        ASSERT_TRUE(m.ok()) << m.status().to_string();
        approvals = std::move(m).value();

        ToolSpec gated;
        gated.name = "make_group";
        gated.title = "Make a group";
        gated.description = "test tool gated at the supervised tier";
        gated.input_schema = {
            {"type", "object"},
            {"properties",
             {{"name", {{"type", "string"}, {"minLength", 1}}}, {"size", {{"type", "integer"}}}}},
            {"required", {"name"}},
            {"additionalProperties", false}};
        gated.tier_key = Permission{Securable::kManagementGroup, Operation::kWrite};
        gated.access = ToolAccess{*gated.tier_key, AccessScope::kFleet, ""};
        gated.precondition = [this](const ToolCall&) {
            return precondition_ok ? Status::Ok()
                                   : Status::FailedPrecondition("the rotation has moved on");
        };
        gated.handler = [this](const ToolCall& call) -> Result<json> {
            ++runs;
            last_arguments = call.arguments;
            return json{{"created", call.arguments.at("name")}};
        };
        ASSERT_TRUE(tools.add(std::move(gated)).ok());

        ToolSpec read;
        read.name = "read_groups";
        read.title = "Read";
        read.description = "a read tool";
        read.input_schema = {{"type", "object"}, {"additionalProperties", false}};
        read.tier_key = Permission{Securable::kManagementGroup, Operation::kRead};
        read.access = ToolAccess{*read.tier_key, AccessScope::kFleet, ""};
        read.handler = [](const ToolCall&) -> Result<json> { return json::object(); };
        ASSERT_TRUE(tools.add(std::move(read)).ok());
    }

    CallOutcome call(const Principal& who, json args) {
        PipelineEnv env{tools, settings, &audit_log, &authorizer, approvals.get()};
        RequestInfo info{next_correlation_id(), "127.0.0.1", "test"};
        return run_tool_call(env, who, {{"name", "make_group"}, {"arguments", std::move(args)}},
                             info);
    }

    // First call: the minted ticket's id.
    std::string mint(const json& args) {
        auto out = call(alice, args);
        EXPECT_TRUE(out.error);
        if (!out.error) return "";
        EXPECT_EQ(out.error->code, kApprovalRequired) << out.error->message;
        return out.error->data.value("approval_id", "");
    }

    std::string mint_approved(const json& args) {
        const std::string id = mint(args);
        EXPECT_TRUE(approvals->approve(id, "bob", "ok").ok());
        return id;
    }

    static json with_id(json args, const std::string& id) {
        args["approval_id"] = id;
        return args;
    }

    ApprovalState state_of(const std::string& id) {
        auto a = approvals->get(id);
        EXPECT_TRUE(a.ok());
        return a.ok() ? a->effective_state(clock.now_ms()) : ApprovalState::kExpired;
    }

    ManualClock clock;
    std::unique_ptr<approval::ApprovalManager> approvals;
    ToolCatalogue tools;
    McpSettings settings;
    audit::MemoryAuditLog audit_log;
    FakeAuthorizer authorizer;
    Principal alice = token_of("alice", "supervised");
    bool precondition_ok = true;
    int runs = 0;
    json last_arguments;
};

TEST_F(ApprovalGateTest, FirstCallMintsATicketAndAnswersApprovalRequired) {
    auto out = call(alice, {{"name", "g1"}, {"size", 3}});
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kApprovalRequired);
    const json& data = out.error->data;
    EXPECT_TRUE(is_correlation_id(data.at("correlation_id").get<std::string>()));
    EXPECT_EQ(data.at("retry_after_ms"), kMcpApprovalPollRetryMs);
    EXPECT_EQ(data.at("remediation"),
              "an admin must approve this approval_id "
              "(see status_url), then re-call this tool "
              "with the approval_id argument to execute");
    const std::string id = data.at("approval_id").get<std::string>();
    EXPECT_TRUE(approval::is_approval_id(id)) << id;
    EXPECT_EQ(data.at("status_url"), "/api/v1/approvals/" + id);
    EXPECT_EQ(runs, 0);

    auto ticket = approvals->get(id);
    ASSERT_TRUE(ticket.ok());
    EXPECT_EQ(ticket->definition_id, "mcp.make_group");
    EXPECT_EQ(ticket->submitted_by, "alice");
    EXPECT_EQ(ticket->scope_expression, R"({"name":"g1","size":3})");
    EXPECT_EQ(ticket->surface, approval::Surface::kMcp);

    auto events = audit_log.events();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].action, "mcp.make_group");
    EXPECT_EQ(events[0].result, audit::AuditResult::kPending);
    EXPECT_EQ(events[0].detail, "approval_id=" + id + " minted");
}

TEST_F(ApprovalGateTest, RepeatingTheCallReturnsTheSameTicketWhateverTheKeyOrder) {
    const std::string id = mint({{"name", "g1"}, {"size", 3}});
    auto again = call(alice, json::parse(R"({"size": 3, "name": "g1"})"));
    ASSERT_TRUE(again.error);
    EXPECT_EQ(again.error->code, kApprovalRequired);
    EXPECT_EQ(again.error->data.at("approval_id"), id);
    EXPECT_EQ(*approvals->pending_count(), 1);
    EXPECT_EQ(audit_log.events().back().detail, "approval_id=" + id + " deduplicated");
}

TEST_F(ApprovalGateTest, SchemaInvalidCallsMintAndConsumeNothing) {
    auto bad = call(alice, {{"name", ""}});
    ASSERT_TRUE(bad.error);
    EXPECT_EQ(bad.error->code, kInvalidParams);
    auto bad_id = call(alice, {{"name", "g"}, {"approval_id", "not-hex"}});
    ASSERT_TRUE(bad_id.error);
    EXPECT_EQ(bad_id.error->code, kInvalidParams);
    EXPECT_EQ(*approvals->pending_count(), 0);

    const std::string id = mint_approved({{"name", "g"}});
    auto invalid_recall = call(alice, {{"name", "g"}, {"size", "x"}, {"approval_id", id}});
    ASSERT_TRUE(invalid_recall.error);
    EXPECT_EQ(invalid_recall.error->code, kInvalidParams);
    EXPECT_EQ(state_of(id), ApprovalState::kApproved);
    EXPECT_EQ(runs, 0);
}

TEST_F(ApprovalGateTest, APendingRecallAnswersTheSameEnvelope) {
    const std::string id = mint({{"name", "g"}});
    auto out = call(alice, with_id({{"name", "g"}}, id));
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kApprovalRequired);
    EXPECT_EQ(out.error->data.at("approval_id"), id);
    EXPECT_EQ(out.error->data.at("status_url"), "/api/v1/approvals/" + id);
    EXPECT_EQ(out.error->data.at("retry_after_ms"), kMcpApprovalPollRetryMs);
    EXPECT_EQ(runs, 0);
    EXPECT_EQ(*approvals->pending_count(), 1);
    // Any caller may poll a pending ticket.
    auto other = call(token_of("mallory", "supervised"), with_id({{"name", "g"}}, id));
    ASSERT_TRUE(other.error);
    EXPECT_EQ(other.error->code, kApprovalRequired);
}

TEST_F(ApprovalGateTest, AnApprovedRecallConsumesTheTicketThenRunsTheHandlerOnce) {
    const std::string id = mint_approved({{"name", "g"}});
    auto out = call(alice, with_id({{"name", "g"}}, id));
    ASSERT_TRUE(out.result) << out.error->message;
    EXPECT_EQ(runs, 1);
    EXPECT_EQ(last_arguments, json({{"name", "g"}}));  // approval_id removed
    EXPECT_EQ(state_of(id), ApprovalState::kConsumed);
    auto events = audit_log.events();
    ASSERT_GE(events.size(), 2u);
    EXPECT_EQ(events[events.size() - 2].result, audit::AuditResult::kConsumed);
    EXPECT_EQ(events[events.size() - 2].detail, "approval_id=" + id);
    EXPECT_EQ(events.back().result, audit::AuditResult::kSuccess);
}

TEST_F(ApprovalGateTest, AReplayIsPermissionDeniedAndTheHandlerDoesNotRunAgain) {
    const std::string id = mint_approved({{"name", "g"}});
    ASSERT_TRUE(call(alice, with_id({{"name", "g"}}, id)).result);
    auto replay = call(alice, with_id({{"name", "g"}}, id));
    ASSERT_TRUE(replay.error);
    EXPECT_EQ(replay.error->code, kPermissionDenied);
    EXPECT_EQ(replay.error->message, kApprovalNotRedeemableMessage);
    EXPECT_TRUE(replay.error->data.at("retry_after_ms").is_null());
    EXPECT_EQ(runs, 1);
    EXPECT_EQ(audit_log.events().back().result, audit::AuditResult::kDenied);
}

TEST_F(ApprovalGateTest, AMismatchIsItsOwnRefusalAndLeavesTheTicketUntouched) {
    const std::string id = mint_approved({{"name", "g"}});
    auto out = call(alice, with_id({{"name", "other"}}, id));
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kPermissionDenied);
    EXPECT_EQ(out.error->message, "approval_id does not match this tool and arguments");
    EXPECT_EQ(state_of(id), ApprovalState::kApproved);
    EXPECT_EQ(runs, 0);
    EXPECT_TRUE(call(alice, with_id({{"name", "g"}}, id)).result);
}

TEST_F(ApprovalGateTest, EveryOtherDeadTicketReadsExactlyLikeAReplay) {
    // Consumed (a replay): the reference message.
    const std::string used = mint_approved({{"name", "used"}});
    ASSERT_TRUE(call(alice, with_id({{"name", "used"}}, used)).result);
    const std::string reference = call(alice, with_id({{"name", "used"}}, used)).error->message;

    // Another principal recalling alice's approved ticket.
    const std::string mine = mint_approved({{"name", "mine"}});
    auto other = call(token_of("mallory", "supervised"), with_id({{"name", "mine"}}, mine));
    ASSERT_TRUE(other.error);
    EXPECT_EQ(other.error->code, kPermissionDenied);
    EXPECT_EQ(other.error->message, reference);
    EXPECT_EQ(state_of(mine), ApprovalState::kApproved);

    // Rejected.
    const std::string no = mint({{"name", "no"}});
    ASSERT_TRUE(approvals->reject(no, "bob", "").ok());
    EXPECT_EQ(call(alice, with_id({{"name", "no"}}, no)).error->message, reference);

    // Minted by another surface.
    approval::MintRequest rest;
    rest.definition_id = "mcp.make_group";
    rest.submitted_by = "alice";
    rest.scope_expression = R"({"name":"rest"})";
    rest.surface = approval::Surface::kRest;
    const std::string rest_id = approvals->mint(rest)->approval.id;
    ASSERT_TRUE(approvals->approve(rest_id, "bob", "").ok());
    EXPECT_EQ(call(alice, with_id({{"name", "rest"}}, rest_id)).error->message, reference);

    // Unknown id; expired while pending.
    EXPECT_EQ(
        call(alice, with_id({{"name", "x"}}, "0123456789abcdef0123456789abcdef")).error->message,
        reference);
    const std::string lapsed = mint({{"name", "lapsed"}});
    clock.advance_ms(approval::kApprovalLifetimeMs);
    EXPECT_EQ(call(alice, with_id({{"name", "lapsed"}}, lapsed)).error->message, reference);
    EXPECT_EQ(runs, 1);
}

TEST_F(ApprovalGateTest, AnApprovedTicketPastItsLifetimeHasItsOwnMessage) {
    const std::string id = mint_approved({{"name", "g"}});
    clock.advance_ms(approval::kApprovalLifetimeMs);
    auto out = call(alice, with_id({{"name", "g"}}, id));
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kPermissionDenied);
    EXPECT_EQ(out.error->message, "approval expired (past its 7-day lifetime)");
    EXPECT_EQ(runs, 0);
}

TEST_F(ApprovalGateTest, AFailedPreconditionLeavesTheTicketApprovedAndRecallable) {
    const std::string id = mint_approved({{"name", "g"}});
    precondition_ok = false;
    auto out = call(alice, with_id({{"name", "g"}}, id));
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kPermissionDenied);
    EXPECT_EQ(out.error->message,
              "approval cannot be redeemed right now: the rotation has moved on");
    EXPECT_EQ(state_of(id), ApprovalState::kApproved);
    EXPECT_EQ(runs, 0);
    precondition_ok = true;
    EXPECT_TRUE(call(alice, with_id({{"name", "g"}}, id)).result);
    EXPECT_EQ(runs, 1);
}

TEST_F(ApprovalGateTest, RbacRunsAfterTheConsumeAndAFailureBurnsTheTicket) {
    const std::string id = mint_approved({{"name", "g"}});
    authorizer.allow = false;
    auto out = call(alice, with_id({{"name", "g"}}, id));
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kPermissionDenied);
    EXPECT_NE(out.error->message.find("permission denied"), std::string::npos);
    EXPECT_EQ(state_of(id), ApprovalState::kConsumed);
    EXPECT_EQ(runs, 0);
}

TEST_F(ApprovalGateTest, TiersThatNeedNoApprovalIgnoreAnApprovalId) {
    // The empty tier (a session) defers to RBAC alone: no ticket.
    Principal session;
    session.username = "carol";
    auto out = call(session, with_id({{"name", "g"}}, "0123456789abcdef0123456789abcdef"));
    ASSERT_TRUE(out.result) << out.error->message;
    EXPECT_EQ(last_arguments, json({{"name", "g"}}));
    EXPECT_EQ(*approvals->pending_count(), 0);
}

TEST_F(ApprovalGateTest, WithoutAManagerTheGateFallsBackToTierDenied) {
    PipelineEnv env{tools, settings, &audit_log, &authorizer};
    RequestInfo info{next_correlation_id(), "127.0.0.1", ""};
    auto out =
        run_tool_call(env, alice, {{"name", "make_group"}, {"arguments", {{"name", "g"}}}}, info);
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kTierDenied);
    EXPECT_FALSE(out.error->data.contains("approval_id"));
    EXPECT_EQ(*approvals->pending_count(), 0);
}

TEST_F(ApprovalGateTest, ToolsListShowsApprovalIdOnlyOnToolsThatCanBeGated) {
    const json gated = tools.list_entry(*tools.find("make_group"));
    ASSERT_TRUE(gated["inputSchema"]["properties"].contains("approval_id"));
    EXPECT_EQ(gated["inputSchema"]["properties"]["approval_id"]["pattern"], "^[0-9a-f]{32}$");
    EXPECT_FALSE(gated["inputSchema"]["required"].dump().find("approval_id") != std::string::npos);
    const json read = tools.list_entry(*tools.find("read_groups"));
    EXPECT_FALSE(read["inputSchema"].contains("properties") &&
                 read["inputSchema"]["properties"].contains("approval_id"));
}

TEST_F(ApprovalGateTest, ACheckedHandlerFailureCarriesItsRemediationAndAuditDetail) {
    ToolSpec refusing;
    refusing.name = "refuse";
    refusing.title = "Refuse";
    refusing.description = "always refuses";
    refusing.input_schema = {{"type", "object"}};
    refusing.tier_key = Permission{Securable::kApproval, Operation::kWrite};
    refusing.access = ToolAccess{*refusing.tier_key, AccessScope::kFleet, ""};
    refusing.checked_handler = [](const ToolCall&) -> std::variant<json, ToolFailure> {
        ToolFailure f;
        f.status = Status::PermissionDenied("approver_assurance_required:non_interactive_session");
        f.remediation = "use the dashboard";
        f.audit_detail = "approval_id=x approver_assurance:non_interactive_session";
        return f;
    };
    ASSERT_TRUE(tools.add(std::move(refusing)).ok());
    PipelineEnv env{tools, settings, &audit_log, &authorizer, approvals.get()};
    RequestInfo info{next_correlation_id(), "127.0.0.1", ""};
    auto out = run_tool_call(env, alice, {{"name", "refuse"}}, info);
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kPermissionDenied);
    EXPECT_EQ(out.error->message, "approver_assurance_required:non_interactive_session");
    EXPECT_EQ(out.error->data.at("remediation"), "use the dashboard");
    EXPECT_TRUE(out.error->data.at("retry_after_ms").is_null());
    const auto ev = audit_log.events().back();
    EXPECT_EQ(ev.result, audit::AuditResult::kDenied);
    EXPECT_EQ(ev.detail, "approval_id=x approver_assurance:non_interactive_session");
}

}  // namespace
}  // namespace yuzu::mcp
