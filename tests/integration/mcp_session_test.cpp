// MCP sessions over real sockets: minting on initialize, principal binding,
// DELETE, caps, the protocol-version rule and the GET pre-checks.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "mcp_stream_helpers.hpp"

namespace yuzu::testing::mcp_stream {
namespace {

// The body without its correlation id (fresh per error by design).
std::string without_correlation(const std::string& body) {
    json j = json::parse(body);
    if (j.contains("error")) j["error"]["data"].erase("correlation_id");
    return j.dump();
}

TEST(McpSession, InitializeMintsAnIdBoundToThePrincipal) {
    StreamFixture f;
    ASSERT_FALSE(f.token.empty());
    std::set<std::string> ids;
    for (int i = 0; i < 3; ++i) ids.insert(open_session(*f.client, f.token));
    ASSERT_EQ(ids.size(), 3u);
    for (const auto& id : ids) EXPECT_TRUE(std::regex_match(id, std::regex("[0-9a-f]{32}"))) << id;
    const std::string mine = *ids.begin();

    const std::string ping = R"({"jsonrpc":"2.0","id":7,"method":"ping"})";
    auto ok = f.client->Post("/mcp/v1/", mcp_headers(f.token, mine), ping, "application/json");
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->status, 200) << ok->body;

    // Another principal with a valid id, an unknown id and a deleted id are
    // answered alike.
    const std::string api =
        identity::create_token(*f.client, f.admin, "api", "", identity::now_s() + 86400);
    identity::create_user(*f.client, api, "bob", "bob-password-1234", {"Operator"});
    httplib::Client bob_client(f.server->base_url());
    const auto bob = identity::login(bob_client, "bob", "bob-password-1234");
    const std::string bob_token =
        identity::create_token(bob_client, bob, "bob", "operator", identity::now_s() + 86400);
    ASSERT_FALSE(bob_token.empty());
    auto foreign =
        f.client->Post("/mcp/v1/", mcp_headers(bob_token, mine), ping, "application/json");
    auto unknown = f.client->Post("/mcp/v1/", mcp_headers(f.token, std::string(32, 'a')), ping,
                                  "application/json");
    const std::string doomed = *std::next(ids.begin());
    auto del = f.client->Delete("/mcp/v1/", mcp_headers(f.token, doomed));
    ASSERT_TRUE(del);
    EXPECT_EQ(del->status, 200);
    auto deleted =
        f.client->Post("/mcp/v1/", mcp_headers(f.token, doomed), ping, "application/json");
    for (const auto* res : {&foreign, &unknown, &deleted}) {
        ASSERT_TRUE(*res);
        EXPECT_EQ((*res)->status, 404);
        EXPECT_EQ(json::parse((*res)->body)["error"]["code"], -32007);
    }
    EXPECT_EQ(without_correlation(foreign->body), without_correlation(unknown->body));
    EXPECT_EQ(without_correlation(unknown->body), without_correlation(deleted->body));
    // The owner's session is untouched by bob's attempt.
    auto still = f.client->Post("/mcp/v1/", mcp_headers(f.token, mine), ping, "application/json");
    EXPECT_EQ(still->status, 200);
}

TEST(McpSession, AnswersWithAndWithoutASessionAreByteIdentical) {
    StreamFixture f;
    const std::string id = open_session(*f.client, f.token);
    ASSERT_FALSE(id.empty());
    for (const char* body : {R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})",
                             R"({"jsonrpc":"2.0","id":4,"method":"ping"})",
                             R"({"jsonrpc":"2.0","id":5,"method":"prompts/list"})"}) {
        SCOPED_TRACE(body);
        auto with = f.client->Post("/mcp/v1/", mcp_headers(f.token, id), body, "application/json");
        auto without = f.client->Post("/mcp/v1/", mcp_headers(f.token), body, "application/json");
        ASSERT_TRUE(with && without);
        EXPECT_EQ(with->status, 200);
        EXPECT_EQ(with->body, without->body);
        EXPECT_FALSE(without->has_header("Mcp-Session-Id"));
    }
    // A notification with a session is accepted; one naming a dead session
    // is not.
    const std::string note = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";
    auto accepted = f.client->Post("/mcp/v1/", mcp_headers(f.token, id), note, "application/json");
    EXPECT_EQ(accepted->status, 202);
    auto dead = f.client->Post("/mcp/v1/", mcp_headers(f.token, std::string(32, 'b')), note,
                               "application/json");
    EXPECT_EQ(dead->status, 404);
}

TEST(McpSession, DeleteEndsTheSessionOnce) {
    StreamFixture f;
    const std::string id = open_session(*f.client, f.token);
    auto first = f.client->Delete("/mcp/v1/", mcp_headers(f.token, id));
    ASSERT_TRUE(first);
    EXPECT_EQ(first->status, 200);
    auto second = f.client->Delete("/mcp/v1/", mcp_headers(f.token, id));
    EXPECT_EQ(second->status, 404);
    EXPECT_EQ(json::parse(second->body)["error"]["code"], -32007);
    SseClient get;
    ASSERT_TRUE(get.open(f.server->port(), get_headers(f.token, id)));
    EXPECT_EQ(get.status, 404);
    auto missing = f.client->Delete("/mcp/v1/", mcp_headers(f.token));
    EXPECT_EQ(missing->status, 400);
    auto anonymous = f.client->Delete("/mcp/v1/", httplib::Headers{{"Mcp-Session-Id", id}});
    EXPECT_EQ(anonymous->status, 401);
}

