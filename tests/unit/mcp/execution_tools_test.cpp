// execute_instruction, get_execution_status, list_executions,
// query_responses, aggregate_responses, list_definitions and get_definition
// through the real pipeline over a real fleet and executions.db.
#include <gtest/gtest.h>

#include "execution_tools_fixture.hpp"
#include "yuzu/auth/management_group.hpp"
#include "yuzu/mcp/retry.hpp"

namespace yuzu::mcp::testing {
namespace {

TEST_F(ExecutionToolsTest, EveryToolIsRegisteredWithHonestAnnotations) {
    const std::vector<std::string> expected = {
        "list_definitions",  "get_definition",   "execute_instruction", "get_execution_status",
        "list_executions",   "query_responses",  "aggregate_responses", "execute_bundle",
        "get_bundle_result", "quarantine_device"};
    ASSERT_EQ(tools.tools().size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        const ToolSpec& tool = tools.tools()[i];
        SCOPED_TRACE(tool.name);
        EXPECT_EQ(tool.name, expected[i]);
        ASSERT_TRUE(tool.tier_key.has_value());
        EXPECT_EQ(tool.annotations.read_only, tool.tier_key->op == auth::Operation::kRead);
        EXPECT_TRUE(tool.output_schema.is_object());
    }
    // Gated at the supervised tier by the pipeline's approval step.
    EXPECT_TRUE(tools.find("execute_instruction")->approval_gated);
    EXPECT_TRUE(tools.find("execute_bundle")->approval_gated);
    EXPECT_TRUE(tools.find("quarantine_device")->approval_gated);
    EXPECT_FALSE(tools.find("get_execution_status")->approval_gated);
}

TEST_F(ExecutionToolsTest, OperatorRunsOnEveryReachableAgentAndPollsUntilReady) {
    const std::string a = enroll("web-01");
    const std::string b = enroll("web-02");
    json sc = ok(operator_token, "execute_instruction", {{"plugin", "OS"}, {"action", "Info"}});
    ASSERT_TRUE(sc.is_object());
    EXPECT_EQ(sc["plugin"], "os") << "plugin and action are lower-cased";
    EXPECT_EQ(sc["action"], "info");
    EXPECT_EQ(sc["agents_reached"], 2);
    EXPECT_EQ(sc["status"], "running");
    const std::string execution_id = sc["execution_id"];
    EXPECT_EQ(execution_id.size(), 32u);
    EXPECT_EQ(sc["command_id"].get<std::string>().rfind("os-", 0), 0u);

    json status = ok(operator_token, "get_execution_status", {{"execution_id", execution_id}});
    EXPECT_EQ(status["status"], "running");
    EXPECT_FALSE(status["ready"].get<bool>());
    EXPECT_EQ(status["retry_after_ms"], kMcpResultPollRetryMs);
    EXPECT_EQ(status["agents"].size(), 2u);
    json early = ok(operator_token, "query_responses", {{"execution_id", execution_id}});
    EXPECT_FALSE(early["ready"].get<bool>());
    EXPECT_TRUE(early["rows"].empty());

    answer_all(a, "success", R"({"kernel":"6.1.0-test","hostname":"web-01"})");
    answer_all(b, "success", R"({"kernel":"6.1.0-test","hostname":"web-02"})");
    status = ok(operator_token, "get_execution_status", {{"execution_id", execution_id}});
    EXPECT_EQ(status["status"], "succeeded");
    EXPECT_TRUE(status["ready"].get<bool>());
    EXPECT_FALSE(status.contains("retry_after_ms"));
    EXPECT_EQ(status["agents_targeted"], 2);
    EXPECT_EQ(status["agents_responded"], 2);
    EXPECT_EQ(status["agents_success"], 2);
    EXPECT_EQ(status["progress_pct"], 100);

    json rows = ok(operator_token, "query_responses", {{"execution_id", execution_id}});
    EXPECT_TRUE(rows["ready"].get<bool>());
    ASSERT_EQ(rows["rows"].size(), 2u);
    for (const auto& row : rows["rows"]) {
        EXPECT_EQ(row["execution_id"], execution_id);
        EXPECT_EQ(row["status"], "success");
        EXPECT_EQ(row["output"]["kernel"], "6.1.0-test") << "output is structured, not text";
    }
    json by_command = ok(operator_token, "query_responses", {{"instruction_id", sc["command_id"]}});
    EXPECT_EQ(by_command["rows"].size(), 2u);

    const std::string exposition = metrics.Serialize();
    EXPECT_NE(
        exposition.find(R"(yuzu_mcp_poll_total{result="not_ready",tool="get_execution_status"} 1)"),
        std::string::npos)
        << exposition;
    EXPECT_NE(
        exposition.find(R"(yuzu_mcp_poll_total{result="ready",tool="get_execution_status"} 1)"),
        std::string::npos);
    EXPECT_NE(exposition.find(R"(yuzu_mcp_poll_total{result="ready",tool="query_responses"} 2)"),
              std::string::npos);

    auto dispatch_rows = audit_rows("execution.dispatch");
    ASSERT_EQ(dispatch_rows.size(), 1u) << "one audit row per execution";
    EXPECT_EQ(dispatch_rows[0].target_id, execution_id);
    EXPECT_EQ(dispatch_rows[0].result, audit::AuditResult::kSuccess);
    EXPECT_NE(dispatch_rows[0].detail.find("command_id=" + sc["command_id"].get<std::string>()),
              std::string::npos);
}

TEST_F(ExecutionToolsTest, ParamsAreCheckedAgainstTheSchemaAndSentTyped) {
    const std::string a = enroll("db-01");
    auto bad = error(operator_token, "execute_instruction",
                     {{"plugin", "file"}, {"action", "hash"}, {"params", {{"path", 42}}}});
    EXPECT_EQ(bad.code, kInvalidParams);
    EXPECT_NE(bad.message.find("parameter_schema"), std::string::npos) << bad.message;
    auto unknown_param = error(operator_token, "execute_instruction",
                               {{"plugin", "os"}, {"action", "info"}, {"params", {{"x", 1}}}});
    EXPECT_EQ(unknown_param.code, kInvalidParams);
    EXPECT_TRUE(take(a).empty()) << "nothing is dispatched when the params are wrong";
    EXPECT_TRUE(audit_rows("execution.dispatch").empty());

    ok(operator_token, "execute_instruction",
       {{"plugin", "file"},
        {"action", "hash"},
        {"params", {{"path", "/etc/hostname"}, {"max_bytes", 4096}}},
        {"agent_ids", {a}}});
    auto queued = take(a);
    ASSERT_EQ(queued.size(), 1u);
    json params = json::parse(queued[0].params_json);
    EXPECT_TRUE(params["max_bytes"].is_number_integer()) << "values keep their JSON type";
    EXPECT_EQ(params["max_bytes"], 4096);
    EXPECT_EQ(params["path"], "/etc/hostname");
}

TEST_F(ExecutionToolsTest, NoAgentsReachedIsAResultAndUnknownAgentsAreRefused) {
    json none = ok(operator_token, "execute_instruction",
                   {{"plugin", "os"}, {"action", "info"}, {"scope", "hostname = \"nobody\""}});
    EXPECT_EQ(none["status"], "no_agents_reached");
    EXPECT_EQ(none["agents_reached"], 0);
    EXPECT_EQ(none["execution_status"], "cancelled");
    auto rows = audit_rows("execution.dispatch");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].result, audit::AuditResult::kFailure);

