// Schedules end to end, in real time: a real yuzu-server and three virtual
// agents (yuzu-agent --virtual 3); an interval schedule every 2 s created
// over REST runs on its own as ordinary executions, each visible in the
// executions list and audited, and MCP list_schedules shows it.
#include <gtest/gtest.h>

#include <set>

#include "execution_test_helpers.hpp"

namespace yuzu::testing::fleet {
namespace {

using identity::bearer;
using std::chrono::seconds;

// The execution id in a schedule.run audit row's detail ("" when none).
std::string execution_id_in(const std::string& detail) {
    const std::string key = "execution_id=";
    const auto at = detail.find(key);
    if (at == std::string::npos) return "";
    return detail.substr(at + key.size(), 32);
}

TEST(Schedules, AnIntervalScheduleEveryTwoSecondsRunsAsOrdinaryExecutions) {
    FleetFixture f;
    const std::string& op = f.mcp_tokens["operator"];
    auto agents = f.start_agents(3, f.enrollment_token());
    ASSERT_TRUE(wait_for([&] { return f.online_count(op) == 3; }, seconds(30))) << agents->log();

    const json body = {{"name", "os info every 2 s"},
                       {"definition_id", "os.info"},
                       {"frequency_type", "interval"},
                       {"interval_seconds", 2}};
    json created = rest_json(
        f.client->Post("/api/v1/schedules", bearer(f.admin_token), body.dump(), "application/json"),
        201);
    ASSERT_TRUE(created.is_object());
    const std::string id = created.value("id", "");
    ASSERT_EQ(id.size(), 32u) << created.dump();
    EXPECT_EQ(created["owner"], "admin");
    EXPECT_EQ(created["enabled"], true);
    EXPECT_GT(created["next_execution_at"].get<int64_t>(), 0);

    // Three runs take about 6 s; the bound leaves room for a slow machine.
    auto run_count = [&] {
        json s = rest_json(f.client->Get("/api/v1/schedules/" + id, bearer(f.admin_token)), 200);
        return s.is_object() ? s.value("run_count", 0) : 0;
    };
    ASSERT_TRUE(wait_for([&] { return run_count() >= 3; }, seconds(12)))
        << "run_count " << run_count() << "\n"
        << f.server->log();

    // Disabled, so nothing runs while the runs are counted.
    json disabled = rest_json(f.client->Post("/api/v1/schedules/" + id + "/disable",
                                             bearer(f.admin_token), "", "application/json"),
                              200);
    EXPECT_EQ(disabled["enabled"], false);
    EXPECT_EQ(disabled["next_execution_at"], 0);
    const int runs = disabled.value("run_count", 0);
    ASSERT_GE(runs, 3);

    // Every run is an ordinary execution on the three agents, dispatched as
    // the owner, and its audit row names it.
    json listed = rest_json(
        f.client->Get("/api/v1/executions?definition_id=os.info&limit=500", bearer(f.admin_token)),
        200);
    std::set<std::string> listed_ids;
    for (const auto& e : listed["executions"]) {
        EXPECT_EQ(e["dispatched_by"], "admin") << e.dump();
        EXPECT_EQ(e["agents_targeted"], 3) << e.dump();
        listed_ids.insert(e["execution_id"].get<std::string>());
    }
    EXPECT_EQ(listed_ids.size(), static_cast<size_t>(runs));
    EXPECT_TRUE(listed_ids.count(disabled["last_execution_id"].get<std::string>()));

    json rows =
        identity::audit_events(*f.client, f.admin_token, "action=schedule.run&target_id=" + id);
    ASSERT_EQ(rows.size(), static_cast<size_t>(runs)) << rows.dump();
    for (const auto& row : rows) {
        EXPECT_EQ(row["result"], "success") << row.dump();
        EXPECT_EQ(row["principal"], "admin");
        const std::string detail = row["detail"];
        EXPECT_NE(detail.find("schedule_id=" + id), std::string::npos) << detail;
        EXPECT_TRUE(listed_ids.count(execution_id_in(detail))) << detail;
    }
    EXPECT_EQ(
        identity::audit_events(*f.client, f.admin_token, "action=schedule.create&target_id=" + id)
            .size(),
        1u);

    // The MCP twin of the list, at the readonly tier.
    json sc = f.mcp_ok(f.mcp_tokens["readonly"], "list_schedules");
    ASSERT_TRUE(sc.is_object()) << sc.dump();
    EXPECT_EQ(sc["count"], 1);
    ASSERT_EQ(sc["schedules"].size(), 1u);
    const json& mine = sc["schedules"][0];
    EXPECT_EQ(mine["id"], id);
    EXPECT_EQ(mine["name"], "os info every 2 s");
    EXPECT_EQ(mine["definition_id"], "os.info");
    EXPECT_EQ(mine["frequency_type"], "interval");
    EXPECT_EQ(mine["interval_seconds"], 2);
    EXPECT_EQ(mine["enabled"], false);
    EXPECT_EQ(mine["next_execution_at"], 0);
    EXPECT_EQ(mine["run_count"], runs);

    // The last run's execution is readable over MCP as any other.
    json status = poll_until_ready(f, op, "get_execution_status",
                                   {{"execution_id", disabled["last_execution_id"]}}, seconds(20));
    EXPECT_EQ(status["agents_targeted"], 3) << status.dump();
}

}  // namespace
}  // namespace yuzu::testing::fleet
