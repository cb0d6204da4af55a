// Instructions end to end: real yuzu-agent processes (--virtual N) against a
// real yuzu-server, driven over MCP and REST — dispatch and result polling,
// offline and stopped agents, bundles and their owners, quarantine and
// instruction definitions.
#include <gtest/gtest.h>
#include <signal.h>

#include "execution_test_helpers.hpp"

namespace yuzu::testing::fleet {
namespace {

using identity::bearer;
using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;

TEST(Executions, OsInfoOnFiveVirtualAgentsMatchesTheHostKernel) {
    FleetFixture f;
    const std::string& op = f.mcp_tokens["operator"];
    auto agents = f.start_agents(5, f.enrollment_token());
    ASSERT_TRUE(wait_for([&] { return f.online_count(op) == 5; }, seconds(30))) << agents->log();

    json sc = f.mcp_ok(op, "execute_instruction", {{"plugin", "os"}, {"action", "info"}});
    ASSERT_TRUE(sc.is_object());
    EXPECT_EQ(sc["agents_reached"], 5);
    EXPECT_EQ(sc["plugin"], "os");
    EXPECT_EQ(sc["action"], "info");
    const std::string execution_id = sc["execution_id"];

    json status = poll_until_ready(f, op, "get_execution_status", {{"execution_id", execution_id}});
    EXPECT_EQ(status["status"], "succeeded") << status.dump();
    EXPECT_EQ(status["agents_targeted"], 5);
    EXPECT_EQ(status["agents_responded"], 5);
    EXPECT_EQ(status["agents_success"], 5);
    EXPECT_EQ(status["progress_pct"], 100);

    json rows = f.mcp_ok(op, "query_responses", {{"execution_id", execution_id}});
    EXPECT_TRUE(rows["ready"].get<bool>());
    ASSERT_EQ(rows["rows"].size(), 5u) << rows.dump();
    std::set<std::string> answered;
    for (const auto& row : rows["rows"]) {
        EXPECT_EQ(row["execution_id"], execution_id);
        EXPECT_EQ(row["status"], "success") << row.dump();
        EXPECT_EQ(row["output"]["kernel"], kernel_release()) << row.dump();
        answered.insert(row["agent_id"].get<std::string>());
    }
    EXPECT_EQ(answered, agent_ids(f, op));

    // The REST twins answer the same rows.
    json rest_rows = rest_json(
        f.client->Get("/api/v1/responses?execution_id=" + execution_id, bearer(f.admin_token)),
        200);
    EXPECT_EQ(rest_rows["rows"].size(), 5u);
    EXPECT_TRUE(rest_rows["ready"].get<bool>());
    json by_kernel =
        rest_json(f.client->Get("/api/v1/responses/aggregate?execution_id=" + execution_id +
                                    "&group_by=kernel",
                                bearer(f.admin_token)),
                  200);
    ASSERT_EQ(by_kernel["groups"].size(), 1u) << by_kernel.dump();
    EXPECT_EQ(by_kernel["groups"][0]["group_value"], kernel_release());
    EXPECT_EQ(by_kernel["groups"][0]["count"], 5);

    // The supervised tier needs a human's approval and the readonly tier may
    // not run instructions at all: neither dispatches anything.
    for (const char* tier : {"readonly", "supervised"}) {
        json refused = f.mcp(f.mcp_tokens[tier], "execute_instruction",
                             {{"plugin", "os"}, {"action", "info"}});
        ASSERT_TRUE(refused.contains("error")) << tier << ": " << refused.dump();
        const int code = refused["error"]["code"];
        EXPECT_TRUE(code == -32004 || code == -32006) << tier << ": " << refused.dump();
    }
    EXPECT_EQ(f.mcp_ok(op, "list_executions")["executions"].size(), 1u);

    // REST with an MCP token obeys the tiers like every route.
    const json body = {{"plugin", "os"}, {"action", "info"}};
    for (const char* tier : {"readonly", "supervised"}) {
        auto res = f.client->Post("/api/v1/executions", bearer(f.mcp_tokens[tier]), body.dump(),
                                  "application/json");
        ASSERT_TRUE(res);
        EXPECT_EQ(res->status, 403) << tier << ": " << res->body;
    }
    auto audit = identity::audit_events(*f.client, f.admin_token,
                                        "action=execution.dispatch&target_id=" + execution_id);
    EXPECT_EQ(audit.size(), 1u) << audit.dump();
}

TEST(Executions, StoppedAgentsAreSettledWithinTheTimeoutNotWaitedFor) {
    FleetFixture f({"--execution-timeout", "5"});
    const std::string& op = f.mcp_tokens["operator"];
    const std::string token = f.enrollment_token();
    auto pair = f.start_agents(2, token);
    ASSERT_TRUE(wait_for([&] { return f.online_count(op) == 2; }, seconds(30))) << pair->log();
    const auto first_two = agent_ids(f, op);
    auto single = f.start_agents(1, token);
    ASSERT_TRUE(wait_for([&] { return f.online_count(op) == 3; }, seconds(30))) << single->log();
    std::string stopped;
    for (const auto& id : agent_ids(f, op)) {
        if (!first_two.count(id)) stopped = id;
    }
    ASSERT_FALSE(stopped.empty());

    // A clean stop signs off: the agent is offline at once and recorded so.
    ASSERT_EQ(single->signal_and_wait(SIGTERM), 0) << single->log();
    ASSERT_TRUE(wait_for([&] { return f.online_count(op) == 2; }, seconds(5)));
    const auto registered = agent_ids(f, op);
    const std::vector<std::string> all(registered.begin(), registered.end());
    const auto started = steady_clock::now();
    json sc = f.mcp_ok(op, "execute_instruction",
                       {{"plugin", "os"}, {"action", "info"}, {"agent_ids", all}});
    EXPECT_EQ(sc["agents_targeted"], 3);
    EXPECT_EQ(sc["agents_reached"], 2);
    EXPECT_EQ(sc["agents_offline"], 1);
    json status = poll_until_ready(f, op, "get_execution_status",
                                   {{"execution_id", sc["execution_id"]}}, seconds(20));
    EXPECT_LT(steady_clock::now() - started, seconds(10));
    EXPECT_EQ(status["status"], "completed_with_errors") << status.dump();
    EXPECT_EQ(status["agents_success"], 2);
    for (const auto& a : status["agents"]) {
        EXPECT_EQ(a["state"], a["agent_id"] == stopped ? "offline" : "responded") << a.dump();
    }

    // Killed without a goodbye: the registry may still think it is online,
    // so the command is queued and the execution timeout settles it.
    auto doomed = f.start_agents(1, token);
    ASSERT_TRUE(wait_for([&] { return f.online_count(op) == 3; }, seconds(30))) << doomed->log();
    std::string killed;
    for (const auto& id : agent_ids(f, op)) {
        if (!first_two.count(id) && id != stopped) killed = id;
    }
    ASSERT_EQ(doomed->signal_and_wait(SIGKILL), 128 + SIGKILL);
    const auto dispatched_at = steady_clock::now();
    json sc2 = f.mcp_ok(op, "execute_instruction",
                        {{"plugin", "os"}, {"action", "info"}, {"agent_ids", {killed}}});
    json status2 = poll_until_ready(f, op, "get_execution_status",
                                    {{"execution_id", sc2["execution_id"]}}, seconds(20));
    EXPECT_LT(steady_clock::now() - dispatched_at, seconds(12)) << "bounded by the 5 s timeout";
    ASSERT_EQ(status2["agents"].size(), 1u);
    const std::string state = status2["agents"][0]["state"];
    EXPECT_TRUE(state == "timed_out" || state == "offline") << status2.dump();
    EXPECT_EQ(status2["status"], "failed");
}

TEST(Executions, BundleStepsCollateInRequestOrderAndOnlyTheOwnerReadsThem) {
    FleetFixture f;
    const std::string& op = f.mcp_tokens["operator"];
    auto agents = f.start_agents(1, f.enrollment_token());
    ASSERT_TRUE(wait_for([&] { return f.online_count(op) == 1; }, seconds(30))) << agents->log();
    const std::string agent = *agent_ids(f, op).begin();

    json sc =
        f.mcp_ok(op, "execute_bundle",
                 {{"agent_id", agent},
                  {"steps",
                   {{{"plugin", "os"}, {"action", "info"}},
                    {{"plugin", "reboot"}, {"action", "pending"}},
                    {{"plugin", "disk"}, {"action", "usage"}, {"params", {{"path", "/"}}}}}}});
    const std::string bundle_id = sc["bundle_id"];
    EXPECT_EQ(sc["expected"], 3);
    json result = poll_until_ready(f, op, "get_bundle_result", {{"bundle_id", bundle_id}});
    EXPECT_TRUE(result["complete"].get<bool>());
    EXPECT_EQ(result["received"], 3);
    ASSERT_EQ(result["steps"].size(), 3u);
    const char* order[][2] = {{"os", "info"}, {"reboot", "pending"}, {"disk", "usage"}};
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(result["steps"][i]["plugin"], order[i][0]);
        EXPECT_EQ(result["steps"][i]["action"], order[i][1]);
        EXPECT_EQ(result["steps"][i]["state"], "responded") << result.dump();
    }
    EXPECT_EQ(result["steps"][0]["output"]["kernel"], kernel_release());

