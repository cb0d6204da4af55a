// The MCP 2026-07-28 stateless era over real HTTP, beside the 2025 session
// transport on the same server: server/discover, the caching hints of
// lists, the _meta and header rules and their status codes, the methods the
// revision removed, errors that carry the request id, and a streamed
// tools/call on its own response without a session.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fleet_test_helpers.hpp"
#include "identity_test_helpers.hpp"
#include "mcp_stream_helpers.hpp"
#include "support/server_process.hpp"

namespace yuzu::testing {
namespace {

using identity::kAdminPassword;
using identity::login;
using identity::now_s;
using nlohmann::json;
using std::chrono::seconds;

constexpr char kModern[] = "2026-07-28";
constexpr char kMetaVersion[] = "io.modelcontextprotocol/protocolVersion";
constexpr char kMetaCapabilities[] = "io.modelcontextprotocol/clientCapabilities";
constexpr char kMetaServerInfo[] = "io.modelcontextprotocol/serverInfo";

// A 2026 request: its params carry _meta naming `version`.
json modern_body(const std::string& method, json params = json::object(), json id = 1,
                 const std::string& version = kModern) {
    params["_meta"] = {{kMetaVersion, version}, {kMetaCapabilities, json::object()}};
    return {{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"method", method}, {"params", params}};
}

json legacy_body(const std::string& method, json params = json::object(), int id = 1) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

// The headers that repeat a 2026 body; an empty argument leaves its header out.
httplib::Headers modern_headers(const std::string& token, const std::string& method,
                                const std::string& name = "",
                                const std::string& version = kModern) {
    httplib::Headers h{{"Accept", "application/json, text/event-stream"}};
    if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
    if (!version.empty()) h.emplace("MCP-Protocol-Version", version);
    if (!method.empty()) h.emplace("Mcp-Method", method);
    if (!name.empty()) h.emplace("Mcp-Name", name);
    return h;
}

httplib::Headers legacy_headers(const std::string& token) {
    return {{"Accept", "application/json, text/event-stream"},
            {"Authorization", "Bearer " + token}};
}

json body_of(const httplib::Result& res) {
    if (!res) return json::object();
    json body = json::parse(res->body, nullptr, false);
    return body.is_object() ? body : json::object();
}

// A refused request: checks its status, JSON-RPC code and echoed id, and
// answers the error object.
json refused(const httplib::Result& res, int status, int code, const json& id) {
    EXPECT_TRUE(res);
    if (!res) return json::object();
    EXPECT_EQ(res->status, status) << res->body;
    EXPECT_FALSE(res->has_header("Mcp-Session-Id"));
    json body = body_of(res);
    EXPECT_TRUE(body.contains("error")) << res->body;
    EXPECT_EQ(body["error"]["code"], code) << res->body;
    EXPECT_EQ(body["id"], id) << res->body;
    return body["error"].is_object() ? body["error"] : json::object();
}

std::set<std::string> tool_names(const json& result) {
    std::set<std::string> names;
    for (const auto& t : result["tools"]) names.insert(t["name"].get<std::string>());
    return names;
}

struct ModernFixture {
    ModernFixture() {
        server = std::make_unique<ServerProcess>(identity::server_options());
        client = std::make_unique<httplib::Client>(server->base_url());
        admin = login(*client, "admin", kAdminPassword);
        token = identity::create_token(*client, admin, "mcp-supervised", "supervised",
                                       now_s() + 7 * 86400);
    }

    httplib::Result post(const httplib::Headers& h, const json& body) {
        return client->Post("/mcp/v1/", h, body.dump(), "application/json");
    }

    // A 2026 request whose headers agree with its body.
    httplib::Result modern(const std::string& method, json params = json::object(),
                           const std::string& name = "", json id = 1) {
        return post(modern_headers(token, method, name),
                    modern_body(method, std::move(params), std::move(id)));
    }

