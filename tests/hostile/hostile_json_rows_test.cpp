// Rows 1, 2, 3 and 16 of the hardening table: JSON a peer can send, nested
// far deeper than any real document or of the wrong type, is refused with a
// clear error while /livez keeps answering within 100 ms.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "hostile/hostile_fixture.hpp"
#include "hostile/hostile_support.hpp"

namespace yuzu::testing::hostile {
namespace {

using nlohmann::json;
using Bodies = std::vector<std::pair<std::string, std::string>>;

// The JSON-RPC error code of an answer; 0 when it is not an error.
int rpc_error_code(const json& answer) {
    if (!answer.is_object() || !answer.contains("error") || !answer["error"].is_object()) return 0;
    return answer["error"].value("code", 0);
}

TEST_F(Hostile, Row01DeepJsonRpcBodyIsAJsonRpcErrorAndTheServerStaysUp) {
    ASSERT_TRUE(start());
    LivenessProbe probe(port());
    constexpr int kDepth = 140'000;
    const Bodies bodies = {{"a deep value under params",
                            R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":)" +
                                deep_arrays(kDepth) + "}}"},
                           {"a deep array as the whole message", deep_arrays(kDepth)},
                           {"140,000 objects never closed", std::string(kDepth, '{')}};
    for (const auto& [what, body] : bodies) {
        const Exchange ex = roundtrip(port(), mcp_request(body, readonly_token_));
        ASSERT_TRUE(ex.response) << what << ": " << ex.error;
        const json answer = json::parse(ex.response->body, nullptr, false);
        EXPECT_EQ(rpc_error_code(answer), -32700) << what << ": " << describe(ex.response);
        expect_alive(what);
    }
    // Without a credential the same body is refused before it is parsed.
    const Exchange anonymous = roundtrip(port(), mcp_request(bodies[0].second, ""));
    ASSERT_TRUE(anonymous.response) << anonymous.error;
    EXPECT_EQ(anonymous.response->status, 401) << describe(anonymous.response);
    expect_stayed_up(probe, "JSON-RPC bodies nested 140,000 deep");
}

TEST_F(Hostile, Row02DeepAgentResultsAndInventoryAre400AndTheServerStaysUp) {
    ASSERT_TRUE(start());
    const std::string device = enroll_device("hostile-deep");
    ASSERT_FALSE(device.empty());
    LivenessProbe probe(port());
    const std::string deep = deep_arrays(100'000);
    const Bodies bodies = {
        {"/agent/v1/results", R"({"command_id":"c1","status":"success","output":)" + deep + "}"},
        {"/agent/v1/inventory",
         R"({"sources":{"os_release":{"status":"ok","data":)" + deep + "}}}"}};
    for (const auto& [path, body] : bodies) {
        const Exchange ex = roundtrip(
            agent_port(), http_request("POST", path, agent_port(), json_headers(device), body));
        ASSERT_TRUE(ex.response) << path << ": " << ex.error;
        EXPECT_EQ(ex.response->status, 400) << path << ": " << describe(ex.response);
        expect_alive(path);
    }
    expect_stayed_up(probe, "agent-plane bodies nested 100,000 deep");
}

TEST_F(Hostile, Row03DeepExecutionParamsAndDefinitionSchemasAre400AndTheServerStaysUp) {
    ASSERT_TRUE(start());
    LivenessProbe probe(port());
    const std::string deep = deep_objects(100'000);
    const Bodies bodies = {
        {"/api/v1/executions", R"({"plugin":"os","action":"info","params":{"x":)" + deep + "}}"},
        {"/api/v1/definitions",
         R"({"name":"deep","plugin":"os","action":"info","parameter_schema":)"
         R"({"type":"object","properties":{"x":)" +
             deep + "}}}"}};
    for (const auto& [path, body] : bodies) {
        const Exchange ex =
            roundtrip(port(), http_request("POST", path, port(), json_headers(admin_token_), body));
        ASSERT_TRUE(ex.response) << path << ": " << ex.error;
        EXPECT_EQ(ex.response->status, 400) << path << ": " << describe(ex.response);
        EXPECT_NE(ex.response->body.find("nested deeper than"), std::string::npos)
            << path << ": " << describe(ex.response);
        expect_alive(path);
    }
    expect_stayed_up(probe, "REST bodies nested 100,000 deep");
}

TEST_F(Hostile, Row16InventoryWithANonStringStatusIs400AndTheServerStaysUp) {
    ASSERT_TRUE(start());
    const std::string device = enroll_device("hostile-typed");
    ASSERT_FALSE(device.empty());
    LivenessProbe probe(port());
    for (const json& source : {json{{"status", 5}, {"data", json::object()}},
                               json{{"status", json::array({"ok"})}, {"data", 1}},
                               json{{"status", "ok"}, {"reason", {{"x", 1}}}, {"data", 1}}}) {
        const std::string body = json{{"sources", {{"os_release", source}}}}.dump();
        const Exchange ex = roundtrip(
            agent_port(),
            http_request("POST", "/agent/v1/inventory", agent_port(), json_headers(device), body));
        ASSERT_TRUE(ex.response) << source.dump() << ": " << ex.error;
        EXPECT_EQ(ex.response->status, 400) << source.dump() << ": " << describe(ex.response);
        EXPECT_NE(ex.response->body.find("must be a string"), std::string::npos)
            << describe(ex.response);
    }
    expect_stayed_up(probe, "inventory of the wrong types");
}

}  // namespace
}  // namespace yuzu::testing::hostile
