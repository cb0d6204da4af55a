// API and MCP tokens over real HTTP: create, list, rotate (old secret valid
// until confirm), revoke, MCP expiry rules, tier narrowing, audit rows.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "identity_test_helpers.hpp"
#include "support/server_process.hpp"

namespace yuzu::testing::identity {
namespace {

int status_of(httplib::Client& c, const std::string& token) {
    auto res = c.Get("/api/v1/me", bearer(token));
    return res ? res->status : -1;
}

TEST(IdentityTokens, CreateListRotateConfirmRevoke) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const std::string admin = create_token(c, login(c, "admin", kAdminPassword), "admin-cli");

    auto created =
        c.Post("/api/v1/tokens", bearer(admin),
               json{{"name", "ci"}, {"expires_at", now_s() + 3600}}.dump(), "application/json");
    ASSERT_TRUE(created);
    ASSERT_EQ(created->status, 201) << created->body;
    const json made = json::parse(created->body);
    const std::string id = made["id"];
    const std::string secret = made["token"];
    EXPECT_EQ(id.size(), 24u);
    EXPECT_EQ(secret.rfind("yuzu_", 0), 0u);
    EXPECT_EQ(secret.size(), 37u);
    EXPECT_EQ(made["name"], "ci");
    EXPECT_EQ(made["mcp_tier"], "");

    auto listed = c.Get("/api/v1/tokens", bearer(admin));
    ASSERT_TRUE(listed);
    ASSERT_EQ(listed->status, 200);
    EXPECT_EQ(listed->body.find(secret), std::string::npos) << "a listing never shows a secret";
    json entry;
    const json tokens = json::parse(listed->body)["tokens"];
    for (const auto& t : tokens)
        if (t["id"] == id) entry = t;
    ASSERT_FALSE(entry.is_null()) << listed->body;
    EXPECT_EQ(entry["name"], "ci");
    EXPECT_EQ(entry["revoked"], false);
    EXPECT_EQ(entry["rotation_pending"], false);
    EXPECT_FALSE(entry.contains("token"));

    auto me = c.Get("/api/v1/me", bearer(secret));
    ASSERT_TRUE(me);
    ASSERT_EQ(me->status, 200);
    EXPECT_EQ(json::parse(me->body)["principal_kind"], "api_token");
    // X-Yuzu-Token works as well as Bearer.
    auto alt = c.Get("/api/v1/me", httplib::Headers{{"X-Yuzu-Token", secret}});
    ASSERT_TRUE(alt);
    EXPECT_EQ(alt->status, 200);

    auto rotated =
        c.Post("/api/v1/tokens/" + id + "/rotate", bearer(admin), "", "application/json");
    ASSERT_TRUE(rotated);
    ASSERT_EQ(rotated->status, 200) << rotated->body;
    const std::string fresh = json::parse(rotated->body)["token"];
    EXPECT_EQ(json::parse(rotated->body)["id"], id);
    EXPECT_NE(fresh, secret);
    EXPECT_EQ(status_of(c, secret), 200) << "old secret works until confirm";
    EXPECT_EQ(status_of(c, fresh), 200);

    auto confirm =
        c.Post("/api/v1/tokens/" + id + "/confirm-rotation", bearer(admin), "", "application/json");
    ASSERT_TRUE(confirm);
    EXPECT_EQ(confirm->status, 204) << confirm->body;
    EXPECT_EQ(status_of(c, secret), 401) << "old secret is gone after confirm";
    EXPECT_EQ(status_of(c, fresh), 200);
    auto again =
        c.Post("/api/v1/tokens/" + id + "/confirm-rotation", bearer(admin), "", "application/json");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->status, 409);

    auto revoke = c.Delete("/api/v1/tokens/" + id, bearer(admin));
    ASSERT_TRUE(revoke);
    EXPECT_EQ(revoke->status, 204) << revoke->body;
    auto after = c.Get("/api/v1/me", bearer(fresh));
    ASSERT_TRUE(after);
    EXPECT_EQ(after->status, 401);
    EXPECT_NE(after->get_header_value("WWW-Authenticate").find("Bearer"), std::string::npos);
    auto missing = c.Delete("/api/v1/tokens/0123456789abcdef01234567", bearer(admin));
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->status, 404);

    for (const char* action :
         {"token.create", "token.rotate", "token.confirm_rotation", "token.revoke"}) {
        const json rows =
            audit_events(c, admin, std::string("action=") + action + "&target_id=" + id);
        ASSERT_GE(rows.size(), 1u) << action;
        EXPECT_EQ(rows[0]["target_type"], "api_token");
        EXPECT_EQ(rows[0]["principal"], "admin");
        EXPECT_EQ(rows[0]["principal_kind"], "api_token");
    }
    auto all = c.Get("/api/v1/audit?limit=500", bearer(admin));
    ASSERT_TRUE(all);
    EXPECT_EQ(all->body.find(secret), std::string::npos);
    EXPECT_EQ(all->body.find(fresh), std::string::npos);
}

