// The agent plane spoken directly (no yuzu-agent): enrollment and device
// tokens, inventory reports, and the fleet MCP tools over them, including
// management-group scoping.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <thread>

#include "fleet_test_helpers.hpp"

namespace yuzu::testing::fleet {
namespace {

using identity::bearer;

struct RawAgent {
    std::string agent_id;
    std::string device_token;
};

httplib::Result enroll_request(FleetFixture& f, const std::string& token,
                               const std::string& hostname) {
    httplib::Client agent_plane(f.server->agent_url());
    return agent_plane.Post("/agent/v1/enroll",
                            json{{"enrollment_token", token},
                                 {"hostname", hostname},
                                 {"os", "linux"},
                                 {"arch", "x86_64"},
                                 {"agent_version", "test"}}
                                .dump(),
                            "application/json");
}

RawAgent enroll(FleetFixture& f, const std::string& token, const std::string& hostname) {
    auto res = enroll_request(f, token, hostname);
    EXPECT_TRUE(res);
    if (!res) return {};
    EXPECT_EQ(res->status, 201) << res->body;
    auto j = json::parse(res->body);
    EXPECT_GT(j["heartbeat_interval_s"].get<int>(), 0);
    return {j.value("agent_id", ""), j.value("device_token", "")};
}

httplib::Result agent_post(FleetFixture& f, const RawAgent& a, const std::string& path,
                           const json& body) {
    httplib::Client agent_plane(f.server->agent_url());
    return agent_plane.Post(path, bearer(a.device_token), body.dump(), "application/json");
}

int heartbeat(FleetFixture& f, const RawAgent& a) {
    auto res = agent_post(
        f, a, "/agent/v1/heartbeat",
        {{"hostname", "h"}, {"os", "linux"}, {"arch", "x86_64"}, {"agent_version", "test"}});
    return res ? res->status : -1;
}

TEST(FleetProtocol, RevokedDeviceTokenIsRefusedAtTheNextRequest) {
    FleetFixture f;
    RawAgent a = enroll(f, f.enrollment_token(), "web-01");
    ASSERT_EQ(a.agent_id.size(), 32u);
    EXPECT_EQ(a.device_token.rfind("yuzu_", 0), 0u);
    EXPECT_EQ(heartbeat(f, a), 200);

    auto revoke =
        f.client->Delete("/api/v1/agents/" + a.agent_id + "/device-token", bearer(f.admin_token));
    ASSERT_TRUE(revoke);
    ASSERT_EQ(revoke->status, 204) << revoke->body;
    auto refused = agent_post(f, a, "/agent/v1/heartbeat", json::object());
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 401);
    EXPECT_TRUE(refused->has_header("WWW-Authenticate"));

    RawAgent forged{a.agent_id, "yuzu_" + std::string(32, 'A')};
    EXPECT_EQ(heartbeat(f, forged), 401);
}

TEST(FleetProtocol, EnrollmentTokensAreLimitedAndFailuresLookAlike) {
    FleetFixture f;
    const std::string once = f.enrollment_token(1);
    enroll(f, once, "a");
    auto used_up = enroll_request(f, once, "b");
    auto bogus = enroll_request(f, "yuzu_" + std::string(32, 'z'), "c");
    ASSERT_TRUE(used_up && bogus);
    EXPECT_EQ(used_up->status, 401);
    EXPECT_EQ(bogus->status, 401);
    // One message for every refusal: no oracle for which tokens exist.
    EXPECT_EQ(json::parse(used_up->body)["error"]["message"],
              json::parse(bogus->body)["error"]["message"]);

    auto bad_field = enroll_request(f, f.enrollment_token(), std::string("bad\nhost"));
    ASSERT_TRUE(bad_field);
    EXPECT_EQ(bad_field->status, 400) << bad_field->body;

    auto listed = f.client->Get("/api/v1/enrollment-tokens", bearer(f.admin_token));
    ASSERT_TRUE(listed);
    EXPECT_EQ(listed->status, 200);
    EXPECT_EQ(listed->body.find("yuzu_"), std::string::npos) << "secrets are never listed";
}

TEST(FleetProtocol, CliCreatesEnrollmentTokensForARunningServer) {
    FleetFixture f;
    std::string out;
    ASSERT_EQ(run_command({bin_path("yuzu-server"), "enroll-token", "create", "--data-dir",
                           f.server->data_dir(), "--max-uses", "2", "--note", "cli test"},
                          &out),
              0)
        << out;
    json j = json::parse(out);
    EXPECT_EQ(j["id"].get<std::string>().size(), 24u);
    EXPECT_GT(j["expires_at"].get<int64_t>(), identity::now_s());
    RawAgent a = enroll(f, j["token"], "from-cli");
    EXPECT_EQ(heartbeat(f, a), 200);

    EXPECT_EQ(run_command({bin_path("yuzu-server"), "enroll-token", "create", "--data-dir",
                           f.server->data_dir(), "--ttl", "0"},
                          &out),
              2)
        << out;
    auto events =
        identity::audit_events(*f.client, f.admin_token, "action=enrollment_token.create");
    EXPECT_GE(events.size(), 1u);
}

TEST(FleetProtocol, InventoryReportsAnswerTheInventoryTools) {
    FleetFixture f;
    RawAgent a = enroll(f, f.enrollment_token(), "db-01");
    json report = {
        {"collected_at", identity::now_s() * 1000},
        {"sources",
         {{"kernel", {{"status", "ok"}, {"data", {{"release", "6.1.0-test"}}}}},
          {"packages",
           {{"status", "ok"},
            {"data", json::array({{{"name", "openssl"}, {"version", "3.0.15"}, {"arch", "amd64"}},
                                  {{"name", "curl"}, {"version", "7.88"}, {"arch", "amd64"}}})}}},
          {"systemd_units", {{"status", "unavailable"}, {"reason", "systemctl not found"}}}}}};
    auto res = agent_post(f, a, "/agent/v1/inventory", report);
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 204) << res->body;

