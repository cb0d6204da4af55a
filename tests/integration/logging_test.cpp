// What the server's log says about requests: JSON lines carry the request's
// fields as fields, agents' heartbeats and polls stay out of the info log,
// and a plain-HTTP listener off loopback is warned about.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fleet_test_helpers.hpp"

namespace yuzu::testing {
namespace {

using fleet::FleetFixture;
using nlohmann::json;

std::vector<json> json_lines(const std::string& log) {
    std::vector<json> out;
    std::istringstream lines(log);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.empty()) continue;
        json j = json::parse(line, nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << "not JSON: " << line;
        if (!j.is_discarded()) out.push_back(std::move(j));
    }
    return out;
}

TEST(Logging, JsonRequestLinesCarryTheirFieldsAndAgentChatterStaysAtDebug) {
    FleetFixture f({"--log-format", "json"});
    auto agents = f.start_agents(1, f.enrollment_token());
    // Wait until the agent has sent heartbeats (counted on the metrics).
    ASSERT_TRUE(fleet::wait_for(
        [&] {
            auto res = f.client->Get("/metrics");
            return res && res->body.find(R"(route="/agent/v1/heartbeat",status="200")") !=
                              std::string::npos;
        },
        std::chrono::seconds(20)));
    auto livez = f.client->Get("/livez");
    ASSERT_TRUE(livez);
    const std::string id = livez->get_header_value("X-Correlation-Id");
    ASSERT_TRUE(fleet::wait_for([&] { return f.server->log().find(id) != std::string::npos; },
                                std::chrono::seconds(5)));

    bool saw_livez = false;
    bool saw_enroll = false;
    for (const json& j : json_lines(f.server->log())) {
        const std::string route = j.value("route", "");
        EXPECT_NE(route, "/agent/v1/heartbeat") << j.dump();
        EXPECT_NE(route, "/agent/v1/commands") << j.dump();
        if (j.value("correlation_id", "") == id) {
            saw_livez = true;
            EXPECT_EQ(j.value("msg", ""), "http request") << j.dump();
            EXPECT_EQ(j.value("listener", ""), "management");
            EXPECT_EQ(j.value("method", ""), "GET");
            EXPECT_EQ(j.value("path", ""), "/livez");
            ASSERT_TRUE(j.contains("status") && j["status"].is_number_integer()) << j.dump();
            EXPECT_EQ(j["status"], 200);
            EXPECT_TRUE(j.contains("ms") && j["ms"].is_number()) << j.dump();
            EXPECT_EQ(j.value("peer", ""), "127.0.0.1");
        }
        if (route == "/agent/v1/enroll") {
            saw_enroll = true;
            EXPECT_EQ(j.value("listener", ""), "agent");
            EXPECT_EQ(j["status"], 201) << j.dump();
        }
    }
    EXPECT_TRUE(saw_livez) << f.server->log();
    EXPECT_TRUE(saw_enroll) << f.server->log();
}

TEST(Logging, APlainHttpListenerOffLoopbackIsWarnedAboutAndLoopbackIsNot) {
    ServerProcess exposed(ServerProcess::Options::with_args({"--agent-listen", "0.0.0.0:0"}));
    ASSERT_FALSE(exposed.base_url().empty()) << exposed.log();
    EXPECT_NE(exposed.log().find("the agent plane listener serves plain HTTP on 0.0.0.0"),
              std::string::npos)
        << exposed.log();
    EXPECT_EQ(exposed.log().find("the management listener serves plain HTTP"), std::string::npos)
        << exposed.log();
    EXPECT_EQ(exposed.signal_and_wait(SIGTERM), 0);

    ServerProcess local;
    ASSERT_FALSE(local.base_url().empty()) << local.log();
    EXPECT_EQ(local.log().find("serves plain HTTP"), std::string::npos) << local.log();
}

}  // namespace
}  // namespace yuzu::testing
