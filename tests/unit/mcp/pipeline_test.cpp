// The tools/call pipeline, one step at a time and then end to end, with a
// fake Authorizer and the in-memory audit log.
#include "yuzu/mcp/pipeline.hpp"

#include <gtest/gtest.h>

#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/auth/authorizer.hpp"
#include "yuzu/common/correlation_id.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/retry.hpp"
#include "yuzu/mcp/tool_call_metrics.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Principal;
using auth::PrincipalKind;
using auth::Securable;

class FakeAuthorizer final : public auth::Authorizer {
  public:
    bool allow = true;
    Result<bool> allowed(const Principal&, Permission) const override { return allow; }
    Result<bool> allowed_on_agent(const Principal&, Permission, const std::string&) const override {
        return allow;
    }
};

ToolSpec make_tool(const std::string& name, std::optional<Permission> key, int* runs) {
    ToolSpec t;
    t.name = name;
    t.title = name;
    t.description = "test tool";
    t.input_schema = {{"type", "object"},
                      {"properties", {{"n", {{"type", "integer"}, {"minimum", 1}}}}},
                      {"additionalProperties", false}};
    t.tier_key = key;
    if (key) t.access = ToolAccess{*key, AccessScope::kFleet, ""};
    t.handler = [runs](const ToolCall& call) -> Result<nlohmann::json> {
        ++*runs;
        return nlohmann::json{{"echo", call.arguments}};
    };
    return t;
}

Principal mcp_token(const std::string& tier) {
    Principal p;
    p.username = "alice";
    p.kind = PrincipalKind::kMcpToken;
    p.mcp_tier = tier;
    return p;
}

class PipelineTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(
            tools
                .add(make_tool("read_thing",
                               Permission{Securable::kInfrastructure, Operation::kRead}, &runs))
                .ok());
        ASSERT_TRUE(
            tools.add(make_tool("tag_thing", Permission{Securable::kTag, Operation::kWrite}, &runs))
                .ok());
        ASSERT_TRUE(
            tools
                .add(make_tool("exec_thing", Permission{Securable::kExecution, Operation::kExecute},
                               &runs))
                .ok());
        ASSERT_TRUE(tools.add(make_tool("unregistered", std::nullopt, &runs)).ok());
        info.correlation_id = next_correlation_id();
        info.source_ip = "127.0.0.1";
    }

    CallOutcome call(const Principal& who, const std::string& name,
                     nlohmann::json args = nlohmann::json::object()) {
        PipelineEnv env{tools, settings, &audit_log, &authorizer};
        env.call_metrics = call_metrics;
        return run_tool_call(env, who, {{"name", name}, {"arguments", args}}, info);
    }

    ToolCatalogue tools;
    McpSettings settings;
    audit::MemoryAuditLog audit_log;
    FakeAuthorizer authorizer;
    RequestInfo info;
    int runs = 0;
    const ToolCallMetrics* call_metrics = nullptr;
};

bool has_line(const std::string& text, const std::string& line) {
    return text.find("\n" + line + "\n") != std::string::npos;
}

void expect_envelope(const RpcError& e, const std::string& cid) {
    ASSERT_TRUE(e.data.is_object()) << e.message;
    EXPECT_EQ(e.data["correlation_id"], cid);
    EXPECT_TRUE(e.data.contains("retry_after_ms"));
    EXPECT_TRUE(e.data["remediation"].is_string());
}

TEST_F(PipelineTest, SuccessRunsHandlerOnceAndAudits) {
    auto out = call(mcp_token("readonly"), "read_thing", {{"n", 2}});
    ASSERT_TRUE(out.result) << out.error->message;
    EXPECT_EQ(runs, 1);
    EXPECT_EQ((*out.result)["structuredContent"]["echo"]["n"], 2);
    EXPECT_EQ((*out.result)["content"][0]["type"], "text");
    EXPECT_FALSE((*out.result)["isError"]);
    auto events = audit_log.events();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].action, "mcp.read_thing");
    EXPECT_EQ(events[0].target_type, "mcp_tool");
    EXPECT_EQ(events[0].result, audit::AuditResult::kSuccess);
}

TEST_F(PipelineTest, ReadOnlyModeRefusesWritesWithTierCode) {
    settings.read_only = true;
    auto out = call(mcp_token("supervised"), "tag_thing");
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kTierDenied);
    EXPECT_EQ(out.error->message, "MCP is in read-only mode");
    expect_envelope(*out.error, info.correlation_id);
    EXPECT_EQ(runs, 0);
    EXPECT_EQ(audit_log.events().at(0).detail, "read-only mode");
    // Reads still work.
    EXPECT_TRUE(call(mcp_token("supervised"), "read_thing").result);
}