    const std::string& reader = f.mcp_tokens["readonly"];
    json sw = f.mcp_ok(reader, "query_installed_software", {{"name", "openssl"}});
    ASSERT_EQ(sw["software"].size(), 1u) << sw.dump();
    EXPECT_EQ(sw["software"][0]["version"], "3.0.15");
    EXPECT_EQ(sw["devices_omitted"], 0);

    json tables = f.mcp_ok(reader, "list_inventory_tables");
    EXPECT_EQ(tables["tables"].size(), 3u) << tables.dump();

    json rows = f.mcp_ok(reader, "query_inventory", {{"source", "systemd_units"}});
    ASSERT_EQ(rows["rows"].size(), 1u);
    EXPECT_EQ(rows["rows"][0]["status"], "unavailable");
    EXPECT_EQ(rows["rows"][0]["reason"], "systemctl not found");

    auto bad = agent_post(f, a, "/agent/v1/inventory", {{"sources", {{"Bad Name", {}}}}});
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400);
}

json digest_only(const std::string& sha) {
    return {{"collected_at", identity::now_s() * 1000}, {"sources_sha256", sha}};
}

TEST(FleetProtocol, ADigestOnlyReportIsConfirmedOrAnsweredWithARequestForTheSources) {
    FleetFixture f;
    RawAgent a = enroll(f, f.enrollment_token(), "web-01");
    const std::string first(64, 'a');
    auto unknown = agent_post(f, a, "/agent/v1/inventory", digest_only(first));
    ASSERT_TRUE(unknown);
    ASSERT_EQ(unknown->status, 200) << unknown->body;
    EXPECT_EQ(json::parse(unknown->body), json({{"send_sources", true}}));

    json full = {{"collected_at", identity::now_s() * 1000},
                 {"sources_sha256", first},
                 {"sources", {{"kernel", {{"status", "ok"}, {"data", {{"release", "6.1"}}}}}}}};
    auto written = agent_post(f, a, "/agent/v1/inventory", full);
    ASSERT_TRUE(written);
    EXPECT_EQ(written->status, 204) << written->body;

    auto same = agent_post(f, a, "/agent/v1/inventory", digest_only(first));
    ASSERT_TRUE(same);
    EXPECT_EQ(same->status, 204) << same->body;
    auto changed = agent_post(f, a, "/agent/v1/inventory", digest_only(std::string(64, 'b')));
    ASSERT_TRUE(changed);
    EXPECT_EQ(changed->status, 200) << changed->body;

    auto bad = agent_post(f, a, "/agent/v1/inventory", digest_only("ABC"));
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400) << bad->body;
}