TEST(McpSession, ALaterRequestMayNotClaimANewerProtocolVersion) {
    StreamFixture f;
    const std::string init =
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
        R"("capabilities":{},"clientInfo":{"name":"v","version":"1"}}})";
    auto res = f.client->Post("/mcp/v1/", mcp_headers(f.token), init, "application/json");
    ASSERT_TRUE(res);
    const std::string id = res->get_header_value("Mcp-Session-Id");
    ASSERT_FALSE(id.empty());
    const std::string ping = R"({"jsonrpc":"2.0","id":2,"method":"ping"})";
    auto with_version = [&](const std::string& v) {
        auto h = mcp_headers(f.token, id);
        if (!v.empty()) h.emplace("MCP-Protocol-Version", v);
        return f.client->Post("/mcp/v1/", h, ping, "application/json");
    };
    EXPECT_EQ(with_version("")->status, 200);
    EXPECT_EQ(with_version("2025-06-18")->status, 200);
    EXPECT_EQ(with_version("2025-03-26")->status, 200);
    auto newer = with_version("2025-11-25");
    EXPECT_EQ(newer->status, 400);
    EXPECT_EQ(json::parse(newer->body)["error"]["code"], -32009);
    EXPECT_EQ(with_version("1999-01-01")->status, 400);
}

TEST(McpSession, CapsRefuseNewSessionsAndNeverEvictLiveOnes) {
    StreamFixture f({"--mcp-max-sessions-per-principal", "2", "--mcp-max-sessions", "3"});
    const std::string a = open_session(*f.client, f.token);
    const std::string b = open_session(*f.client, f.token);
    ASSERT_FALSE(a.empty());
    ASSERT_FALSE(b.empty());
    auto third = f.client->Post("/mcp/v1/", mcp_headers(f.token), kInitialize, "application/json");
    ASSERT_TRUE(third);
    EXPECT_EQ(third->status, 429);
    EXPECT_EQ(json::parse(third->body)["error"]["code"], -32010);
    EXPECT_FALSE(third->has_header("Mcp-Session-Id"));
    const std::string ping = R"({"jsonrpc":"2.0","id":2,"method":"ping"})";
    EXPECT_EQ(f.client->Post("/mcp/v1/", mcp_headers(f.token, a), ping, "application/json")->status,
              200);
    // The global cap, with a second principal.
    const std::string api =
        identity::create_token(*f.client, f.admin, "api", "", identity::now_s() + 86400);
    identity::create_user(*f.client, api, "carol", "carol-password-1234", {"Operator"});
    httplib::Client carol_client(f.server->base_url());
    const std::string carol = identity::create_token(
        carol_client, identity::login(carol_client, "carol", "carol-password-1234"), "carol",
        "operator", identity::now_s() + 86400);
    EXPECT_FALSE(open_session(*f.client, carol).empty());
    auto global = f.client->Post("/mcp/v1/", mcp_headers(carol), kInitialize, "application/json");
    EXPECT_EQ(global->status, 429);
    EXPECT_EQ(global->get_header_value("Retry-After"), "5");
    // Ending one frees its place.
    EXPECT_EQ(f.client->Delete("/mcp/v1/", mcp_headers(f.token, a))->status, 200);
    EXPECT_FALSE(open_session(*f.client, f.token).empty());
    EXPECT_EQ(f.metric("yuzu_mcp_stream_rejects_total{reason=\"session_per_principal_cap\"}"), 1);
    EXPECT_EQ(f.metric("yuzu_mcp_stream_rejects_total{reason=\"session_global_cap\"}"), 1);
}

TEST(McpSession, GetPrechecksRefuseWithTheirOwnStatus) {
    StreamFixture f;
    const std::string id = open_session(*f.client, f.token);
    struct Case {
        const char* name;
        std::vector<std::pair<std::string, std::string>> headers;
        int status;
    };
    const std::vector<Case> cases = {
        {"no session header",
         {{"Authorization", "Bearer " + f.token}, {"Accept", "text/event-stream"}},
         400},
        {"wildcard Accept",
         {{"Authorization", "Bearer " + f.token}, {"Accept", "*/*"}, {"Mcp-Session-Id", id}},
         406},
        {"q=0",
         {{"Authorization", "Bearer " + f.token},
          {"Accept", "text/event-stream;q=0"},
          {"Mcp-Session-Id", id}},
         406},
        {"no credential", {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", id}}, 401},
        {"a web session cookie only",
         {{"Cookie", "yuzu_session=" + f.admin.cookie},
          {"Accept", "text/event-stream"},
          {"Mcp-Session-Id", id}},
         401},
        {"dead session", get_headers(f.token, std::string(32, 'c')), 404},
        {"bad Last-Event-ID", get_headers(f.token, id, "12x"), 400},
        {"negative Last-Event-ID", get_headers(f.token, id, "-1"), 400},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        SseClient get;
        ASSERT_TRUE(get.open(f.server->port(), c.headers));
        EXPECT_EQ(get.status, c.status) << get.body;
    }
    EXPECT_EQ(f.metric("yuzu_mcp_stream_rejects_total{reason=\"not_acceptable\"}"), 2);
    EXPECT_EQ(f.metric("yuzu_mcp_stream_rejects_total{reason=\"missing_session_header\"}"), 1);
    EXPECT_EQ(f.metric("yuzu_mcp_stream_rejects_total{reason=\"unknown_session\"}"), 1);
    // HEAD is not a way to attach (it would take the stream over unseen).
    httplib::Headers head_headers{{"Authorization", "Bearer " + f.token},
                                  {"Accept", "text/event-stream"},
                                  {"Mcp-Session-Id", id}};
    auto head = f.client->Head("/mcp/v1/", head_headers);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->status, 405);
    // None of that hurt the session.
    SseClient ok;
    ASSERT_TRUE(ok.open(f.server->port(), get_headers(f.token, id)));
    EXPECT_EQ(ok.status, 200);
}

}  // namespace
}  // namespace yuzu::testing::mcp_stream