TEST_F(PipelineTest, MissingRegistrationIsAMisconfigurationDenyWithTheCorrelationIdAudited) {
    auto out = call(mcp_token("supervised"), "unregistered");
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kInternalError);
    expect_envelope(*out.error, info.correlation_id);
    EXPECT_EQ(runs, 0);
    const auto ev = audit_log.events().at(0);
    EXPECT_EQ(ev.result, audit::AuditResult::kDenied);
    EXPECT_NE(ev.detail.find("correlation_id=" + info.correlation_id), std::string::npos);
}

TEST_F(PipelineTest, TierPolicyRunsBeforeRbacAndHasNullRetry) {
    authorizer.allow = false;  // RBAC would also deny; the tier must answer first
    auto out = call(mcp_token("readonly"), "tag_thing");
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kTierDenied);
    EXPECT_TRUE(out.error->data["retry_after_ms"].is_null());
    EXPECT_EQ(audit_log.events().at(0).detail, "tier=readonly");
}

TEST_F(PipelineTest, UnknownTierIsRefusedEvenForReads) {
    auto out = call(mcp_token("root"), "read_thing");
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kTierDenied);
}

TEST_F(PipelineTest, SchemaValidationGivesFieldSpecificRemediation) {
    auto out = call(mcp_token("readonly"), "read_thing", {{"n", 0}});
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kInvalidParams);
    expect_envelope(*out.error, info.correlation_id);
    EXPECT_NE(out.error->data["remediation"].get<std::string>().find("/n"), std::string::npos);
    EXPECT_EQ(runs, 0);
    EXPECT_NE(audit_log.events().at(0).detail.find("correlation_id="), std::string::npos);
    auto extra = call(mcp_token("readonly"), "read_thing", {{"bogus", 1}});
    ASSERT_TRUE(extra.error);
    EXPECT_EQ(extra.error->code, kInvalidParams);
}

TEST_F(PipelineTest, SchemaRunsBeforeTheApprovalGate) {
    // Supervised Execution:Execute needs approval; an invalid call must be
    // refused by the schema first.
    auto out = call(mcp_token("supervised"), "exec_thing", {{"n", "x"}});
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kInvalidParams);
}

TEST_F(PipelineTest, ApprovalGatedCallWithoutAManagerIsTierDeniedWithoutApprovalId) {
    auto out = call(mcp_token("supervised"), "exec_thing", {{"n", 1}});
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kTierDenied);
    EXPECT_FALSE(out.error->data.contains("approval_id"));
    EXPECT_EQ(runs, 0);
    // Operator runs Execution:Execute at once.
    EXPECT_TRUE(call(mcp_token("operator"), "exec_thing", {{"n", 1}}).result);
    EXPECT_EQ(runs, 1);
}

TEST_F(PipelineTest, RbacDenialIsPermissionDenied) {
    authorizer.allow = false;
    auto out = call(mcp_token("readonly"), "read_thing");
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kPermissionDenied);
    EXPECT_TRUE(out.error->data["retry_after_ms"].is_null());
    EXPECT_EQ(audit_log.events().at(0).result, audit::AuditResult::kDenied);
    EXPECT_EQ(runs, 0);
}

TEST_F(PipelineTest, EmptyTierDefersToRbac) {
    Principal session;
    session.username = "bob";
    EXPECT_TRUE(call(session, "exec_thing", {{"n", 1}}).result);
    authorizer.allow = false;
    auto out = call(session, "exec_thing", {{"n", 1}});
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kPermissionDenied);
}

TEST_F(PipelineTest, UnknownToolAndBadParamsAreInvalidParams) {
    auto unknown = call(mcp_token("readonly"), "nope");
    ASSERT_TRUE(unknown.error);
    EXPECT_EQ(unknown.error->code, kInvalidParams);
    EXPECT_EQ(unknown.error->message, "Unknown tool: nope");
    PipelineEnv env{tools, settings, &audit_log, &authorizer};
    auto no_name = run_tool_call(env, mcp_token("readonly"), nlohmann::json::object(), info);
    ASSERT_TRUE(no_name.error);
    EXPECT_EQ(no_name.error->code, kInvalidParams);
    auto bad_args = run_tool_call(env, mcp_token("readonly"),
                                  {{"name", "read_thing"}, {"arguments", "x"}}, info);
    ASSERT_TRUE(bad_args.error);
    EXPECT_EQ(bad_args.error->code, kInvalidParams);
}