// The server asks for at most 20 full inventories a second, and for a tenth
// of that while agents are answering an execution (a result recorded in the
// last second).
TEST(FleetProtocol, FewerInventoriesAreAskedForWhileAgentsAnswer) {
    FleetFixture f;
    const std::string token = f.enrollment_token();
    std::vector<RawAgent> agents;
    for (int i = 0; i < 20; ++i) agents.push_back(enroll(f, token, "host-" + std::to_string(i)));
    // Let the bucket fill (one second's worth: 20).
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    const auto invited = [&](size_t from, size_t to, int* deferred) {
        int yes = 0;
        for (size_t i = from; i < to; ++i) {
            auto res =
                agent_post(f, agents[i], "/agent/v1/inventory", digest_only(std::string(64, 'c')));
            EXPECT_TRUE(res);
            if (!res) continue;
            if (res->status == 200) {
                ++yes;
            } else {
                EXPECT_EQ(res->status, 503) << res->body;
                EXPECT_EQ(res->get_header_value("Retry-After"), "60");
                ++*deferred;
            }
        }
        return yes;
    };
    int deferred = 0;
    EXPECT_EQ(invited(0, 10, &deferred), 10);
    EXPECT_EQ(deferred, 0);

    // An agent answers an execution.
    json started = f.mcp_ok(
        f.mcp_tokens["operator"], "execute_instruction",
        {{"plugin", "os"}, {"action", "info"}, {"agent_ids", json::array({agents[0].agent_id})}});
    ASSERT_TRUE(started.contains("execution_id")) << started.dump();
    httplib::Client agent_plane(f.server->agent_url());
    auto polled = agent_plane.Get("/agent/v1/commands?wait_s=0", bearer(agents[0].device_token));
    ASSERT_TRUE(polled);
    ASSERT_EQ(polled->status, 200) << polled->body;
    const json commands = json::parse(polled->body)["commands"];
    ASSERT_EQ(commands.size(), 1u) << polled->body;
    auto result = agent_post(f, agents[0], "/agent/v1/results",
                             {{"command_id", commands[0]["command_id"]},
                              {"status", "success"},
                              {"output", json::object()}});
    ASSERT_TRUE(result);
    ASSERT_EQ(result->status, 204) << result->body;
    EXPECT_LE(invited(10, 20, &deferred), 3);
    EXPECT_GE(deferred, 7);

    // A digest-only report padded past 16 KiB goes through the background
    // writer; refused there too, its error still carries the request's id.
    json padded = digest_only(std::string(64, 'd'));
    padded["padding"] = std::string(20 * 1024, 'x');
    auto refused = agent_post(f, agents[19], "/agent/v1/inventory", padded);
    ASSERT_TRUE(refused);
    ASSERT_EQ(refused->status, 503) << refused->body;
    EXPECT_EQ(refused->get_header_value("Retry-After"), "60");
    const std::string id = refused->get_header_value("X-Correlation-Id");
    EXPECT_FALSE(id.empty());
    EXPECT_EQ(json::parse(refused->body)["error"]["correlation_id"], id) << refused->body;
}