    // Another principal gets exactly what an unknown id gets, over MCP and REST.
    identity::create_user(*f.client, f.admin_token, "bob", "bob-password-long-enough",
                          {"Operator"});
    auto bob = identity::login(*f.client, "bob", "bob-password-long-enough");
    const std::string bob_mcp =
        identity::create_token(*f.client, bob, "bob-op", "operator", identity::now_s() + 86400);
    const std::string bob_api = identity::create_token(*f.client, bob, "bob-api");
    json stranger = f.mcp(bob_mcp, "get_bundle_result", {{"bundle_id", bundle_id}});
    json unknown =
        f.mcp(bob_mcp, "get_bundle_result", {{"bundle_id", "bundle-" + std::string(32, '0')}});
    ASSERT_TRUE(stranger.contains("error")) << stranger.dump();
    ASSERT_TRUE(unknown.contains("error")) << unknown.dump();
    EXPECT_EQ(stranger["error"]["code"], -32602);
    EXPECT_EQ(stranger["error"]["code"], unknown["error"]["code"]);
    EXPECT_EQ(stranger["error"]["message"], unknown["error"]["message"]);
    auto rest_stranger = f.client->Get("/api/v1/bundles/" + bundle_id, bearer(bob_api));
    auto rest_unknown =
        f.client->Get("/api/v1/bundles/bundle-" + std::string(32, '0'), bearer(bob_api));
    ASSERT_TRUE(rest_stranger && rest_unknown);
    EXPECT_EQ(rest_stranger->status, 404);
    EXPECT_EQ(rest_unknown->status, 404);
    EXPECT_EQ(json::parse(rest_stranger->body)["error"]["message"],
              json::parse(rest_unknown->body)["error"]["message"]);
    auto owner = f.client->Get("/api/v1/bundles/" + bundle_id, bearer(f.admin_token));
    EXPECT_EQ(rest_json(owner, 200)["steps"].size(), 3u);