TEST(IdentityTokens, OnlyTheOwnerOrAnAdminMayRevoke) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const std::string admin = create_token(c, login(c, "admin", kAdminPassword), "admin-cli");
    create_user(c, admin, "carol", "carol-long-password", {"Viewer"});
    create_user(c, admin, "dave", "dave-long-password-", {"Viewer"});
    const Session carol = login(c, "carol", "carol-long-password");
    auto made =
        c.Post("/api/v1/tokens", carol.headers(), json{{"name", "c"}}.dump(), "application/json");
    ASSERT_TRUE(made);
    ASSERT_EQ(made->status, 201);
    const std::string id = json::parse(made->body)["id"];
    const std::string dave = create_token(c, login(c, "dave", "dave-long-password-"), "d");
    auto by_dave = c.Delete("/api/v1/tokens/" + id, bearer(dave));
    ASSERT_TRUE(by_dave);
    EXPECT_EQ(by_dave->status, 404) << "another user's token looks like no token";
    auto listed = c.Get("/api/v1/tokens", bearer(dave));
    ASSERT_TRUE(listed);
    EXPECT_EQ(listed->body.find(id), std::string::npos) << "listing is self-scoped";
    auto by_admin = c.Delete("/api/v1/tokens/" + id, bearer(admin));
    ASSERT_TRUE(by_admin);
    EXPECT_EQ(by_admin->status, 204);
}

TEST(IdentityTokens, McpTokenExpiryRulesAndTierNarrowing) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const std::string admin = create_token(c, login(c, "admin", kAdminPassword), "admin-cli");
    auto post = [&](const json& body) {
        return c.Post("/api/v1/tokens", bearer(admin), body.dump(), "application/json");
    };
    auto no_expiry = post({{"name", "mcp"}, {"mcp_tier", "readonly"}});
    ASSERT_TRUE(no_expiry);
    EXPECT_EQ(no_expiry->status, 400) << no_expiry->body;
    auto too_far = post(
        {{"name", "mcp"}, {"mcp_tier", "readonly"}, {"expires_at", now_s() + 91LL * 24 * 3600}});
    ASSERT_TRUE(too_far);
    EXPECT_EQ(too_far->status, 400) << too_far->body;
    auto bad_tier = post({{"name", "mcp"}, {"mcp_tier", "god"}, {"expires_at", now_s() + 60}});
    ASSERT_TRUE(bad_tier);
    EXPECT_EQ(bad_tier->status, 400);
    auto bad_type = post({{"name", 7}});
    ASSERT_TRUE(bad_type);
    EXPECT_EQ(bad_type->status, 400);
    auto bad_json = c.Post("/api/v1/tokens", bearer(admin), "{\"name\":", "application/json");
    ASSERT_TRUE(bad_json);
    EXPECT_EQ(bad_json->status, 400);
    EXPECT_TRUE(json::parse(bad_json->body)["error"].contains("correlation_id"));

    auto ok = post(
        {{"name", "mcp"}, {"mcp_tier", "readonly"}, {"expires_at", now_s() + 30LL * 24 * 3600}});
    ASSERT_TRUE(ok);
    ASSERT_EQ(ok->status, 201) << ok->body;
    const std::string mcp = json::parse(ok->body)["token"];
    EXPECT_EQ(json::parse(ok->body)["mcp_tier"], "readonly");
    auto me = c.Get("/api/v1/me", bearer(mcp));
    ASSERT_TRUE(me);
    ASSERT_EQ(me->status, 200);
    EXPECT_EQ(json::parse(me->body)["principal_kind"], "mcp_token");
    EXPECT_EQ(json::parse(me->body)["mcp_tier"], "readonly");
    // The owner is an Administrator, but a readonly tier only reads.
    auto write = c.Post("/api/v1/management-groups", bearer(mcp), json{{"name", "g"}}.dump(),
                        "application/json");
    ASSERT_TRUE(write);
    EXPECT_EQ(write->status, 403);
    auto read = c.Get("/api/v1/management-groups", bearer(mcp));
    ASSERT_TRUE(read);
    EXPECT_EQ(read->status, 200);
    auto check = c.Post("/api/v1/rbac/check", bearer(mcp),
                        json{{"permission", "ManagementGroup:Write"}}.dump(), "application/json");
    ASSERT_TRUE(check);
    ASSERT_EQ(check->status, 200);
    EXPECT_EQ(json::parse(check->body)["allowed"], false);
}

}  // namespace
}  // namespace yuzu::testing::identity

namespace yuzu::testing {
namespace {

TEST(IdentityTokens, ExpiredTokenIsRefusedWith401AndWwwAuthenticate) {
    using namespace identity;
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const Session admin = login(c, "admin", kAdminPassword);
    const int64_t expires = now_s() + 2;
    const std::string token = create_token(c, admin, "short-lived", "readonly", expires);
    auto live = c.Get("/api/v1/tokens", bearer(token));
    ASSERT_TRUE(live);
    EXPECT_EQ(live->status, 200);
    // Wait until the expiry second has passed (the cache must not outlive it).
    while (now_s() <= expires) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto expired = c.Get("/api/v1/tokens", bearer(token));
    ASSERT_TRUE(expired);
    EXPECT_EQ(expired->status, 401);
    EXPECT_EQ(expired->get_header_value("WWW-Authenticate").rfind("Bearer", 0), 0u);
}

}  // namespace
}  // namespace yuzu::testing