TEST_F(PipelineTest, HandlerFailuresMapByStatusCodeWithoutLeakingInternals) {
    ToolCatalogue local;
    ToolSpec t =
        make_tool("fails", Permission{Securable::kInfrastructure, Operation::kRead}, &runs);
    StatusCode code = StatusCode::kInternal;
    t.handler = [&code](const ToolCall&) -> Result<nlohmann::json> {
        return Status(code, "sqlite said: disk I/O error at /secret/path");
    };
    ASSERT_TRUE(local.add(std::move(t)).ok());
    PipelineEnv env{local, settings, &audit_log, &authorizer};
    auto out = run_tool_call(env, mcp_token("readonly"), {{"name", "fails"}}, info);
    ASSERT_TRUE(out.error);
    EXPECT_EQ(out.error->code, kInternalError);
    EXPECT_EQ(out.error->message.find("secret"), std::string::npos);
    code = StatusCode::kUnavailable;
    out = run_tool_call(env, mcp_token("readonly"), {{"name", "fails"}}, info);
    EXPECT_EQ(out.error->data["retry_after_ms"], kMcpStoreFaultRetryMs);
    code = StatusCode::kNotFound;
    out = run_tool_call(env, mcp_token("readonly"), {{"name", "fails"}}, info);
    EXPECT_EQ(out.error->code, kInvalidParams);
}

TEST(Catalogue, RejectsDuplicatesAndUncompilableSchemas) {
    ToolCatalogue c;
    int runs = 0;
    ASSERT_TRUE(
        c.add(make_tool("a", Permission{Securable::kInfrastructure, Operation::kRead}, &runs))
            .ok());
    EXPECT_EQ(c.add(make_tool("a", Permission{Securable::kInfrastructure, Operation::kRead}, &runs))
                  .code(),
              StatusCode::kAlreadyExists);
    ToolSpec bad = make_tool("b", Permission{Securable::kInfrastructure, Operation::kRead}, &runs);
    bad.input_schema["properties"]["n"]["unsupportedKeyword"] = 1;
    EXPECT_FALSE(c.add(std::move(bad)).ok());
}

TEST(RetryConstants, HaveTheSeedValues) {
    EXPECT_EQ(kMcpStoreFaultRetryMs, 5000);
    EXPECT_EQ(kMcpStoreFaultShortRetryMs, 2000);
    EXPECT_EQ(kMcpProviderWarmupRetryMs, 5000);
    EXPECT_EQ(kMcpResultPollRetryMs, 2000);
    EXPECT_EQ(kMcpApprovalPollRetryMs, 30000);
}

}  // namespace
}  // namespace yuzu::mcp

namespace yuzu::mcp {
namespace {

TEST_F(PipelineTest, EveryCallIsCountedByToolAndItsFinalAuditOutcome) {
    metrics::Registry registry;
    ToolCallMetrics metrics(tools, registry);
    call_metrics = &metrics;
    // Before any call every catalogued tool already has a zero series.
    EXPECT_TRUE(has_line(registry.Serialize(),
                         R"(yuzu_mcp_tool_calls_total{outcome="pending",tool="exec_thing"} 0)"));

    EXPECT_TRUE(call(mcp_token("readonly"), "read_thing", {{"n", 2}}).result);
    EXPECT_TRUE(call(mcp_token("readonly"), "read_thing", {{"n", 0}}).error);  // schema: denied
    EXPECT_TRUE(call(mcp_token("readonly"), "tag_thing").error);               // tier: denied
    authorizer.allow = false;
    EXPECT_TRUE(call(mcp_token("operator"), "tag_thing").error);  // rbac: denied
    EXPECT_TRUE(call(mcp_token("readonly"), "no_such_tool").error);

    const std::string text = registry.Serialize();
    EXPECT_TRUE(
        has_line(text, R"(yuzu_mcp_tool_calls_total{outcome="success",tool="read_thing"} 1)"))
        << text;
    EXPECT_TRUE(
        has_line(text, R"(yuzu_mcp_tool_calls_total{outcome="denied",tool="read_thing"} 1)"));
    EXPECT_TRUE(
        has_line(text, R"(yuzu_mcp_tool_calls_total{outcome="denied",tool="tag_thing"} 2)"));
    EXPECT_TRUE(has_line(text, "yuzu_mcp_unknown_tool_calls_total 1"));
    EXPECT_TRUE(has_line(
        text,
        R"(yuzu_mcp_tool_call_duration_seconds_count{outcome="success",tool="read_thing"} 1)"));
    // An unknown name never becomes a label value.
    EXPECT_EQ(text.find("no_such_tool"), std::string::npos);
    // The counted outcome is the one the audit row holds.
    const auto events = audit_log.events();
    ASSERT_EQ(events.size(), 5u);
    EXPECT_EQ(events[3].result, audit::AuditResult::kDenied);
}

}  // namespace
}  // namespace yuzu::mcp