    auto step_rows = identity::audit_events(*f.client, f.admin_token, "action=bundle.*");
    std::set<std::string> actions;
    for (const auto& row : step_rows) actions.insert(row["action"].get<std::string>());
    EXPECT_TRUE(actions.count("bundle.os.info") && actions.count("bundle.reboot.pending") &&
                actions.count("bundle.disk.usage"))
        << step_rows.dump();
}

TEST(Executions, AQuarantinedAgentRefusesAndTheRefusalIsVisible) {
    FleetFixture f;
    const std::string& op = f.mcp_tokens["operator"];
    auto agents = f.start_agents(1, f.enrollment_token());
    ASSERT_TRUE(wait_for([&] { return f.online_count(op) == 1; }, seconds(30))) << agents->log();
    const std::string agent = *agent_ids(f, op).begin();
    const std::string path = "/api/v1/agents/" + agent + "/quarantine";

    auto by_mcp_token = f.client->Post(path, bearer(op), "{}", "application/json");
    ASSERT_TRUE(by_mcp_token);
    EXPECT_EQ(by_mcp_token->status, 403) << "the operator tier cannot quarantine";
    json q = rest_json(f.client->Post(path, bearer(f.admin_token),
                                      json{{"reason", "incident 42"}}.dump(), "application/json"),
                       200);
    EXPECT_TRUE(q["quarantined"].get<bool>());
    EXPECT_EQ(q["reason"], "incident 42");
    json shown = rest_json(f.client->Get("/api/v1/agents/" + agent, bearer(f.admin_token)), 200);
    EXPECT_TRUE(shown["quarantined"].get<bool>()) << "the registry shows it";

    json sc = f.mcp_ok(op, "execute_instruction",
                       {{"plugin", "process"}, {"action", "list"}, {"agent_ids", {agent}}});
    json status =
        poll_until_ready(f, op, "get_execution_status", {{"execution_id", sc["execution_id"]}});
    ASSERT_EQ(status["agents"].size(), 1u);
    EXPECT_EQ(status["agents"][0]["state"], "refused") << status.dump();
    EXPECT_EQ(status["status"], "failed");
    json rest =
        rest_json(f.client->Get("/api/v1/executions/" + sc["execution_id"].get<std::string>(),
                                bearer(f.admin_token)),
                  200);
    ASSERT_EQ(rest["agents"].size(), 1u);
    EXPECT_EQ(rest["agents"][0]["state"], "refused");
    json rows = f.mcp_ok(op, "query_responses", {{"execution_id", sc["execution_id"]}});
    ASSERT_EQ(rows["rows"].size(), 1u);
    EXPECT_EQ(rows["rows"][0]["status"], "refused");
    EXPECT_EQ(rows["rows"][0]["output"], nullptr) << "nothing ran";

    // Released, it runs instructions again.
    json released = rest_json(f.client->Delete(path, bearer(f.admin_token)), 200);
    EXPECT_FALSE(released["quarantined"].get<bool>());
    json again = f.mcp_ok(op, "execute_instruction",
                          {{"plugin", "os"}, {"action", "info"}, {"agent_ids", {agent}}});
    json after =
        poll_until_ready(f, op, "get_execution_status", {{"execution_id", again["execution_id"]}});
    EXPECT_EQ(after["status"], "succeeded") << after.dump();
    json history = rest_json(f.client->Get(path, bearer(f.admin_token)), 200);
    EXPECT_EQ(history["history"].size(), 2u) << history.dump();
}

TEST(Executions, DefinitionsAreManagedOverRestAndGateDispatch) {
    FleetFixture f;
    const auto admin = bearer(f.admin_token);
    json list = rest_json(f.client->Get("/api/v1/definitions", admin), 200);
    EXPECT_EQ(list["definitions"].size(), 13u) << "the built-in catalogue";

    const json custom = {{"id", "custom.probe"},
                         {"name", "Probe"},
                         {"plugin", "custom"},
                         {"action", "probe"},
                         {"parameter_schema",
                          {{"type", "object"},
                           {"properties", {{"n", {{"type", "integer"}, {"minimum", 1}}}}},
                           {"additionalProperties", false}}}};
    json created = rest_json(
        f.client->Post("/api/v1/definitions", admin, custom.dump(), "application/json"), 201);
    EXPECT_EQ(created["version"], 1);
    EXPECT_EQ(created["parameter_schema"]["properties"]["n"]["minimum"], 1);
    json unenforceable = custom;
    unenforceable["id"] = "custom.other";
    unenforceable["action"] = "other";
    unenforceable["parameter_schema"]["properties"]["n"]["dependentRequired"] = json::object();
    auto refused =
        f.client->Post("/api/v1/definitions", admin, unenforceable.dump(), "application/json");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 400) << refused->body;