// POST /agent/v1/results?wait_s= records the result, then answers as the
// agent's next long-poll.
TEST(FleetProtocol, AResultWithWaitIsAnsweredAsTheNextPoll) {
    FleetFixture f;
    RawAgent a = enroll(f, f.enrollment_token(), "web-01");
    const std::string& op = f.mcp_tokens["operator"];
    const json only_a = {
        {"plugin", "os"}, {"action", "info"}, {"agent_ids", json::array({a.agent_id})}};
    json first = f.mcp_ok(op, "execute_instruction", only_a);
    httplib::Client agent_plane(f.server->agent_url());
    agent_plane.set_read_timeout(10, 0);
    auto polled = agent_plane.Get("/agent/v1/commands?wait_s=0", bearer(a.device_token));
    ASSERT_TRUE(polled);
    const json delivered = json::parse(polled->body)["commands"];
    ASSERT_EQ(delivered.size(), 1u) << polled->body;
    json second = f.mcp_ok(op, "execute_instruction", only_a);

    const auto result_of = [](const json& command) {
        return json{{"command_id", command["command_id"]},
                    {"status", "success"},
                    {"output", {{"kernel", "test"}}}}
            .dump();
    };
    // A command is queued: the answer carries it at once.
    auto chained = agent_plane.Post("/agent/v1/results?wait_s=5", bearer(a.device_token),
                                    result_of(delivered[0]), "application/json");
    ASSERT_TRUE(chained);
    ASSERT_EQ(chained->status, 200) << chained->body;
    const json next = json::parse(chained->body);
    ASSERT_EQ(next["commands"].size(), 1u) << chained->body;
    EXPECT_EQ(next["commands"][0]["execution_id"], second["execution_id"]);
    EXPECT_EQ(next["quarantined"], false);
    json status = f.mcp_ok(op, "get_execution_status", {{"execution_id", first["execution_id"]}});
    EXPECT_EQ(status["status"], "succeeded") << "the 200 came after the result was recorded";

    // Nothing queued: held like a poll, then an empty list.
    const auto t0 = std::chrono::steady_clock::now();
    auto held = agent_plane.Post("/agent/v1/results?wait_s=1", bearer(a.device_token),
                                 result_of(next["commands"][0]), "application/json");
    ASSERT_TRUE(held);
    ASSERT_EQ(held->status, 200) << held->body;
    EXPECT_TRUE(json::parse(held->body)["commands"].empty());
    EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(900));
    status = f.mcp_ok(op, "get_execution_status", {{"execution_id", second["execution_id"]}});
    EXPECT_EQ(status["status"], "succeeded");
    // The hold is a long-poll's time, not the route's latency.
    auto metrics = f.client->Get("/metrics");
    ASSERT_TRUE(metrics);
    const auto sample = [&](const std::string& series) {
        const size_t at = metrics->body.find(series + " ");
        return at == std::string::npos ? -1.0 : std::stod(metrics->body.substr(at + series.size()));
    };
    EXPECT_GE(sample("yuzu_http_long_poll_duration_seconds_sum{listener=\"agent\",route=\"/"
                     "agent/v1/results\"}"),
              0.9);
    const double latency = sample(
        "yuzu_http_request_duration_seconds_sum{listener=\"agent\",method=\"POST\",route=\"/"
        "agent/v1/results\"}");
    EXPECT_GE(latency, 0.0);
    EXPECT_LT(latency, 0.9);

    // A duplicate is acknowledged the same way; a bad wait_s is refused.
    auto again = agent_plane.Post("/agent/v1/results?wait_s=0", bearer(a.device_token),
                                  result_of(delivered[0]), "application/json");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->status, 200) << again->body;
    for (const char* bad : {"-1", "x", ""}) {
        auto refused =
            agent_plane.Post(std::string("/agent/v1/results?wait_s=") + bad, bearer(a.device_token),
                             result_of(delivered[0]), "application/json");
        ASSERT_TRUE(refused);
        EXPECT_EQ(refused->status, 400) << bad;
    }
    auto plain = agent_plane.Post("/agent/v1/results", bearer(a.device_token),
                                  result_of(delivered[0]), "application/json");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->status, 204);
}

TEST(FleetProtocol, TagsAndScopesOverMcp) {
    FleetFixture f;
    const std::string token = f.enrollment_token();
    RawAgent web = enroll(f, token, "web-01");
    RawAgent db = enroll(f, token, "db-01");
    const std::string& op = f.mcp_tokens["operator"];
    const std::string& reader = f.mcp_tokens["readonly"];

    json set =
        f.mcp_ok(op, "set_tag", {{"agent_id", web.agent_id}, {"key", "env"}, {"value", "prod"}});
    EXPECT_EQ(set["set"], true);
    json denied =
        f.mcp(reader, "set_tag", {{"agent_id", db.agent_id}, {"key", "env"}, {"value", "x"}});
    EXPECT_EQ(denied["error"]["code"], -32004) << "readonly tier cannot write";

    json preview = f.mcp_ok(reader, "preview_scope_targets",
                            {{"expression", "tag:env = \"prod\" OR hostname LIKE \"db-%\""}});
    EXPECT_EQ(preview["matched_count"], 2);
    preview = f.mcp_ok(reader, "preview_scope_targets", {{"expression", "tag:env EXISTS"}});
    EXPECT_EQ(preview["matched_agents"], json::array({web.agent_id}));

    json scoped = f.mcp_ok(reader, "list_agents", {{"scope", "NOT tag:env = \"prod\""}});
    ASSERT_EQ(scoped["agents"].size(), 1u);
    EXPECT_EQ(scoped["agents"][0]["agent_id"], db.agent_id);

    json invalid = f.mcp_ok(reader, "validate_scope", {{"expression", "os = "}});
    EXPECT_EQ(invalid["valid"], false);
    EXPECT_EQ(invalid["position"], 5);
    json valid = f.mcp_ok(reader, "validate_scope", {{"expression", "os=\"linux\""}});
    EXPECT_EQ(valid["valid"], true);

    json found = f.mcp_ok(reader, "search_agents_by_tag", {{"key", "env"}, {"value", "prod"}});
    EXPECT_EQ(found["agent_ids"], json::array({web.agent_id}));
    json tags = f.mcp_ok(reader, "get_tags", {{"agent_id", web.agent_id}});
    ASSERT_EQ(tags["tags"].size(), 1u);
    EXPECT_EQ(tags["tags"][0]["source"], "mcp");

    // delete_tag needs a human at the operator tier: a ticket, not a deletion.
    json gated = f.mcp(op, "delete_tag", {{"agent_id", web.agent_id}, {"key", "env"}});
    ASSERT_TRUE(gated.contains("error")) << gated.dump();
    EXPECT_EQ(gated["error"]["code"], -32006) << gated.dump();
    EXPECT_EQ(f.mcp_ok(reader, "get_tags", {{"agent_id", web.agent_id}})["tags"].size(), 1u);

    auto audit = identity::audit_events(*f.client, f.admin_token, "action=mcp.set_tag");
    EXPECT_GE(audit.size(), 2u) << "success and denial are both audited";
}