    std::unique_ptr<ServerProcess> server;
    std::unique_ptr<httplib::Client> client;
    identity::Session admin;
    std::string token;
};

TEST(McpModern, ServerDiscoverNamesTheVersionAndCapabilitiesWithoutASession) {
    ModernFixture f;
    auto res = f.modern("server/discover");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << res->body;
    EXPECT_FALSE(res->has_header("Mcp-Session-Id"));
    json body = body_of(res);
    ASSERT_TRUE(body.contains("result")) << res->body;
    json& result = body["result"];
    EXPECT_EQ(result["supportedVersions"], json::array({kModern}));
    EXPECT_TRUE(result["capabilities"].contains("tools")) << result.dump();
    EXPECT_FALSE(result["capabilities"]["resources"].contains("subscribe"));
    EXPECT_EQ(result["resultType"], "complete");
    EXPECT_EQ(result["_meta"][kMetaServerInfo]["name"], "yuzu-server");

    // The 2025 era has no server/discover.
    auto legacy = f.post(legacy_headers(f.token), legacy_body("server/discover"));
    ASSERT_TRUE(legacy);
    EXPECT_EQ(body_of(legacy)["error"]["code"], -32601) << legacy->body;
}

TEST(McpModern, ToolsListCarriesCachingHintsAndTheToolsOfA2025List) {
    ModernFixture f;
    auto res = f.modern("tools/list");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << res->body;
    json modern = body_of(res)["result"];
    EXPECT_EQ(modern["resultType"], "complete");
    ASSERT_TRUE(modern["ttlMs"].is_number_integer()) << modern.dump();
    EXPECT_GE(modern["ttlMs"].get<int64_t>(), 0);
    EXPECT_EQ(modern["cacheScope"], "private");

    auto legacy = f.post(legacy_headers(f.token), legacy_body("tools/list"));
    ASSERT_TRUE(legacy);
    EXPECT_EQ(legacy->status, 200) << legacy->body;
    json old = body_of(legacy)["result"];
    EXPECT_FALSE(old.contains("resultType")) << "a 2025 answer is unchanged";
    const auto names = tool_names(modern);
    EXPECT_FALSE(names.empty());
    EXPECT_EQ(names, tool_names(old));
}

TEST(McpModern, TheModernVersionHeaderWithoutMetaIsInvalidParamsWithTheRequestId) {
    ModernFixture f;
    const json body = {{"jsonrpc", "2.0"},
                       {"id", "no-meta-1"},
                       {"method", "tools/list"},
                       {"params", json::object()}};
    json error =
        refused(f.post(modern_headers(f.token, "tools/list"), body), 400, -32602, "no-meta-1");
    EXPECT_TRUE(error["data"]["remediation"].is_string()) << error.dump();
}

TEST(McpModern, AnUnknownVersionInHeaderAndMetaIsUnsupportedProtocolVersion) {
    ModernFixture f;
    auto res = f.post(modern_headers(f.token, "tools/list", "", "v999"),
                      modern_body("tools/list", json::object(), 21, "v999"));
    json error = refused(res, 400, -32022, 21);
    EXPECT_EQ(error["data"]["supported"], json::array({kModern})) << error.dump();
    EXPECT_EQ(error["data"]["requested"], "v999");
}

TEST(McpModern, AVersionHeaderThatDisagreesWithMetaIsAHeaderMismatch) {
    ModernFixture f;
    auto res = f.post(modern_headers(f.token, "tools/list"),
                      modern_body("tools/list", json::object(), 22, "v999"));
    json error = refused(res, 400, -32020, 22);
    EXPECT_EQ(error["data"]["header"], "MCP-Protocol-Version") << error.dump();
}

TEST(McpModern, AMissingMcpMethodHeaderIsAHeaderMismatch) {
    ModernFixture f;
    auto res = f.post(modern_headers(f.token, ""), modern_body("tools/list", json::object(), 23));
    json error = refused(res, 400, -32020, 23);
    EXPECT_EQ(error["data"]["header"], "Mcp-Method") << error.dump();
}

// cpp-httplib percent-decodes header values; yuzu compares the bytes that
// were sent. A header that only decodes to the body's value disagrees with
// it (a proxy routing on the header saw something else), and a literal
// "%20" that matches the body byte for byte agrees.
TEST(McpModern, HeadersAreComparedAsSentNotPercentDecoded) {
    ModernFixture f;
    auto method = f.post(modern_headers(f.token, "tools%2Flist"),
                         modern_body("tools/list", json::object(), 25));
    EXPECT_EQ(refused(method, 400, -32020, 25)["data"]["header"], "Mcp-Method");

    auto version = f.post(modern_headers(f.token, "tools/list", "", "2026%2D07%2D28"),
                          modern_body("tools/list", json::object(), 26));
    EXPECT_EQ(refused(version, 400, -32020, 26)["data"]["header"], "MCP-Protocol-Version");

    const std::string health = "yuzu://server/health";
    auto name = f.post(modern_headers(f.token, "resources/read", "yuzu://server%2Fhealth"),
                       modern_body("resources/read", {{"uri", health}}, 27));
    EXPECT_EQ(refused(name, 400, -32020, 27)["data"]["header"], "Mcp-Name");

    const std::string uri = "yuzu://no/such%20resource";
    json error = refused(f.modern("resources/read", {{"uri", uri}}, uri, 28), 200, -32602, 28);
    EXPECT_EQ(error["data"]["uri"], uri) << error.dump();
}

TEST(McpModern, ATwiceSentVersionHeaderIsRefusedBeforeTheEraIsChosen) {
    ModernFixture f;
    // 2025 first, 2026 second: read either way, one reader would skip the
    // 2026 header rules that the other trusts.
    auto headers = modern_headers(f.token, "tools/list");
    headers.erase("MCP-Protocol-Version");
    headers.emplace("MCP-Protocol-Version", "2025-11-25");
    headers.emplace("MCP-Protocol-Version", kModern);
    auto res = f.post(headers, modern_body("tools/list", json::object(), 24));
    refused(res, 400, -32600, 24);
}

TEST(McpModern, AResponseIsRefusedBecauseTheServerAskedNothing) {
    ModernFixture f;
    const json response = {{"jsonrpc", "2.0"}, {"id", "r-1"}, {"result", json::object()}};
    json error = refused(f.post(modern_headers(f.token, ""), response), 400, -32600, "r-1");
    EXPECT_NE(error["message"].get<std::string>().find("sends no requests"), std::string::npos)
        << error.dump();
    // A notification is accepted with no body.
    const json note = {{"jsonrpc", "2.0"},
                       {"method", "notifications/initialized"},
                       {"params", modern_body("x")["params"]}};
    auto res = f.post(modern_headers(f.token, "notifications/initialized"), note);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 202) << res->body;
}

TEST(McpModern, MethodsTheRevisionRemovedAndUnknownMethodsAreNotFound) {
    ModernFixture f;
    int id = 30;
    for (const auto& [method, params] : std::vector<std::pair<std::string, json>>{
             {"initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}}},
             {"ping", json::object()},
             {"logging/setLevel", {{"level", "info"}}},
             {"resources/subscribe", {{"uri", "yuzu://server/health"}}},
             {"no/such/method", json::object()}}) {
        ++id;
        json error = refused(f.modern(method, params, "", id), 404, -32601, id);
        EXPECT_TRUE(error["data"]["remediation"].is_string()) << method;
    }
}

TEST(McpModern, The2025SessionFlowStillWorksOnTheSameServer) {
    ModernFixture f;
    auto init =
        f.post(legacy_headers(f.token),
               legacy_body("initialize", {{"protocolVersion", "2025-11-25"},
                                          {"capabilities", json::object()},
                                          {"clientInfo", {{"name", "t"}, {"version", "1"}}}}));
    ASSERT_TRUE(init);
    ASSERT_EQ(init->status, 200) << init->body;
    const std::string session = init->get_header_value("Mcp-Session-Id");
    EXPECT_EQ(session.size(), 32u);
    EXPECT_EQ(body_of(init)["result"]["protocolVersion"], "2025-11-25");

    auto h = legacy_headers(f.token);
    h.emplace("Mcp-Session-Id", session);
    h.emplace("MCP-Protocol-Version", "2025-11-25");
    auto list = f.post(h, legacy_body("tools/list", json::object(), 2));
    ASSERT_TRUE(list);
    EXPECT_EQ(list->status, 200) << list->body;
    EXPECT_TRUE(body_of(list)["result"]["tools"].is_array()) << list->body;

    auto old_version = legacy_headers(f.token);
    old_version.emplace("MCP-Protocol-Version", "1999-01-01");
    auto refused_version = f.post(old_version, legacy_body("ping", json::object(), 3));
    ASSERT_TRUE(refused_version);
    EXPECT_EQ(refused_version->status, 400);
    EXPECT_EQ(body_of(refused_version)["error"]["code"], -32009) << refused_version->body;
}

TEST(McpModern, AnUnauthenticatedModernRequestIsRefusedWith401) {
    ModernFixture f;
    auto res = f.post(modern_headers("", "tools/list"), modern_body("tools/list"));
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 401);
    EXPECT_EQ(res->get_header_value("WWW-Authenticate").rfind("Bearer", 0), 0u);
}

TEST(McpModern, ResourcesReadIsNeverCachedAndAnUnknownUriIsNamedInTheError) {
    ModernFixture f;
    auto health =
        f.modern("resources/read", {{"uri", "yuzu://server/health"}}, "yuzu://server/health");
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200) << health->body;
    json read = body_of(health)["result"];
    EXPECT_EQ(read["resultType"], "complete") << health->body;
    EXPECT_EQ(read["ttlMs"], 0);
    EXPECT_EQ(read["cacheScope"], "private");