    const std::string ghost(32, 'a');
    auto refused = error(operator_token, "execute_instruction",
                         {{"plugin", "os"}, {"action", "info"}, {"agent_ids", {ghost}}});
    EXPECT_EQ(refused.code, kInvalidParams);
    EXPECT_EQ(refused.message, "agent not found: " + ghost);

    auto unknown = error(operator_token, "get_execution_status", {{"execution_id", ghost}});
    EXPECT_EQ(unknown.code, kInvalidParams);
    EXPECT_EQ(unknown.message, "execution not found: " + ghost);
    EXPECT_NE(metrics.Serialize().find(
                  R"(yuzu_mcp_poll_total{result="not_found",tool="get_execution_status"} 1)"),
              std::string::npos);
}

TEST_F(ExecutionToolsTest, TiersDecideBeforeAnythingRuns) {
    enroll("web-01");
    auto readonly = error(token_of("admin", "readonly"), "execute_instruction",
                          {{"plugin", "os"}, {"action", "info"}});
    EXPECT_EQ(readonly.code, kTierDenied);
    // No approval manager in this harness: the supervised tier's gate
    // degrades to -32004 without a ticket.
    auto supervised = error(token_of("admin", "supervised"), "execute_instruction",
                            {{"plugin", "os"}, {"action", "info"}});
    EXPECT_EQ(supervised.code, kTierDenied);
    auto quarantine =
        error(operator_token, "quarantine_device", {{"agent_id", std::string(32, 'b')}});
    EXPECT_EQ(quarantine.code, kTierDenied);
    EXPECT_TRUE(audit_rows("execution.dispatch").empty());
}

