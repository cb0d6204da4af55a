// execute_bundle, get_bundle_result and quarantine_device through the real
// pipeline over a real fleet and executions.db.
#include <gtest/gtest.h>

#include "execution_tools_fixture.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/mcp/retry.hpp"

namespace yuzu::mcp::testing {
namespace {

TEST_F(ExecutionToolsTest, BundleStepsCollateInRequestOrderAndStrangersSeeNothing) {
    const std::string agent = enroll("web-01");
    json sc = ok(operator_token, "execute_bundle",
                 {{"agent_id", agent},
                  {"steps",
                   {{{"plugin", "os"}, {"action", "info"}},
                    {{"plugin", "disk"}, {"action", "usage"}, {"params", {{"path", "/"}}}},
                    {{"plugin", "reboot"}, {"action", "pending"}}}}});
    const std::string bundle_id = sc["bundle_id"];
    EXPECT_EQ(bundle_id.rfind("bundle-", 0), 0u);
    EXPECT_EQ(sc["expected"], 3);

    json pending = ok(operator_token, "get_bundle_result", {{"bundle_id", bundle_id}});
    EXPECT_FALSE(pending["complete"].get<bool>());
    EXPECT_FALSE(pending["ready"].get<bool>());
    EXPECT_EQ(pending["retry_after_ms"], kMcpResultPollRetryMs);

    // Answer in reverse order: the collation still follows the request.
    auto commands = take(agent);
    ASSERT_EQ(commands.size(), 3u);
    for (auto it = commands.rbegin(); it != commands.rend(); ++it) {
        ASSERT_TRUE(fleet_->commands().complete(agent, it->command_id));
        fleet::CommandResult r;
        r.command_id = it->command_id;
        r.status = "success";
        r.output_json = json{{"plugin", it->plugin}}.dump();
        r.received_at_ms = clock.now_ms();
        ASSERT_TRUE(executions->tracker().on_result(agent, r).ok());
    }
    json done = ok(operator_token, "get_bundle_result", {{"bundle_id", bundle_id}});
    EXPECT_TRUE(done["complete"].get<bool>());
    EXPECT_TRUE(done["ready"].get<bool>());
    EXPECT_EQ(done["succeeded"], 3);
    ASSERT_EQ(done["steps"].size(), 3u);
    EXPECT_EQ(done["steps"][0]["plugin"], "os");
    EXPECT_EQ(done["steps"][1]["plugin"], "disk");
    EXPECT_EQ(done["steps"][2]["plugin"], "reboot");
    EXPECT_EQ(done["steps"][1]["output"]["plugin"], "disk");

    ASSERT_TRUE(identity->users().create_user("bob", kPassword, {"Operator"}).ok());
    auto stranger =
        error(token_of("bob", "operator"), "get_bundle_result", {{"bundle_id", bundle_id}});
    auto unknown = error(token_of("bob", "operator"), "get_bundle_result",
                         {{"bundle_id", "bundle-" + std::string(32, '0')}});
    EXPECT_EQ(stranger.code, kInvalidParams);
    EXPECT_EQ(stranger.code, unknown.code);
    EXPECT_EQ(stranger.message, unknown.message);
    EXPECT_EQ(stranger.message, "bundle not found");
    ASSERT_EQ(audit_rows("bundle.read").size(), 1u);
    EXPECT_EQ(audit_rows("bundle.read")[0].result, audit::AuditResult::kDenied);

    // One audit row per step, plus the tool's own.
    EXPECT_EQ(audit_rows("bundle.os.info").size(), 1u);
    EXPECT_EQ(audit_rows("bundle.disk.usage").size(), 1u);
    EXPECT_EQ(audit_rows("bundle.reboot.pending").size(), 1u);
    EXPECT_NE(audit_rows("bundle.os.info")[0].detail.find("dispatched bundle_id=" + bundle_id),
              std::string::npos);
}

TEST_F(ExecutionToolsTest, BundleStepParamsAreCheckedBeforeAnythingIsSent) {
    const std::string agent = enroll("web-01");
    auto bad = error(operator_token, "execute_bundle",
                     {{"agent_id", agent},
                      {"steps",
                       {{{"plugin", "os"}, {"action", "info"}},
                        {{"plugin", "file"}, {"action", "exists"}, {"params", json::object()}}}}});
    EXPECT_EQ(bad.code, kInvalidParams);
    EXPECT_NE(bad.message.find("step 2: params"), std::string::npos) << bad.message;
    EXPECT_TRUE(take(agent).empty());
}

TEST_F(ExecutionToolsTest, QuarantineSetsTheRegistryFlagAndRefusalsShowInTheExecution) {
    const std::string agent = enroll("web-01");
    json sc = ok(admin, "quarantine_device", {{"agent_id", agent}, {"reason", "lateral movement"}});
    EXPECT_TRUE(sc["quarantined"].get<bool>());
    EXPECT_EQ(sc["quarantine_record"]["status"], "active");
    EXPECT_EQ(sc["quarantine_record"]["quarantined_by"], "admin");
    auto record = fleet_->registry().get(agent);
    ASSERT_TRUE(record.ok());
    EXPECT_TRUE(record->quarantined);

    auto again = error(admin, "quarantine_device", {{"agent_id", agent}});
    EXPECT_EQ(again.code, kPermissionDenied) << "already quarantined";

    json run = ok(operator_token, "execute_instruction",
                  {{"plugin", "process"}, {"action", "list"}, {"agent_ids", {agent}}});
    answer_all(agent, "refused", "null");
    json status =
        ok(operator_token, "get_execution_status", {{"execution_id", run["execution_id"]}});
    ASSERT_EQ(status["agents"].size(), 1u);
    EXPECT_EQ(status["agents"][0]["state"], "refused");
    json rows = ok(operator_token, "query_responses", {{"execution_id", run["execution_id"]}});
    ASSERT_EQ(rows["rows"].size(), 1u);
    EXPECT_EQ(rows["rows"][0]["status"], "refused");
}

}  // namespace
}  // namespace yuzu::mcp::testing