    const std::string uri = "yuzu://no/such/resource";
    json error = refused(f.modern("resources/read", {{"uri", uri}}, uri, 41), 200, -32602, 41);
    EXPECT_EQ(error["data"]["uri"], uri) << error.dump();
}

TEST(McpModern, AStreamedToolCallSendsProgressThenTheCompleteResultWithoutASession) {
    fleet::FleetFixture f({"--mcp-stream-tick-ms", "200"});
    const std::string op = f.mcp_tokens["operator"];
    auto agents = f.start_agents(2, f.enrollment_token());
    ASSERT_TRUE(fleet::wait_for([&] { return f.online_count(op) == 2u; }, seconds(30)))
        << agents->log();

    json body = modern_body(
        "tools/call",
        {{"name", "execute_instruction"}, {"arguments", {{"plugin", "os"}, {"action", "info"}}}},
        11);
    body["params"]["_meta"]["progressToken"] = "modern-1";
    const std::vector<std::pair<std::string, std::string>> headers = {
        {"Authorization", "Bearer " + op},
        {"Accept", "application/json, text/event-stream"},
        {"MCP-Protocol-Version", kModern},
        {"Mcp-Method", "tools/call"},
        {"Mcp-Name", "execute_instruction"}};
    mcp_stream::SseClient s;
    ASSERT_TRUE(s.post(f.server->port(), headers, body.dump()));
    ASSERT_EQ(s.status, 200) << s.body;
    EXPECT_EQ(s.headers["content-type"], "text/event-stream");
    EXPECT_EQ(s.headers.count("mcp-session-id"), 0u);

    std::vector<json> progress;
    std::optional<json> result;
    const auto deadline = std::chrono::steady_clock::now() + seconds(20);
    while (!result && std::chrono::steady_clock::now() < deadline) {
        auto e = s.next_event(seconds(10));
        if (!e) break;
        // Nothing can resume a 2026 stream, so no event names an id.
        EXPECT_FALSE(e->id.has_value()) << "event with id " << *e->id << ": " << e->data;
        if (e->data.empty()) continue;
        json m = json::parse(e->data, nullptr, false);
        if (m.is_object() && m.value("method", "") == "notifications/progress") {
            progress.push_back(m["params"]);
        } else if (m.is_object() && m.contains("id")) {
            result = m;
        }
    }
    ASSERT_TRUE(result) << "the JSON-RPC result is the last message";
    EXPECT_EQ((*result)["id"], 11);
    EXPECT_EQ((*result)["result"]["resultType"], "complete") << result->dump();
    const json sc = (*result)["result"]["structuredContent"];
    EXPECT_TRUE(sc.contains("execution_id")) << result->dump();
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back()["progressToken"], "modern-1");
    EXPECT_EQ(progress.back()["progress"], 2);
    EXPECT_EQ(progress.back()["total"], 2);
    EXPECT_TRUE(s.wait_eof(std::chrono::milliseconds(2000)));

    // When only a wildcard covers text/event-stream the client has not asked
    // for a stream, and 2026 has no GET channel to carry the progress
    // instead: a plain answer, counted as its own degrade reason.
    httplib::Client c(f.server->base_url());
    body["id"] = 12;
    body["params"]["_meta"]["progressToken"] = "modern-2";
    httplib::Headers wildcard_accept;
    for (const auto& [k, v] : headers)
        wildcard_accept.emplace(k, k == "Accept" ? "application/json, */*" : v);
    auto plain = c.Post("/mcp/v1/", wildcard_accept, body.dump(), "application/json");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->status, 200) << plain->body;
    EXPECT_EQ(plain->get_header_value("Content-Type"), "application/json");
    EXPECT_TRUE(body_of(plain)["result"]["structuredContent"].contains("execution_id"))
        << plain->body;
    EXPECT_EQ(mcp_stream::metric_value(c, "yuzu_mcp_bridge_degrade_total{reason=\"no_stream\"}"),
              1);
    EXPECT_EQ(mcp_stream::metric_value(c, "yuzu_mcp_bridge_degrade_total{reason=\"no_session\"}"),
              0);
}

}  // namespace
}  // namespace yuzu::testing