TEST_F(ExecutionToolsTest, ManagementGroupsBoundWhatAScopedOperatorReachesAndSees) {
    const std::string mine = enroll("web-01");
    const std::string theirs = enroll("db-01");
    ASSERT_TRUE(identity->users().create_user("carol", kPassword, {}).ok());
    auth::NewManagementGroup spec;
    spec.name = "web";
    spec.created_by = "admin";
    auto group = identity->groups().create(spec);
    ASSERT_TRUE(group.ok()) << group.status().to_string();
    ASSERT_TRUE(identity->groups().add_member(group->id, mine).ok());
    ASSERT_TRUE(identity->groups().assign_role(group->id, "user", "carol", "Operator").ok());
    const auto carol = token_of("carol", "operator");

    json sc = ok(carol, "execute_instruction", {{"plugin", "os"}, {"action", "info"}});
    EXPECT_EQ(sc["agents_targeted"], 1);
    EXPECT_EQ(take(mine).size(), 1u);
    EXPECT_TRUE(take(theirs).empty());

    auto outside = error(carol, "execute_instruction",
                         {{"plugin", "os"}, {"action", "info"}, {"agent_ids", {theirs}}});
    EXPECT_EQ(outside.message, "agent not found: " + theirs) << "reads exactly like unknown";

    json admins = ok(admin, "execute_instruction",
                     {{"plugin", "os"}, {"action", "info"}, {"agent_ids", {theirs}}});
    auto hidden = error(carol, "get_execution_status", {{"execution_id", admins["execution_id"]}});
    EXPECT_EQ(hidden.message, "execution not found: " + admins["execution_id"].get<std::string>());
    json listed = ok(carol, "list_executions");
    ASSERT_EQ(listed["executions"].size(), 1u) << listed.dump();
    EXPECT_EQ(listed["executions"][0]["execution_id"], sc["execution_id"]);
}

TEST_F(ExecutionToolsTest, AgentStatesArePagedInDispatchOrder) {
    std::vector<std::string> ids;
    for (int i = 0; i < 5; ++i) ids.push_back(enroll("web-0" + std::to_string(i)));
    json sc = ok(operator_token, "execute_instruction",
                 {{"plugin", "os"}, {"action", "info"}, {"agent_ids", ids}});
    const std::string id = sc["execution_id"];
    // Every agent, in dispatch order: what the pages must add up to.
    std::vector<std::string> order;
    auto states = executions->tracker().agent_states(id);
    ASSERT_TRUE(states.ok());
    for (const auto& s : *states) order.push_back(s.agent_id);
    ASSERT_EQ(order.size(), 5u);

    std::vector<std::string> walked;
    json args = {{"execution_id", id}, {"agents_limit", 2}};
    for (int page = 0; page < 5; ++page) {
        json status = ok(operator_token, "get_execution_status", args);
        EXPECT_EQ(status["agents_targeted"], 5) << "counts are of the whole execution";
        EXPECT_LE(status["agents"].size(), 2u);
        for (const auto& a : status["agents"]) walked.push_back(a["agent_id"]);
        if (!status.contains("agents_next_cursor")) break;
        args["agents_cursor"] = status["agents_next_cursor"];
    }
    EXPECT_EQ(walked, order);

    json defaults = ok(operator_token, "get_execution_status", {{"execution_id", id}});
    EXPECT_EQ(defaults["agents"].size(), 5u);
    EXPECT_FALSE(defaults.contains("agents_next_cursor"));
    json counts_only =
        ok(operator_token, "get_execution_status", {{"execution_id", id}, {"agents_limit", 0}});
    EXPECT_TRUE(counts_only["agents"].empty());
    EXPECT_EQ(counts_only["agents_targeted"], 5);
    EXPECT_FALSE(counts_only.contains("agents_next_cursor"));

    for (const json& bad : {json("x1"), json("-1"), json(""), json("1234567890")}) {
        auto refused = error(operator_token, "get_execution_status",
                             {{"execution_id", id}, {"agents_cursor", bad}});
        EXPECT_EQ(refused.code, kInvalidParams) << bad;
    }
    auto too_many = error(operator_token, "get_execution_status",
                          {{"execution_id", id}, {"agents_limit", 1001}});
    EXPECT_EQ(too_many.code, kInvalidParams);
}