    json renamed = custom;
    renamed["name"] = "Probe v2";
    json updated = rest_json(f.client->Put("/api/v1/definitions/custom.probe", admin,
                                           renamed.dump(), "application/json"),
                             200);
    EXPECT_EQ(updated["version"], 2);
    EXPECT_EQ(updated["name"], "Probe v2");

    // Parameters are checked against the schema before anything runs; a
    // disabled definition does not run at all.
    auto dispatch = [&](const json& params) {
        return f.client->Post(
            "/api/v1/executions", admin,
            json{{"plugin", "custom"}, {"action", "probe"}, {"params", params}}.dump(),
            "application/json");
    };
    auto bad = dispatch({{"n", 0}});
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400) << bad->body;
    EXPECT_NE(bad->body.find("parameter_schema"), std::string::npos) << bad->body;
    json disabled = rest_json(
        f.client->Post("/api/v1/definitions/custom.probe/disable", admin, "", "application/json"),
        200);
    EXPECT_FALSE(disabled["enabled"].get<bool>());
    auto off = dispatch({{"n", 2}});
    ASSERT_TRUE(off);
    EXPECT_EQ(off->status, 409) << off->body;
    rest_json(
        f.client->Post("/api/v1/definitions/custom.probe/enable", admin, "", "application/json"),
        200);
    json nobody = rest_json(dispatch({{"n", 2}}), 201);
    EXPECT_EQ(nobody["status"], "no_agents_reached") << "no agents enrolled";
    EXPECT_EQ(nobody["definition_id"], "custom.probe");

    auto builtin = f.client->Delete("/api/v1/definitions/os.info", admin);
    ASSERT_TRUE(builtin);
    EXPECT_EQ(builtin->status, 409) << builtin->body;
    auto gone = f.client->Delete("/api/v1/definitions/custom.probe", admin);
    ASSERT_TRUE(gone);
    EXPECT_EQ(gone->status, 204);
    auto viewer_write = f.client->Post("/api/v1/definitions", bearer(f.mcp_tokens["readonly"]),
                                       custom.dump(), "application/json");
    ASSERT_TRUE(viewer_write);
    EXPECT_EQ(viewer_write->status, 403);
    auto audit = identity::audit_events(*f.client, f.admin_token, "action=definition.*");
    EXPECT_GE(audit.size(), 6u) << audit.dump();
}

}  // namespace
}  // namespace yuzu::testing::fleet
