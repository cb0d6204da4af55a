// TOTP MFA over real HTTP with codes computed by the test, and a check that
// no secret reaches the SQLite files in readable form.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "identity_test_helpers.hpp"
#include "support/server_process.hpp"

namespace yuzu::testing::identity {
namespace {

httplib::Result post_code(httplib::Client& c, const httplib::Headers& h, const std::string& path,
                          const std::string& code) {
    return c.Post(path, h, json{{"code", code}}.dump(), "application/json");
}

TEST(IdentityMfa, EnrolActivateVerifyWithRealCodes) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const Session s = login(c, "admin", kAdminPassword);
    const std::string admin = create_token(c, s, "admin-cli");

    auto mcp_enrol = c.Post("/api/v1/mfa/totp/enroll",
                            bearer(create_token(c, s, "mcp", "operator", now_s() + 3600)), "",
                            "application/json");
    ASSERT_TRUE(mcp_enrol);
    EXPECT_EQ(mcp_enrol->status, 403) << "an MCP token must not hold the human's factor";

    auto early = post_code(c, s.headers(), "/api/v1/mfa/verify", "123456");
    ASSERT_TRUE(early);
    EXPECT_EQ(early->status, 409);
    EXPECT_EQ(json::parse(early->body)["error"]["message"], "mfa_not_enrolled");

    auto enrolled = c.Post("/api/v1/mfa/totp/enroll", s.headers(), "", "application/json");
    ASSERT_TRUE(enrolled);
    ASSERT_EQ(enrolled->status, 200) << enrolled->body;
    const std::string secret = json::parse(enrolled->body)["secret"];
    const std::string uri = json::parse(enrolled->body)["otpauth_uri"];
    EXPECT_EQ(uri.rfind("otpauth://totp/", 0), 0u) << uri;
    EXPECT_NE(uri.find("secret=" + secret), std::string::npos) << uri;

    const int64_t t = now_s();
    const std::string now_code = totp_code(secret, t);
    const std::string wrong = now_code == "000000" ? "111111" : "000000";
    auto bad = post_code(c, s.headers(), "/api/v1/mfa/totp/activate", wrong);
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 403);
    auto activated = post_code(c, s.headers(), "/api/v1/mfa/totp/activate", now_code);
    ASSERT_TRUE(activated);
    EXPECT_EQ(activated->status, 204) << activated->body;

    auto me = c.Get("/api/v1/me", s.headers(false));
    ASSERT_TRUE(me);
    EXPECT_EQ(json::parse(me->body)["mfa_active"], true);

    auto reused = post_code(c, s.headers(), "/api/v1/mfa/verify", now_code);
    ASSERT_TRUE(reused);
    EXPECT_EQ(reused->status, 403) << "a code is never accepted twice";
    auto by_token = post_code(c, bearer(admin), "/api/v1/mfa/verify", totp_code(secret, t + 30));
    ASSERT_TRUE(by_token);
    EXPECT_EQ(by_token->status, 400) << "a token cannot hold a step-up proof";
    auto verified = post_code(c, s.headers(), "/api/v1/mfa/verify", totp_code(secret, t + 30));
    ASSERT_TRUE(verified);
    ASSERT_EQ(verified->status, 200) << verified->body;
    EXPECT_EQ(json::parse(verified->body)["verified"], true);
    EXPECT_EQ(json::parse(verified->body)["valid_for_seconds"], 300);

    auto no_csrf = post_code(c, s.headers(false), "/api/v1/mfa/verify", "123456");
    ASSERT_TRUE(no_csrf);
    EXPECT_EQ(no_csrf->status, 403);

    EXPECT_EQ(audit_events(c, admin, "action=mfa.enroll&result=success").size(), 1u);
    EXPECT_EQ(audit_events(c, admin, "action=mfa.activate&result=success").size(), 1u);
    EXPECT_EQ(audit_events(c, admin, "action=mfa.activate&result=failure").size(), 1u);
    EXPECT_EQ(audit_events(c, admin, "action=mfa.verify&result=success").size(), 1u);
    EXPECT_GE(audit_events(c, admin, "action=mfa.verify&result=failure").size(), 2u);
    auto all = c.Get("/api/v1/audit?limit=500", bearer(admin));
    ASSERT_TRUE(all);
    EXPECT_EQ(all->body.find(secret), std::string::npos);
}

TEST(IdentityStorage, RawDatabaseFilesHoldNoSecrets) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const Session s = login(c, "admin", kAdminPassword);
    const std::string token = create_token(c, s, "storage");
    const std::string mcp =
        create_token(c, s, "storage-mcp", "operator", now_s() + 7LL * 24 * 3600);
    const std::string user_password = "storage-user-password";
    create_user(c, token, "sam", user_password, {"Viewer"});
    auto listed = c.Get("/api/v1/tokens", bearer(token));
    ASSERT_TRUE(listed);
    const std::string id = json::parse(listed->body)["tokens"][0]["id"];
    auto rotated =
        c.Post("/api/v1/tokens/" + id + "/rotate", bearer(token), "", "application/json");
    ASSERT_TRUE(rotated);
    ASSERT_EQ(rotated->status, 200);
    const std::string rotated_secret = json::parse(rotated->body)["token"];
    auto enrolled = c.Post("/api/v1/mfa/totp/enroll", s.headers(), "", "application/json");
    ASSERT_TRUE(enrolled);
    ASSERT_EQ(enrolled->status, 200);
    const std::string totp_secret = json::parse(enrolled->body)["secret"];
    auto activated =
        post_code(c, s.headers(), "/api/v1/mfa/totp/activate", totp_code(totp_secret, now_s()));
    ASSERT_TRUE(activated);
    ASSERT_EQ(activated->status, 204);

    const std::vector<std::string> secrets = {
        token, mcp, rotated_secret, kAdminPassword, user_password, totp_secret, s.cookie};
    auto scan = [&](const std::string& when) {
        size_t bytes_seen = 0;
        for (const char* name : {"auth.db", "auth.db-wal", "audit.db", "audit.db-wal"}) {
            const std::string path = server.data_dir() + "/" + name;
            if (!std::filesystem::exists(path)) continue;
            const std::string raw = read_file_bytes(path);
            bytes_seen += raw.size();
            for (const auto& secret : secrets) {
                EXPECT_EQ(raw.find(secret), std::string::npos)
                    << when << ": " << name << " holds a secret in the clear";
            }
        }
        EXPECT_GT(bytes_seen, 0u) << when;
    };
    ASSERT_TRUE(std::filesystem::exists(server.data_dir() + "/auth.db"));
    scan("while running");
    EXPECT_EQ(server.signal_and_wait(SIGTERM), 0);
    scan("after shutdown");
}

}  // namespace
}  // namespace yuzu::testing::identity