TEST_F(ExecutionToolsTest, AScopedReaderPagesOnlyTheAgentsInItsGroups) {
    std::vector<std::string> ids;
    for (int i = 0; i < 4; ++i) ids.push_back(enroll("host-" + std::to_string(i)));
    ASSERT_TRUE(identity->users().create_user("carol", kPassword, {}).ok());
    auth::NewManagementGroup spec;
    spec.name = "odd";
    spec.created_by = "admin";
    auto group = identity->groups().create(spec);
    ASSERT_TRUE(group.ok()) << group.status().to_string();
    ASSERT_TRUE(identity->groups().add_member(group->id, ids[1]).ok());
    ASSERT_TRUE(identity->groups().add_member(group->id, ids[3]).ok());
    ASSERT_TRUE(identity->groups().assign_role(group->id, "user", "carol", "Operator").ok());
    const auto carol = token_of("carol", "operator");
    json sc = ok(admin, "execute_instruction",
                 {{"plugin", "os"}, {"action", "info"}, {"agent_ids", ids}});

    json first = ok(carol, "get_execution_status",
                    {{"execution_id", sc["execution_id"]}, {"agents_limit", 1}});
    ASSERT_EQ(first["agents"].size(), 1u) << first.dump();
    EXPECT_EQ(first["agents"][0]["agent_id"], ids[1]);
    ASSERT_TRUE(first.contains("agents_next_cursor"));
    json second = ok(carol, "get_execution_status",
                     {{"execution_id", sc["execution_id"]},
                      {"agents_limit", 1},
                      {"agents_cursor", first["agents_next_cursor"]}});
    ASSERT_EQ(second["agents"].size(), 1u) << second.dump();
    EXPECT_EQ(second["agents"][0]["agent_id"], ids[3]);
    EXPECT_FALSE(second.contains("agents_next_cursor")) << second.dump();
}

TEST_F(ExecutionToolsTest, AggregatesOverTheOutputRecords) {
    const std::string a = enroll("web-01");
    const std::string b = enroll("web-02");
    json sc =
        ok(operator_token, "execute_instruction", {{"plugin", "process"}, {"action", "list"}});
    answer_all(a, "success",
               R"([{"name":"sshd","rss_bytes":100},{"name":"nginx","rss_bytes":50}])");
    answer_all(b, "success", R"([{"name":"sshd","rss_bytes":300}])");
    json agg = ok(operator_token, "aggregate_responses",
                  {{"execution_id", sc["execution_id"]},
                   {"group_by", "name"},
                   {"aggregate", "sum"},
                   {"field", "rss_bytes"}});
    ASSERT_EQ(agg["groups"].size(), 2u) << agg.dump();
    EXPECT_EQ(agg["groups"][0]["group_value"], "sshd");
    EXPECT_EQ(agg["groups"][0]["count"], 2);
    EXPECT_EQ(agg["groups"][0]["aggregate_value"], 400.0);
    auto neither = error(operator_token, "aggregate_responses", {{"group_by", "name"}});
    EXPECT_EQ(neither.code, kInvalidParams);
}

TEST_F(ExecutionToolsTest, DefinitionsAreListedWithTheirSchemas) {
    json list = ok(token_of("admin", "readonly"), "list_definitions", {{"plugin", "file"}});
    ASSERT_EQ(list["definitions"].size(), 2u);
    json hash = ok(token_of("admin", "readonly"), "get_definition", {{"id", "file.hash"}});
    EXPECT_EQ(hash["parameter_schema"]["required"][0], "path");
    EXPECT_EQ(hash["type"], "question");
    auto missing = error(token_of("admin", "readonly"), "get_definition", {{"id", "nope.nothing"}});
    EXPECT_EQ(missing.code, kInvalidParams);
    EXPECT_EQ(missing.message, "definition not found: nope.nothing");
}

}  // namespace
}  // namespace yuzu::mcp::testing
