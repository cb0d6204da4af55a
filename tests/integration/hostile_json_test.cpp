// Bodies nested far deeper than any real document, sent where a peer can
// send JSON: MCP (any token), REST (executions, definitions) and the agent
// plane (results, inventory). Each is refused with a clear error and the
// server stays up: /livez answers at once after each one.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "fleet_test_helpers.hpp"

namespace yuzu::testing {
namespace {

using fleet::FleetFixture;
using nlohmann::json;

// 140,000 levels of arrays: ~280 KB, under the default 4 MiB body limit.
constexpr int kHostileDepth = 140'000;

std::string deep_array() {
    return std::string(kHostileDepth, '[') + std::string(kHostileDepth, ']');
}

// A deep array between `prefix` and `suffix`. Before the depth limit, such a
// value under "params" overflowed the worker's stack when it was copied
// (yuzu-server died with SIGSEGV).
std::string with_deep_value(const std::string& prefix, const std::string& suffix) {
    return prefix + deep_array() + suffix;
}

void expect_alive(FleetFixture& f, const std::string& after) {
    const auto start = std::chrono::steady_clock::now();
    auto res = f.client->Get("/livez");
    ASSERT_TRUE(res) << "the server died after " << after << "\n" << f.server->log();
    EXPECT_EQ(res->status, 200);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100)) << after;
    EXPECT_TRUE(f.server->running()) << after;
}

TEST(HostileJson, ADeepJsonRpcBodyIsAParseErrorAndTheServerStaysUp) {
    FleetFixture f;
    httplib::Headers h{{"Accept", "application/json, text/event-stream"},
                       {"Authorization", "Bearer " + f.mcp_tokens["readonly"]}};
    for (const std::string& body :
         {with_deep_value(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":)", "}}"),
          deep_array(), std::string(kHostileDepth, '{')}) {
        auto res = f.client->Post("/mcp/v1/", h, body, "application/json");
        ASSERT_TRUE(res) << f.server->log();
        const json answer = json::parse(res->body, nullptr, false);
        ASSERT_TRUE(answer.is_object()) << res->status << " " << res->body;
        EXPECT_EQ(answer["error"]["code"], -32700) << res->body;
        expect_alive(f, "a deep JSON-RPC body");
    }
}

TEST(HostileJson, DeepRestBodiesAre400AndTheServerStaysUp) {
    FleetFixture f;
    for (const char* path : {"/api/v1/executions", "/api/v1/definitions", "/api/v1/tokens"}) {
        auto res = f.client->Post(
            path, identity::bearer(f.admin_token),
            with_deep_value(R"({"plugin":"os","action":"info","params":{"x":)", "}}"),
            "application/json");
        ASSERT_TRUE(res) << path << "\n" << f.server->log();
        EXPECT_EQ(res->status, 400) << path << ": " << res->body;
        EXPECT_NE(res->body.find("nested deeper than 64 levels"), std::string::npos) << res->body;
        expect_alive(f, path);
    }
}

TEST(HostileJson, DeepAgentPlaneBodiesAre400AndTheServerStaysUp) {
    FleetFixture f;
    httplib::Client agent_plane(f.server->agent_url());
    const std::string device = f.enroll_raw_agent("deep");
    ASSERT_FALSE(device.empty());
    for (const auto& [path, body] :
         {std::pair<std::string, std::string>{
              "/agent/v1/results",
              with_deep_value(R"({"results":[{"command_id":"c","status":"ok","output":)", "}]}")},
          {"/agent/v1/inventory",
           with_deep_value(R"({"sources":{"os":{"available":true,"data":)", "}}}")}}) {
        auto res = agent_plane.Post(path, identity::bearer(device), body, "application/json");
        ASSERT_TRUE(res) << path << "\n" << f.server->log();
        EXPECT_EQ(res->status, 400) << path << ": " << res->body;
        expect_alive(f, path);
    }
}

}  // namespace
}  // namespace yuzu::testing
