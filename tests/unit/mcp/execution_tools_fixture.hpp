// A real Identity, fleet and executions.db in a temp dir with the execution
// tools registered, called through the real tools/call pipeline; helpers
// play the agent side (take the queued command and answer it the way the
// agent plane does).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "support/enroll_test_agent.hpp"
#include "support/temp_dir.hpp"
#include "yuzu/approval/approval_manager.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/correlation_id.hpp"
#include "yuzu/common/readiness.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/fleet/command_queue.hpp"
#include "yuzu/fleet/command_result.hpp"
#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/pipeline.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::mcp::testing {

using nlohmann::json;

inline constexpr char kPassword[] = "execution-tools-test-password";

inline auth::Principal token_of(const std::string& user, const std::string& tier) {
    auth::Principal p;
    p.username = user;
    p.kind = auth::PrincipalKind::kMcpToken;
    p.mcp_tier = tier;
    return p;
}

class ExecutionToolsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auth::IdentityOptions options;
        options.data_dir = dir.str();
        options.bootstrap_password_value = kPassword;
        options.user_options.password_log_n = 10;
        auto id = auth::Identity::open(options, SystemClock::instance());
        ASSERT_TRUE(id.ok()) << id.status().to_string();
        identity = std::move(id).value();

        fleet::FleetOptions fleet_options;
        fleet_options.data_dir = (dir / "fleet").string();
        auto f = fleet::Fleet::open(fleet_options, clock);
        ASSERT_TRUE(f.ok()) << f.status().to_string();
        fleet_ = std::move(f).value();
        execution::ExecutionsOptions ex_options;
        ex_options.data_dir = (dir / "executions").string();
        auto ex = execution::Executions::open(ex_options, *fleet_, clock);
        ASSERT_TRUE(ex.ok()) << ex.status().to_string();
        executions = std::move(ex).value();

        CatalogueDeps deps{audit_log, *identity, readiness, clock, "test", 0};
        deps.fleet = fleet_.get();
        deps.executions = executions.get();
        deps.metrics = &metrics;
        ASSERT_TRUE(register_definition_tools(tools, deps).ok());
        ASSERT_TRUE(register_execution_tools(tools, deps).ok());
        ASSERT_TRUE(register_response_tools(tools, deps).ok());
        ASSERT_TRUE(register_bundle_tools(tools, deps).ok());
        ASSERT_TRUE(register_quarantine_tools(tools, deps).ok());
    }

    CallOutcome call(const auth::Principal& who, const std::string& tool,
                     json args = json::object()) {
        PipelineEnv env{tools, settings, &audit_log, &identity->authorizer(), approvals};
        env.identity = identity.get();
        env.fleet = fleet_.get();
        RequestInfo info{next_correlation_id(), "127.0.0.1", "test"};
        return run_tool_call(env, who, {{"name", tool}, {"arguments", std::move(args)}}, info);
    }

    // structuredContent of a call that must succeed.
    json ok(const auth::Principal& who, const std::string& tool, json args = json::object()) {
        auto out = call(who, tool, std::move(args));
        EXPECT_FALSE(out.error) << tool << ": " << (out.error ? out.error->message : "");
        if (!out.result) return json();
        return (*out.result)["structuredContent"];
    }

    // The JSON-RPC error of a call that must fail.
    RpcError error(const auth::Principal& who, const std::string& tool, json args) {
        auto out = call(who, tool, std::move(args));
        EXPECT_TRUE(out.error) << tool << " succeeded: " << (out.result ? out.result->dump() : "");
        return out.error ? *out.error : RpcError{};
    }

    std::string enroll(const std::string& hostname) {
        return ::yuzu::testing::enroll_test_agent(*fleet_, hostname);
    }

    std::vector<fleet::AgentCommand> take(const std::string& agent_id) {
        return fleet_->commands().take(agent_id);
    }

    // Answers every command queued for the agent with the same result.
    void answer_all(const std::string& agent_id, const std::string& status,
                    const std::string& output_json) {
        for (const auto& command : take(agent_id)) {
            ASSERT_TRUE(fleet_->commands().complete(agent_id, command.command_id));
            fleet::CommandResult result;
            result.command_id = command.command_id;
            result.status = status;
            result.output_json = output_json;
            result.duration_ms = 3;
            result.received_at_ms = clock.now_ms();
            ASSERT_TRUE(executions->tracker().on_result(agent_id, result).ok());
        }
    }

    // Audit rows with this action, oldest first.
    std::vector<audit::AuditEvent> audit_rows(const std::string& action) const {
        std::vector<audit::AuditEvent> out;
        for (const auto& ev : audit_log.events()) {
            if (ev.action == action) out.push_back(ev);
        }
        return out;
    }

    ::yuzu::testing::TempDir dir;
    ManualClock clock;
    std::unique_ptr<auth::Identity> identity;
    approval::ApprovalManager* approvals = nullptr;  // set by tests of the approval gate
    std::unique_ptr<fleet::Fleet> fleet_;
    std::unique_ptr<execution::Executions> executions;
    audit::MemoryAuditLog audit_log;
    Readiness readiness;
    metrics::Registry metrics;
    McpSettings settings;
    ToolCatalogue tools;
    const auth::Principal admin = [] {
        auth::Principal p;
        p.username = "admin";
        p.kind = auth::PrincipalKind::kUserSession;
        return p;
    }();
    const auth::Principal operator_token = token_of("admin", "operator");
};

}  // namespace yuzu::mcp::testing
