// 401s over real HTTP say why (RFC 6750 §3): an expired, a revoked and an
// unknown token each get `WWW-Authenticate: Bearer realm="yuzu",
// error="invalid_token", error_description="..."` naming the reason, on
// REST and on /mcp/v1/ alike; a request with no credentials gets the plain
// challenge. Neither the header nor the body repeats the token.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "identity_test_helpers.hpp"
#include "support/server_process.hpp"

namespace yuzu::testing::identity {
namespace {

constexpr char kPlain[] = R"(Bearer realm="yuzu")";

std::string invalid_token(const std::string& description) {
    return std::string(R"(Bearer realm="yuzu", error="invalid_token", error_description=")") +
           description + "\"";
}

struct Answer {
    int status = -1;
    std::string challenge;
    std::string body;
};

Answer rest(httplib::Client& c, const httplib::Headers& headers) {
    auto res = c.Get("/api/v1/me", headers);
    if (!res) return {};
    return {res->status, res->get_header_value("WWW-Authenticate"), res->body};
}

Answer mcp(httplib::Client& c, httplib::Headers headers) {
    headers.emplace("Accept", "application/json, text/event-stream");
    auto res = c.Post("/mcp/v1/", headers, R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
                      "application/json");
    if (!res) return {};
    return {res->status, res->get_header_value("WWW-Authenticate"), res->body};
}

void expect_refused(httplib::Client& c, const std::string& token, const std::string& challenge) {
    for (const auto& [surface, answer] :
         {std::pair{"REST", rest(c, bearer(token))}, std::pair{"MCP", mcp(c, bearer(token))},
          std::pair{"REST X-Yuzu-Token", rest(c, {{"X-Yuzu-Token", token}})}}) {
        SCOPED_TRACE(surface);
        EXPECT_EQ(answer.status, 401) << answer.body;
        EXPECT_EQ(answer.challenge, challenge);
        EXPECT_EQ(answer.challenge.find(token), std::string::npos);
        EXPECT_EQ(answer.body.find(token), std::string::npos) << answer.body;
    }
}

TEST(WwwAuthenticate, ExpiredRevokedAndUnknownTokensEachSayWhy) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const Session admin = login(c, "admin", kAdminPassword);

    const int64_t expires = now_s() + 2;
    const std::string expiring = create_token(c, admin, "short-lived", "readonly", expires);
    const std::string doomed = create_token(c, admin, "doomed");
    ASSERT_FALSE(expiring.empty());
    ASSERT_FALSE(doomed.empty());
    EXPECT_EQ(rest(c, bearer(expiring)).status, 200);
    EXPECT_EQ(mcp(c, bearer(doomed)).status, 200);

    // Revoked.
    auto listed = c.Get("/api/v1/tokens", admin.headers());
    ASSERT_TRUE(listed);
    std::string doomed_id;
    const nlohmann::json tokens = nlohmann::json::parse(listed->body);
    for (const auto& t : tokens["tokens"]) {
        if (t["name"] == "doomed") doomed_id = t["id"].get<std::string>();
    }
    ASSERT_FALSE(doomed_id.empty()) << listed->body;
    auto revoked = c.Delete("/api/v1/tokens/" + doomed_id, admin.headers());
    ASSERT_TRUE(revoked);
    ASSERT_EQ(revoked->status, 204) << revoked->body;
    expect_refused(c, doomed, invalid_token("the token has been revoked"));

    // Unknown: well-formed, never issued; and not token-shaped at all.
    expect_refused(c, "yuzu_" + std::string(32, 'Q'), invalid_token("the token is unknown"));
    expect_refused(c, "not-a-yuzu-token", invalid_token("the token is unknown"));

    // Expired: wait until the expiry second has passed.
    while (now_s() <= expires) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    expect_refused(c, expiring, invalid_token("the token has expired"));
}

TEST(WwwAuthenticate, NoCredentialsGetThePlainChallenge) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    for (const auto& [surface, answer] :
         {std::pair{"REST", rest(c, {})}, std::pair{"MCP", mcp(c, {})},
          std::pair{"REST Basic", rest(c, {{"Authorization", "Basic YWRtaW46eA=="}})},
          std::pair{"MCP Basic", mcp(c, {{"Authorization", "Basic YWRtaW46eA=="}})}}) {
        SCOPED_TRACE(surface);
        EXPECT_EQ(answer.status, 401) << answer.body;
        EXPECT_EQ(answer.challenge, kPlain);
        EXPECT_EQ(answer.challenge.find("error="), std::string::npos);
    }
    // A stale session cookie is not a bearer token either.
    auto stale = rest(c, {{"Cookie", "yuzu_session=stale-session-value"}});
    EXPECT_EQ(stale.status, 401);
    EXPECT_EQ(stale.challenge, kPlain);
}

TEST(WwwAuthenticate, TheDescriptionMatchesTheBodyMessage) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const auto answer = rest(c, bearer("yuzu_" + std::string(32, 'Z')));
    ASSERT_EQ(answer.status, 401);
    EXPECT_EQ(nlohmann::json::parse(answer.body)["error"]["message"], "the token is unknown");
}

}  // namespace
}  // namespace yuzu::testing::identity
