// rotate_api_token / confirm_api_token_rotation against the real server: the
// old secret authenticates until the rotation is confirmed, then gets 401;
// the tools answer at the operator tier without an approval, only ever touch
// the caller's own tokens, and are refused at readonly by the tier check.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "identity_test_helpers.hpp"
#include "support/server_process.hpp"

namespace yuzu::testing {
namespace {

using identity::kAdminPassword;
using identity::login;
using identity::now_s;
using nlohmann::json;

struct RotationFixture {
    RotationFixture() {
        server = std::make_unique<ServerProcess>(identity::server_options());
        client = std::make_unique<httplib::Client>(server->base_url());
        admin = login(*client, "admin", kAdminPassword);
    }

    std::string token(const std::string& name, const std::string& tier) {
        return identity::create_token(*client, admin, name, tier, now_s() + 7 * 86400);
    }

    // The HTTP status and the parsed body of one JSON-RPC call.
    std::pair<int, json> rpc(const std::string& secret, const std::string& method,
                             json params = json::object()) {
        const json body{{"jsonrpc", "2.0"}, {"id", 7}, {"method", method}, {"params", params}};
        auto res = client->Post("/mcp/v1/",
                                {{"Accept", "application/json, text/event-stream"},
                                 {"Authorization", "Bearer " + secret}},
                                body.dump(), "application/json");
        EXPECT_TRUE(res);
        if (!res) return {0, json()};
        return {res->status, res->body.empty() ? json() : json::parse(res->body, nullptr, false)};
    }

    json tool(const std::string& secret, const std::string& name, json args = json::object()) {
        auto [status, body] = rpc(secret, "tools/call", {{"name", name}, {"arguments", args}});
        EXPECT_EQ(status, 200) << body.dump();
        return body;
    }

    std::unique_ptr<ServerProcess> server;
    std::unique_ptr<httplib::Client> client;
    identity::Session admin;
};

TEST(McpTokenRotation, OldSecretWorksUntilConfirmThenGets401) {
    RotationFixture f;
    const std::string old_secret = f.token("rotating", "operator");

    auto listed = f.rpc(old_secret, "tools/list");
    ASSERT_EQ(listed.first, 200);
    std::set<std::string> names;
    for (const auto& t : listed.second["result"]["tools"]) names.insert(t["name"]);
    EXPECT_TRUE(names.count("rotate_api_token"));
    EXPECT_TRUE(names.count("confirm_api_token_rotation"));

    // No token_id: the token making the call. No approval at the operator tier.
    auto rotated = f.tool(old_secret, "rotate_api_token");
    ASSERT_TRUE(rotated.contains("result")) << rotated.dump();
    const auto& sc = rotated["result"]["structuredContent"];
    const std::string new_secret = sc["token"];
    const std::string id = sc["token_id"];
    EXPECT_NE(new_secret, old_secret);
    EXPECT_EQ(sc["rotation_pending"], true);

    // Both secrets authenticate during the rotation.
    EXPECT_EQ(f.rpc(old_secret, "tools/list").first, 200);
    EXPECT_EQ(f.rpc(new_secret, "tools/list").first, 200);

    auto confirmed = f.tool(new_secret, "confirm_api_token_rotation", {{"token_id", id}});
    ASSERT_TRUE(confirmed.contains("result")) << confirmed.dump();
    EXPECT_EQ(confirmed["result"]["structuredContent"]["confirmed"], true);

    auto after =
        f.client->Post("/mcp/v1/",
                       {{"Accept", "application/json, text/event-stream"},
                        {"Authorization", "Bearer " + old_secret}},
                       R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", "application/json");
    ASSERT_TRUE(after);
    EXPECT_EQ(after->status, 401);
    EXPECT_TRUE(after->has_header("WWW-Authenticate"));
    EXPECT_EQ(f.rpc(new_secret, "tools/list").first, 200);

    // Confirming again: nothing pending, a refusal that says what to do.
    auto again = f.tool(new_secret, "confirm_api_token_rotation");
    ASSERT_TRUE(again.contains("error")) << again.dump();
    EXPECT_EQ(again["error"]["code"], -32003);
    EXPECT_NE(again["error"]["data"]["remediation"].get<std::string>().find("rotate it first"),
              std::string::npos);

    // Both calls are audited under the token's owner.
    const std::string admin_token = f.token("auditor", "");
    auto rows = identity::audit_events(*f.client, admin_token, "action=mcp.rotate_api_token");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["principal"], "admin");
    EXPECT_EQ(rows[0]["result"], "success");
    EXPECT_EQ(rows[0]["detail"].get<std::string>().find(new_secret), std::string::npos);
}

TEST(McpTokenRotation, ReadonlyIsRefusedByTheTierAndAForeignTokenIsUnknown) {
    RotationFixture f;
    const std::string readonly = f.token("reader", "readonly");
    auto refused = f.tool(readonly, "rotate_api_token");
    ASSERT_TRUE(refused.contains("error")) << refused.dump();
    EXPECT_EQ(refused["error"]["code"], -32004);
    EXPECT_EQ(f.rpc(readonly, "tools/list").first, 200);  // nothing was rotated

    // bob's token is not the admin's: it reads as unknown, and stays valid.
    const std::string admin_token = f.token("admin-api", "");
    identity::create_user(*f.client, admin_token, "bob", "bob-long-password", {"Operator"});
    auto bob = login(*f.client, "bob", "bob-long-password");
    const std::string bob_secret =
        identity::create_token(*f.client, bob, "bob-mcp", "operator", now_s() + 86400);
    auto bob_tokens = f.tool(bob_secret, "list_api_tokens");
    const std::string bob_id = bob_tokens["result"]["structuredContent"]["tokens"][0]["id"];

    const std::string admin_operator = f.token("admin-operator", "operator");
    auto foreign = f.tool(admin_operator, "rotate_api_token", {{"token_id", bob_id}});
    ASSERT_TRUE(foreign.contains("error")) << foreign.dump();
    EXPECT_EQ(foreign["error"]["code"], -32003);
    // Nor another token of the same owner, which may hold more than the
    // operator tier: the admin's plain API token has no tier at all.
    auto admin_tokens = f.tool(admin_operator, "list_api_tokens");
    std::string plain_id;
    for (const auto& t : admin_tokens["result"]["structuredContent"]["tokens"]) {
        if (t["name"] == "admin-api") plain_id = t["id"];
    }
    ASSERT_FALSE(plain_id.empty()) << admin_tokens.dump();
    auto stronger = f.tool(admin_operator, "rotate_api_token", {{"token_id", plain_id}});
    ASSERT_TRUE(stronger.contains("error")) << stronger.dump();
    EXPECT_EQ(stronger["error"]["code"], -32003);
    auto rest =
        f.client->Post("/api/v1/tokens/" + plain_id + "/rotate",
                       {{"Authorization", "Bearer " + admin_operator}}, "", "application/json");
    ASSERT_TRUE(rest);
    EXPECT_EQ(rest->status, 403) << rest->body;
    auto same = f.client->Get("/api/v1/tokens", {{"Authorization", "Bearer " + admin_token}});
    ASSERT_TRUE(same);
    EXPECT_EQ(same->status, 200);  // still the same secret
    EXPECT_EQ(f.rpc(bob_secret, "tools/list").first, 200);
    auto bob_after = f.tool(bob_secret, "list_api_tokens");
    EXPECT_EQ(bob_after["result"]["structuredContent"]["tokens"][0]["rotation_pending"], false);
}

}  // namespace
}  // namespace yuzu::testing
