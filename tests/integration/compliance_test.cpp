// Compliance and device performance end to end: agents enrolled and
// reporting over the real agent plane, policies evaluated on demand over
// REST, and the results read back over REST and MCP.
#include <gtest/gtest.h>

#include "fleet_test_helpers.hpp"

namespace yuzu::testing::fleet {
namespace {

using identity::bearer;

struct ReportingAgent {
    std::string agent_id;
    std::string device_token;
};

ReportingAgent enroll_agent(FleetFixture& f, const std::string& hostname) {
    httplib::Client plane(f.server->agent_url());
    auto res = plane.Post("/agent/v1/enroll",
                          json{{"enrollment_token", f.enrollment_token(1)},
                               {"hostname", hostname},
                               {"os", "linux"},
                               {"os_version", "Debian GNU/Linux 12 (bookworm)"},
                               {"arch", "x86_64"},
                               {"agent_version", "test"}}
                              .dump(),
                          "application/json");
    EXPECT_TRUE(res);
    if (!res) return {};
    EXPECT_EQ(res->status, 201) << res->body;
    auto j = json::parse(res->body);
    return {j.value("agent_id", ""), j.value("device_token", "")};
}

int agent_post(FleetFixture& f, const ReportingAgent& a, const std::string& path,
               const json& body) {
    httplib::Client plane(f.server->agent_url());
    auto res = plane.Post(path, bearer(a.device_token), body.dump(), "application/json");
    return res ? res->status : -1;
}

json rest(FleetFixture& f, const std::string& method, const std::string& path, int want,
          const json& body = nullptr) {
    httplib::Result res =
        method == "GET" ? f.client->Get(path, bearer(f.admin_token))
        : method == "POST"
            ? f.client->Post(path, bearer(f.admin_token), body.is_null() ? "" : body.dump(),
                             "application/json")
            : f.client->Put(path, bearer(f.admin_token), body.dump(), "application/json");
    EXPECT_TRUE(res) << method << " " << path;
    if (!res) return json();
    EXPECT_EQ(res->status, want) << method << " " << path << ": " << res->body;
    return json::parse(res->body, nullptr, false);
}

std::string policy_id(const json& policies, const std::string& name) {
    for (const auto& p : policies) {
        if (p["name"] == name) return p["id"];
    }
    ADD_FAILURE() << "no policy " << name << " in " << policies.dump();
    return "";
}

TEST(Compliance, PoliciesEvaluatedOverRestAndReadOverMcp) {
    FleetFixture f;
    const std::string& reader = f.mcp_tokens["readonly"];
    ReportingAgent web = enroll_agent(f, "web-01");
    ReportingAgent db = enroll_agent(f, "db-01");
    ASSERT_EQ(web.agent_id.size(), 32u);
    ASSERT_EQ(db.agent_id.size(), 32u);

    const json beat = {
        {"hostname", "web-01"}, {"os", "linux"}, {"arch", "x86_64"}, {"agent_version", "test"}};
    json web_beat = beat;
    web_beat["perf"] = {
        {"cpu_pct", 12.5}, {"mem_used_pct", 40.0}, {"disk_used_pct", 41.2}, {"load1", 0.3}};
    json db_beat = beat;
    db_beat["hostname"] = "db-01";
    db_beat["perf"] = {{"cpu_pct", 87.0}, {"mem_used_pct", 91.0}, {"disk_used_pct", 93.5}};
    ASSERT_EQ(agent_post(f, web, "/agent/v1/heartbeat", web_beat), 200);
    ASSERT_EQ(agent_post(f, db, "/agent/v1/heartbeat", db_beat), 200);

    const int64_t now_ms = identity::now_s() * 1000;
    const json web_inventory = {
        {"collected_at", now_ms},
        {"sources",
         {{"reboot_pending",
           {{"status", "ok"}, {"data", {{"pending", false}, {"packages", json::array()}}}}},
          {"disks",
           {{"status", "ok"},
            {"data",
             {{{"mount", "/"},
               {"device", "/dev/sda1"},
               {"fstype", "ext4"},
               {"total_bytes", 52710469632},
               {"free_bytes", 31024807936},
               {"used_pct", 41.2}}}}}},
          {"listening_sockets",
           {{"status", "ok"},
            {"data",
             {{{"protocol", "tcp"}, {"address", "10.0.0.5"}, {"port", 22}, {"inode", 18231}}}}}}}}};
    const json db_inventory = {
        {"collected_at", now_ms},
        {"sources",
         {{"reboot_pending",
           {{"status", "ok"},
            {"data", {{"pending", true}, {"packages", {"linux-image-6.1.0-18-amd64"}}}}}},
          {"disks",
           {{"status", "ok"},
            {"data",
             {{{"mount", "/"},
               {"device", "/dev/vda1"},
               {"fstype", "ext4"},
               {"total_bytes", 21003583488},
               {"free_bytes", 1390350336},
               {"used_pct", 93.5}}}}}},
          {"listening_sockets",
           {{"status", "ok"},
            {"data",
             {{{"protocol", "tcp"}, {"address", "0.0.0.0"}, {"port", 22}, {"inode", 18231}}}}}}}}};
    ASSERT_EQ(agent_post(f, web, "/agent/v1/inventory", web_inventory), 204);
    ASSERT_EQ(agent_post(f, db, "/agent/v1/inventory", db_inventory), 204);

    // The seeded policies, evaluated on demand.
    json policies = rest(f, "GET", "/api/v1/policies", 200)["policies"];
    ASSERT_EQ(policies.size(), 3u) << policies.dump();
    const std::string root = policy_id(policies, "Root filesystem below 90 %");
    json evaluated = rest(f, "POST", "/api/v1/policies/" + root + "/evaluate", 200);
    EXPECT_EQ(evaluated["summary"]["compliant"], 1) << evaluated.dump();
    EXPECT_EQ(evaluated["summary"]["non_compliant"], 1);
    EXPECT_EQ(evaluated["summary"]["total"], 2);
    for (const auto& p : policies) {
        if (p["id"] != root)
            rest(f, "POST", "/api/v1/policies/" + p["id"].get<std::string>() + "/evaluate", 200);
    }
    json results = rest(f, "GET", "/api/v1/policies/" + root + "/results?status=non_compliant",
                        200)["results"];
    ASSERT_EQ(results.size(), 1u) << results.dump();
    EXPECT_EQ(results[0]["agent_id"], db.agent_id);
    EXPECT_EQ(results[0]["hostname"], "db-01");
    EXPECT_EQ(results[0]["detail"], "used_pct 93.5 on /");

    // The same numbers over MCP, with a read-only token.
    json fleet = f.mcp_ok(reader, "get_fleet_compliance");
    EXPECT_EQ(fleet["total_checks"], 6) << fleet.dump();
    EXPECT_EQ(fleet["compliant"], 3);
    EXPECT_EQ(fleet["non_compliant"], 3);
    EXPECT_EQ(fleet["unknown"], 0);
    EXPECT_DOUBLE_EQ(fleet["compliance_pct"].get<double>(), 50.0);
    EXPECT_EQ(fleet["devices_omitted"], 0);
    json summary = f.mcp_ok(reader, "get_compliance_summary", {{"policy_id", root}});
    EXPECT_EQ(summary["non_compliant"], 1);
    EXPECT_EQ(f.mcp_ok(reader, "list_policies")["policies"].size(), 3u);
    EXPECT_EQ(rest(f, "GET", "/api/v1/compliance/fleet", 200), [&] {
        json j = fleet;
        j.erase("devices_omitted");
        return j;
    }());

    // An unknown policy id reads as not found on both surfaces.
    json missing = f.mcp(reader, "get_compliance_summary", {{"policy_id", "0123456789ab"}});
    ASSERT_TRUE(missing.contains("error")) << missing.dump();
    EXPECT_EQ(missing["error"]["code"], -32602);
    rest(f, "GET", "/api/v1/policies/0123456789ab", 404);

    // Rules are validated with the offending field named; writes are audited.
    json bad = rest(f, "POST", "/api/v1/policies", 400,
                    {{"name", "typo"},
                     {"rule",
                      {{"source", "disks"},
                       {"mode", "all"},
                       {"assert", {{"field", "used_percent"}, {"op", "lt"}, {"value", 90}}}}}});
    EXPECT_NE(bad.dump().find("rule.assert.field"), std::string::npos) << bad.dump();
    json created =
        rest(f, "POST", "/api/v1/policies", 201,
             {{"name", "Swap configured"},
              {"scope_expression", "hostname = \"db-01\""},
              {"rule",
               {{"source", "memory"},
                {"mode", "all"},
                {"assert", {{"field", "swap_total_bytes"}, {"op", "gt"}, {"value", 0}}}}}});
    ASSERT_TRUE(created.contains("id")) << created.dump();
    json swap =
        rest(f, "POST", "/api/v1/policies/" + created["id"].get<std::string>() + "/evaluate", 200);
    EXPECT_EQ(swap["summary"]["unknown"], 1) << "db-01 never reported memory";
    EXPECT_EQ(swap["summary"]["total"], 1) << "the scope selects one agent";
    json audit = f.mcp_ok(reader, "query_audit_log", {{"action", "policy.create"}});
    ASSERT_FALSE(audit["events"].empty());
    EXPECT_EQ(audit["events"][0]["target_id"], created["id"]);

    // A read-only MCP token may not write policies over REST either.
    auto refused = f.client->Post("/api/v1/policies", bearer(reader), json{{"name", "x"}}.dump(),
                                  "application/json");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 403) << refused->body;

