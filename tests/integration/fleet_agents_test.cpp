// The fleet end to end: real yuzu-agent processes (--virtual N) against a
// real yuzu-server, read back over MCP; device tokens, enrollment tokens and
// the CLI; management-group scoping of fleet tools.
#include <gtest/gtest.h>
#include <signal.h>

#include "fleet_test_helpers.hpp"

namespace yuzu::testing::fleet {
namespace {

using identity::bearer;

TEST(FleetAgents, VirtualAgentsReportTheRealHostAndGoOfflineWhenKilled) {
    FleetFixture f;
    const std::string& reader = f.mcp_tokens["readonly"];
    auto agent = f.start_agents(3, f.enrollment_token());
    ASSERT_TRUE(agent->started());

    ASSERT_TRUE(wait_for([&] { return f.online_count(reader) == 3; }, std::chrono::seconds(30)))
        << f.agents(reader).dump() << "\nagent log:\n"
        << agent->log();
    const json agents = f.agents(reader);
    ASSERT_EQ(agents.size(), 3u);
    std::set<std::string> ids;
    for (const auto& a : agents) {
        EXPECT_EQ(a["hostname"], host_name());
        EXPECT_EQ(a["os"], "linux");
        EXPECT_TRUE(a["online"].get<bool>());
        EXPECT_GT(a["last_seen"].get<int64_t>(), 0);
        ids.insert(a["agent_id"].get<std::string>());
    }
    EXPECT_EQ(ids.size(), 3u) << "each virtual identity enrolls on its own";

    // Inventory comes from the host the agent runs on: compare with uname(2).
    const std::string first = *ids.begin();
    json kernel;
    ASSERT_TRUE(wait_for(
        [&] {
            json sc = f.mcp_ok(reader, "get_agent_inventory",
                               {{"agent_id", first}, {"source", "kernel"}});
            if (!sc.is_object() || sc["sources"].empty()) return false;
            kernel = sc["sources"][0];
            return true;
        },
        std::chrono::seconds(30)));
    EXPECT_EQ(kernel["status"], "ok");
    EXPECT_EQ(kernel["data"]["release"], kernel_release());

    json details = f.mcp_ok(reader, "get_agent_details", {{"agent_id", first}});
    EXPECT_EQ(details["agent_id"], first);
    EXPECT_FALSE(details["inventory_sources"].empty());

    // No goodbye after SIGKILL: the offline timeout has to notice.
    ASSERT_EQ(agent->signal_and_wait(SIGKILL), 128 + SIGKILL);
    const auto killed_at = std::chrono::steady_clock::now();
    ASSERT_TRUE(wait_for([&] { return f.online_count(reader) == 0; },
                         std::chrono::seconds(kOfflineTimeoutS + 4)));
    EXPECT_GE(std::chrono::steady_clock::now() - killed_at,
              std::chrono::milliseconds(kOfflineTimeoutS * 1000 - 1500));
    EXPECT_EQ(f.agents(reader).size(), 3u) << "offline agents stay registered";
}

TEST(FleetAgents, CleanShutdownSignsOffAndARestartReusesTheIdentity) {
    FleetFixture f;
    const std::string& reader = f.mcp_tokens["readonly"];
    const std::string token = f.enrollment_token(1);
    auto agent = f.start_agents(1, token);
    ASSERT_TRUE(wait_for([&] { return f.online_count(reader) == 1; }, std::chrono::seconds(30)))
        << agent->log();
    const std::string id = f.agents(reader)[0]["agent_id"];

    EXPECT_EQ(agent->signal_and_wait(SIGTERM), 0) << agent->log();
    // Goodbye marks it offline at once, well inside the offline timeout.
    ASSERT_TRUE(wait_for([&] { return f.online_count(reader) == 0; }, std::chrono::seconds(1)));

    // Same state dir, no enrollment token (it was single-use): the stored
    // device token is reused and no second agent appears.
    const std::string state = (f.dir.path() / "agents-1").string();
    std::vector<std::string> argv = {bin_path("yuzu-agent"), "--server", f.server->agent_url(),
                                     "--state-dir", state};
    ChildProcess again(argv, {}, state + ".again.log");
    ASSERT_TRUE(wait_for([&] { return f.online_count(reader) == 1; }, std::chrono::seconds(30)))
        << again.log();
    const json agents = f.agents(reader);
    ASSERT_EQ(agents.size(), 1u);
    EXPECT_EQ(agents[0]["agent_id"], id);
}

TEST(FleetAgents, ServerHealthResourceCountsConnectedAgents) {
    FleetFixture f;
    auto agent = f.start_agents(2, f.enrollment_token());
    ASSERT_TRUE(wait_for([&] { return f.online_count(f.mcp_tokens["readonly"]) == 2; },
                         std::chrono::seconds(30)));
    json body = {{"jsonrpc", "2.0"},
                 {"id", 1},
                 {"method", "resources/read"},
                 {"params", {{"uri", "yuzu://server/health"}}}};
    httplib::Headers h{{"Accept", "application/json, text/event-stream"},
                       {"Authorization", "Bearer " + f.mcp_tokens["readonly"]}};
    auto res = f.client->Post("/mcp/v1/", h, body.dump(), "application/json");
    ASSERT_TRUE(res);
    json health =
        json::parse(json::parse(res->body)["result"]["contents"][0]["text"].get<std::string>());
    EXPECT_EQ(health["agents_connected"], 2);
    EXPECT_TRUE(health["checks"].contains("fleet.db"));
}

}  // namespace
}  // namespace yuzu::testing::fleet
