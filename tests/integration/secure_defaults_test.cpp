// Defaults a security engineer expects of the real server: a data directory
// nobody else can read, answers no cache keeps, agent input of the wrong
// type refused as 400 rather than a 500, and a loopback listener that answers
// neither a DNS-rebinding page (foreign Host) nor a cross-site login (foreign
// Origin).
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <filesystem>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "fleet_test_helpers.hpp"
#include "support/temp_dir.hpp"

namespace yuzu::testing {
namespace {

using fleet::FleetFixture;
using nlohmann::json;

std::string form_login_body() {
    return std::string("username=admin&password=") + identity::kAdminPassword + "&next=/approvals";
}

mode_t mode_of(const std::filesystem::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
}

TEST(SecureDefaults, ALooseDataDirIsMadePrivateAndNothingInItIsReadableByOthers) {
    TempDir dir;
    const auto data = dir / "data";
    std::filesystem::create_directory(data);
    ::chmod(data.c_str(), 0755);
    auto o = identity::server_options();
    o.data_dir = data.string();
    ServerProcess server(o);
    ASSERT_FALSE(server.base_url().empty()) << server.log();
    EXPECT_EQ(mode_of(data), 0700u) << server.log();
    EXPECT_NE(server.log().find("was mode 0755; made it 0700"), std::string::npos) << server.log();
    int files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(data)) {
        if (!entry.is_regular_file()) continue;
        ++files;
        EXPECT_EQ(mode_of(entry.path()) & 077, 0u) << entry.path();
    }
    EXPECT_GE(files, 7) << "the six stores and secrets.key at least";
}

TEST(SecureDefaults, AnswersThatCarrySecretsAreNeverCached) {
    FleetFixture f;
    auto token = f.client->Post("/api/v1/tokens", f.admin.headers(),
                                json{{"name", "no-store"}}.dump(), "application/json");
    ASSERT_TRUE(token);
    ASSERT_EQ(token->status, 201) << token->body;
    EXPECT_EQ(token->get_header_value("Cache-Control"), "no-store");

    auto totp =
        f.client->Post("/api/v1/mfa/totp/enroll", f.admin.headers(), "{}", "application/json");
    ASSERT_TRUE(totp);
    EXPECT_EQ(totp->status, 200) << totp->body;
    EXPECT_EQ(totp->get_header_value("Cache-Control"), "no-store");

    httplib::Headers h{{"Accept", "application/json, text/event-stream"},
                       {"Authorization", "Bearer " + f.mcp_tokens["readonly"]}};
    auto mcp = f.client->Post("/mcp/v1/", h, R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})",
                              "application/json");
    ASSERT_TRUE(mcp);
    EXPECT_EQ(mcp->get_header_value("Cache-Control"), "no-store");

    // The device token of an enrollment (the helper checks its no-store).
    EXPECT_FALSE(f.enroll_raw_agent("cache").empty());
}

TEST(SecureDefaults, AnInventorySourceWithANonStringStatusIs400AndTheServerStaysUp) {
    FleetFixture f;
    httplib::Client agent_plane(f.server->agent_url());
    const std::string device = f.enroll_raw_agent("typed");
    ASSERT_FALSE(device.empty());
    for (const json& source : {json{{"status", 5}, {"data", json::object()}},
                               json{{"status", "ok"}, {"reason", {{"x", 1}}}, {"data", 1}}}) {
        auto res = agent_plane.Post("/agent/v1/inventory", identity::bearer(device),
                                    json{{"sources", {{"os", source}}}}.dump(), "application/json");
        ASSERT_TRUE(res) << f.server->log();
        EXPECT_EQ(res->status, 400) << source.dump() << ": " << res->body;
        EXPECT_NE(res->body.find("must be a string"), std::string::npos) << res->body;
    }
    auto livez = f.client->Get("/livez");
    ASSERT_TRUE(livez);
    EXPECT_EQ(livez->status, 200);
}