    // The resource is the fleet object.
    httplib::Headers h{{"Accept", "application/json, text/event-stream"},
                       {"Authorization", "Bearer " + reader}};
    auto read = f.client->Post("/mcp/v1/", h,
                               json{{"jsonrpc", "2.0"},
                                    {"id", 1},
                                    {"method", "resources/read"},
                                    {"params", {{"uri", "yuzu://compliance/fleet"}}}}
                                   .dump(),
                               "application/json");
    ASSERT_TRUE(read);
    json resource = json::parse(read->body);
    ASSERT_TRUE(resource.contains("result")) << resource.dump();
    json text = json::parse(resource["result"]["contents"][0]["text"].get<std::string>());
    EXPECT_EQ(text["total_checks"], 7);
    EXPECT_EQ(text["unknown"], 1);
}

TEST(Compliance, DevicePerformanceFromHeartbeats) {
    FleetFixture f;
    const std::string& reader = f.mcp_tokens["readonly"];
    json empty = f.mcp_ok(reader, "get_dex_perf_fleet");
    EXPECT_TRUE(empty["cpu_pct"].is_null()) << "null, never 0, when nobody reported";
    EXPECT_EQ(empty["reporting"], 0);

    ReportingAgent web = enroll_agent(f, "web-01");
    ReportingAgent db = enroll_agent(f, "db-01");
    ReportingAgent quiet = enroll_agent(f, "quiet-01");
    // Raw agents stop being seen after the fixture's 3 s offline timeout, so
    // they beat again right before each read that counts online agents.
    auto beat = [&] {
        ASSERT_EQ(agent_post(f, web, "/agent/v1/heartbeat",
                             {{"hostname", "web-01"},
                              {"os", "linux"},
                              {"arch", "x86_64"},
                              {"agent_version", "test"},
                              {"perf", {{"cpu_pct", 12.5}, {"mem_used_pct", 40.0}}}}),
                  200);
        ASSERT_EQ(agent_post(f, db, "/agent/v1/heartbeat",
                             {{"hostname", "db-01"},
                              {"os", "linux"},
                              {"arch", "x86_64"},
                              {"agent_version", "test"},
                              {"perf", {{"cpu_pct", 87.0}, {"mem_used_pct", 91.0}}}}),
                  200);
        ASSERT_EQ(agent_post(f, quiet, "/agent/v1/heartbeat",
                             {{"hostname", "quiet-01"},
                              {"os", "linux"},
                              {"arch", "x86_64"},
                              {"agent_version", "test"}}),
                  200);
    };
    beat();
    json stats = rest(f, "GET", "/api/v1/dex/perf/fleet", 200);
    EXPECT_EQ(stats["reporting"], 2) << stats.dump();
    EXPECT_EQ(stats["online"], 3);
    EXPECT_EQ(stats["cpu_pct"]["n"], 2);
    EXPECT_DOUBLE_EQ(stats["cpu_pct"]["max"].get<double>(), 87.0);
    EXPECT_DOUBLE_EQ(stats["cpu_pct"]["p50"].get<double>(), 12.5);
    EXPECT_TRUE(stats["load1"].is_null());
    EXPECT_EQ(f.mcp_ok(reader, "get_dex_perf_fleet")["cpu_pct"], stats["cpu_pct"]);

    json worst = f.mcp_ok(reader, "list_dex_perf_devices", {{"metric", "mem"}, {"limit", 1}});
    ASSERT_EQ(worst["devices"].size(), 1u) << worst.dump();
    EXPECT_EQ(worst["devices"][0]["agent_id"], db.agent_id);
    EXPECT_DOUBLE_EQ(worst["devices"][0]["fleet_pctile"].get<double>(), 100.0);
    beat();
    json silent = rest(f, "GET", "/api/v1/dex/perf/devices?filter=not_reporting", 200);
    ASSERT_EQ(silent["devices"].size(), 1u) << silent.dump();
    EXPECT_EQ(silent["devices"][0]["agent_id"], quiet.agent_id);
    json zero = f.mcp(reader, "list_dex_perf_devices", {{"limit", 0}});
    ASSERT_TRUE(zero.contains("error")) << zero.dump();
    EXPECT_EQ(zero["error"]["code"], -32602);
    rest(f, "GET", "/api/v1/dex/perf/devices?metric=commit", 400);
}

TEST(Compliance, CountsCoverOnlyTheCallersManagementGroups) {
    FleetFixture f;
    ReportingAgent inside = enroll_agent(f, "inside");
    ReportingAgent outside = enroll_agent(f, "outside");
    const int64_t now_ms = identity::now_s() * 1000;
    auto reboot = [&](bool pending) {
        return json{{"collected_at", now_ms},
                    {"sources",
                     {{"reboot_pending",
                       {{"status", "ok"},
                        {"data", {{"pending", pending}, {"packages", json::array()}}}}}}}};
    };
    ASSERT_EQ(agent_post(f, inside, "/agent/v1/inventory", reboot(true)), 204);
    ASSERT_EQ(agent_post(f, outside, "/agent/v1/inventory", reboot(false)), 204);
    for (const auto* a : {&inside, &outside}) {
        ASSERT_EQ(agent_post(f, *a, "/agent/v1/heartbeat",
                             {{"hostname", "h"},
                              {"os", "linux"},
                              {"arch", "x86_64"},
                              {"agent_version", "test"},
                              {"perf", {{"cpu_pct", a == &inside ? 5.0 : 95.0}}}}),
                  200);
    }
    // Every policy evaluated now, so no scheduled pass can change the counts.
    const json policies = rest(f, "GET", "/api/v1/policies", 200)["policies"];
    for (const auto& p : policies) {
        rest(f, "POST", "/api/v1/policies/" + p["id"].get<std::string>() + "/evaluate", 200);
    }
    const std::string id = policy_id(policies, "No pending reboot");

    // bob: a Viewer only through a group that holds `inside`.
    identity::create_user(*f.client, f.admin_token, "bob", "bob-long-password", {"Viewer"});
    httplib::Client bob_client(f.server->base_url());
    auto bob = identity::login(bob_client, "bob", "bob-long-password");
    const std::string bob_token =
        identity::create_token(bob_client, bob, "bob-mcp", "readonly", identity::now_s() + 86400);
    auto revoked = f.client->Delete("/api/v1/users/bob/roles/Viewer", bearer(f.admin_token));
    ASSERT_TRUE(revoked);
    ASSERT_EQ(revoked->status, 204) << revoked->body;

    // Without any grant, compliance reads are refused outright.
    json refused = f.mcp(bob_token, "get_fleet_compliance");
    ASSERT_TRUE(refused.contains("error")) << refused.dump();
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

    json fleet = f.mcp_ok(bob_token, "get_fleet_compliance");
    EXPECT_EQ(fleet["total_checks"], 3) << fleet.dump();
    EXPECT_EQ(fleet["non_compliant"], 1);
    EXPECT_EQ(fleet["unknown"], 2) << "no disks or sockets reported";
    EXPECT_DOUBLE_EQ(fleet["compliance_pct"].get<double>(), 0.0);
    EXPECT_EQ(fleet["devices_omitted"], 1);
    auto results = bob_client.Get("/api/v1/policies/" + id + "/results", bob.headers());
    ASSERT_TRUE(results);
    ASSERT_EQ(results->status, 200) << results->body;
    json rows = json::parse(results->body)["results"];
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["agent_id"], inside.agent_id);
    json perf = f.mcp_ok(bob_token, "get_dex_perf_fleet");
    EXPECT_EQ(perf["reporting"], 1) << perf.dump();
    EXPECT_DOUBLE_EQ(perf["cpu_pct"]["max"].get<double>(), 5.0);
    // The whole fleet, for comparison.
    EXPECT_EQ(rest(f, "GET", "/api/v1/compliance/fleet", 200)["total_checks"], 6);
}

TEST(Compliance, IntervalFlagIsValidated) {
    for (const auto& [flag, env] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--compliance-interval", "5"}, ""}, {{}, "0"}}) {
        ServerProcess::Options o;
        o.args = flag;
        if (!env.empty()) o.env["YUZU_COMPLIANCE_INTERVAL"] = env;
        o.wait_until_ready = false;
        ServerProcess server(o);
        EXPECT_EQ(server.wait_exit(std::chrono::seconds(10)), 2) << server.log();
        EXPECT_NE(server.log().find("--compliance-interval must be from 10 to 86400 seconds"),
                  std::string::npos)
            << server.log();
    }
}

}  // namespace
}  // namespace yuzu::testing::fleet