TEST(FleetProtocol, AgentsOutsideTheCallersGroupsReadAsUnknown) {
    FleetFixture f;
    const std::string token = f.enrollment_token();
    RawAgent inside = enroll(f, token, "inside");
    RawAgent outside = enroll(f, token, "outside");

    // bob: a Viewer long enough to mint his own MCP token, then only a
    // group-scoped Viewer on a group holding `inside`.
    identity::create_user(*f.client, f.admin_token, "bob", "bob-long-password", {"Viewer"});
    httplib::Client bob_client(f.server->base_url());
    auto bob = identity::login(bob_client, "bob", "bob-long-password");
    const std::string bob_token =
        identity::create_token(bob_client, bob, "bob-mcp", "readonly", identity::now_s() + 86400);
    auto revoked = f.client->Delete("/api/v1/users/bob/roles/Viewer", bearer(f.admin_token));
    ASSERT_TRUE(revoked);
    ASSERT_EQ(revoked->status, 204) << revoked->body;

    auto group = f.client->Post("/api/v1/management-groups", bearer(f.admin_token),
                                json{{"name", "bob-team"}}.dump(), "application/json");
    ASSERT_TRUE(group);
    ASSERT_EQ(group->status, 201) << group->body;
    const std::string gid = json::parse(group->body)["id"];
    auto member =
        f.client->Post("/api/v1/management-groups/" + gid + "/members", bearer(f.admin_token),
                       json{{"agent_id", inside.agent_id}}.dump(), "application/json");
    ASSERT_TRUE(member);
    ASSERT_EQ(member->status / 100, 2) << member->body;
    auto role = f.client->Post(
        "/api/v1/management-groups/" + gid + "/roles", bearer(f.admin_token),
        json{{"principal_type", "user"}, {"principal_id", "bob"}, {"role", "Viewer"}}.dump(),
        "application/json");
    ASSERT_TRUE(role);
    ASSERT_EQ(role->status / 100, 2) << role->body;

    json agents = f.mcp_ok(bob_token, "list_agents");
    ASSERT_EQ(agents["agents"].size(), 1u) << agents.dump();
    EXPECT_EQ(agents["agents"][0]["agent_id"], inside.agent_id);
    EXPECT_TRUE(f.mcp_ok(bob_token, "get_agent_details", {{"agent_id", inside.agent_id}})
                    .contains("hostname"));

    // Hidden and unknown read the same (modulo the id the caller sent).
    const std::string unknown(32, 'f');
    json hidden = f.mcp(bob_token, "get_agent_details", {{"agent_id", outside.agent_id}});
    json missing = f.mcp(bob_token, "get_agent_details", {{"agent_id", unknown}});
    ASSERT_TRUE(hidden.contains("error") && missing.contains("error")) << hidden.dump();
    EXPECT_EQ(hidden["error"]["code"], missing["error"]["code"]);
    std::string hidden_msg = hidden["error"]["message"];
    std::string missing_msg = missing["error"]["message"];
    hidden_msg = std::regex_replace(hidden_msg, std::regex(outside.agent_id), "<id>");
    missing_msg = std::regex_replace(missing_msg, std::regex(unknown), "<id>");
    EXPECT_EQ(hidden_msg, missing_msg);
    json hidden_inv = f.mcp(bob_token, "get_agent_inventory", {{"agent_id", outside.agent_id}});
    EXPECT_EQ(hidden_inv["error"]["code"], missing["error"]["code"]);

    // REST twins scope the same way.
    auto rest = bob_client.Get("/api/v1/agents/" + outside.agent_id, bob.headers());
    ASSERT_TRUE(rest);
    EXPECT_EQ(rest->status, 404);
    json sw = f.mcp_ok(bob_token, "query_installed_software");
    EXPECT_EQ(sw["devices_omitted"], 1);
}

}  // namespace
}  // namespace yuzu::testing::fleet