TEST(SecureDefaults, AForeignHostIsRefusedOnEveryRouteButTheHealthProbes) {
    ServerProcess server(identity::server_options());
    ASSERT_FALSE(server.base_url().empty()) << server.log();
    httplib::Client c(server.base_url());
    const httplib::Headers evil{{"Host", "evil.example"}};
    for (const char* path : {"/login", "/metrics", "/api/v1/me", "/"}) {
        auto res = c.Get(path, evil);
        ASSERT_TRUE(res) << path;
        EXPECT_EQ(res->status, 403) << path << ": " << res->body;
        EXPECT_NE(res->body.find("--allowed-host"), std::string::npos) << res->body;
    }
    auto login = c.Post("/login", evil,
                        json{{"username", "admin"}, {"password", identity::kAdminPassword}}.dump(),
                        "application/json");
    ASSERT_TRUE(login);
    EXPECT_EQ(login->status, 403) << login->body;
    EXPECT_FALSE(login->has_header("Set-Cookie"));
    EXPECT_NE(server.log().find("DNS rebinding protection"), std::string::npos) << server.log();

    // Probes by whatever name a health checker was given still answer.
    auto livez = c.Get("/livez", evil);
    ASSERT_TRUE(livez);
    EXPECT_EQ(livez->status, 200) << livez->body;
    auto readyz = c.Get("/readyz", {{"Host", "10.9.8.7:8080"}});
    ASSERT_TRUE(readyz);
    EXPECT_NE(readyz->status, 403) << readyz->body;
    EXPECT_NE(readyz->body.find("\"checks\""), std::string::npos) << readyz->body;

    // Loopback names pass, and each route answers as it always did.
    const httplib::Headers local{{"Host", "localhost:" + std::to_string(server.port())}};
    auto page = c.Get("/login", local);
    ASSERT_TRUE(page);
    EXPECT_EQ(page->status, 200);
    auto metrics = c.Get("/metrics", local);
    ASSERT_TRUE(metrics);
    EXPECT_EQ(metrics->status, 200);
    auto me = c.Get("/api/v1/me", local);
    ASSERT_TRUE(me);
    EXPECT_EQ(me->status, 401) << "authentication decides, not the Host check";
    auto home = c.Get("/", local);
    ASSERT_TRUE(home);
    EXPECT_EQ(home->status, 303);
    EXPECT_EQ(home->get_header_value("Location"), "/login");
}

TEST(SecureDefaults, ACrossSiteLoginIsRefusedAndLeavesNoSession) {
    ServerProcess server(identity::server_options());
    ASSERT_FALSE(server.base_url().empty()) << server.log();
    httplib::Client c(server.base_url());
    const std::string json_body =
        json{{"username", "admin"}, {"password", identity::kAdminPassword}}.dump();

    // An attacker's page posting its own credentials (login CSRF), by script
    // and as the classic auto-submitting form, and from a sandboxed frame.
    const httplib::Headers foreign{{"Origin", "http://evil.example"}};
    const httplib::Headers sandboxed{{"Origin", "null"}, {"Sec-Fetch-Site", "cross-site"}};
    for (const auto& [headers, body, type] :
         std::initializer_list<std::tuple<httplib::Headers, std::string, const char*>>{
             {foreign, json_body, "application/json"},
             {foreign, form_login_body(), "application/x-www-form-urlencoded"},
             {sandboxed, form_login_body(), "application/x-www-form-urlencoded"}}) {
        auto res = c.Post("/login", headers, body, type);
        ASSERT_TRUE(res);
        EXPECT_EQ(res->status, 403) << res->body;
        EXPECT_NE(res->body.find("Origin not allowed"), std::string::npos) << res->body;
        EXPECT_FALSE(res->has_header("Set-Cookie")) << res->body;
    }

    // The server's own origin: a normal login.
    auto own = c.Post("/login", {{"Origin", server.base_url()}}, json_body, "application/json");
    ASSERT_TRUE(own);
    EXPECT_EQ(own->status, 200) << own->body;
    EXPECT_FALSE(identity::set_cookie(*own, "yuzu_session").empty());

    // The dashboard's own sign-in form without its script: under the pages'
    // Referrer-Policy: no-referrer a browser sends Origin: null, and says
    // Sec-Fetch-Site: same-origin.
    auto own_form = c.Post("/login", {{"Origin", "null"}, {"Sec-Fetch-Site", "same-origin"}},
                           form_login_body(), "application/x-www-form-urlencoded");
    ASSERT_TRUE(own_form);
    EXPECT_EQ(own_form->status, 303) << own_form->body;
    EXPECT_EQ(own_form->get_header_value("Location"), "/approvals");
    EXPECT_FALSE(identity::set_cookie(*own_form, "yuzu_session").empty());
}

}  // namespace
}  // namespace yuzu::testing
