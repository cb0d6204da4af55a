// Web login over real HTTP: cookies, wrong passwords, lockout and unlock,
// logout, CSRF double-submit, and the audit rows they leave.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "identity_test_helpers.hpp"
#include "support/server_process.hpp"

namespace yuzu::testing::identity {
namespace {

TEST(IdentitySession, JsonAndFormLoginSetHardenedCookies) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());

    auto res = login_json(c, "admin", kAdminPassword);
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    std::string session_line;
    std::string csrf_line;
    const std::string cookie = set_cookie(*res, "yuzu_session", &session_line);
    const std::string csrf = set_cookie(*res, "yuzu_csrf", &csrf_line);
    EXPECT_FALSE(cookie.empty());
    EXPECT_EQ(json::parse(res->body)["csrf_token"], csrf);
    EXPECT_NE(session_line.find("; HttpOnly"), std::string::npos) << session_line;
    EXPECT_NE(session_line.find("; SameSite=Strict"), std::string::npos) << session_line;
    EXPECT_NE(session_line.find("; Path=/"), std::string::npos) << session_line;
    EXPECT_EQ(session_line.find("Secure"), std::string::npos) << "no TLS, no Secure";
    // The CSRF cookie must be readable by the page's script.
    EXPECT_EQ(csrf_line.find("HttpOnly"), std::string::npos) << csrf_line;
    EXPECT_NE(csrf_line.find("; SameSite=Strict"), std::string::npos) << csrf_line;

    Session s{cookie, csrf};
    auto me = c.Get("/api/v1/me", s.headers(false));
    ASSERT_TRUE(me);
    ASSERT_EQ(me->status, 200) << me->body;
    const json body = json::parse(me->body);
    EXPECT_EQ(body["username"], "admin");
    EXPECT_EQ(body["principal_kind"], "user_session");
    EXPECT_EQ(body["roles"], json::array({"Administrator"}));
    EXPECT_EQ(body["mfa_active"], false);

    // Form login redirects, to `next` only when it is a local path.
    auto form =
        c.Post("/login", httplib::Params{{"username", "admin"}, {"password", kAdminPassword}});
    ASSERT_TRUE(form);
    EXPECT_EQ(form->status, 303);
    EXPECT_EQ(form->get_header_value("Location"), "/");
    std::string form_line;
    EXPECT_FALSE(set_cookie(*form, "yuzu_session", &form_line).empty());
    EXPECT_NE(form_line.find("HttpOnly"), std::string::npos);
    EXPECT_FALSE(set_cookie(*form, "yuzu_csrf").empty());
    auto next = c.Post("/login", httplib::Params{{"username", "admin"},
                                                 {"password", kAdminPassword},
                                                 {"next", "/agents?x=1"}});
    ASSERT_TRUE(next);
    EXPECT_EQ(next->get_header_value("Location"), "/agents?x=1");
    auto evil = c.Post("/login", httplib::Params{{"username", "admin"},
                                                 {"password", kAdminPassword},
                                                 {"next", "//evil.example/"}});
    ASSERT_TRUE(evil);
    EXPECT_EQ(evil->get_header_value("Location"), "/");
}

TEST(IdentitySession, WrongPasswordAndUnknownUserAnswerTheSame401) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    auto wrong = login_json(c, "admin", "not-the-password-at-all");
    auto unknown = login_json(c, "nobody", "not-the-password-at-all");
    ASSERT_TRUE(wrong);
    ASSERT_TRUE(unknown);
    EXPECT_EQ(wrong->status, 401);
    EXPECT_EQ(unknown->status, 401);
    EXPECT_EQ(json::parse(wrong->body)["error"]["message"],
              json::parse(unknown->body)["error"]["message"]);
    EXPECT_TRUE(set_cookie(*wrong, "yuzu_session").empty());
    auto form = c.Post("/login", httplib::Params{{"username", "admin"}, {"password", "nope"}});
    ASSERT_TRUE(form);
    EXPECT_EQ(form->status, 401);
    auto bad_json = c.Post("/login", "{not json", "application/json");
    ASSERT_TRUE(bad_json);
    EXPECT_EQ(bad_json->status, 400);
}

TEST(IdentitySession, FiveFailuresLockUntilAdminUnlocksAndAllIsAudited) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const std::string admin = create_token(c, login(c, "admin", kAdminPassword), "admin-cli");
    const std::string bob_pw = "bob-long-password-1";
    create_user(c, admin, "bob", bob_pw, {"Operator"});

    for (int i = 0; i < 5; ++i) {
        auto res = login_json(c, "bob", "wrong-password-" + std::to_string(i));
        ASSERT_TRUE(res);
        // The fifth wrong password is the one that locks the account.
        EXPECT_EQ(res->status, i < 4 ? 401 : 403) << "attempt " << i;
    }
    auto locked = login_json(c, "bob", bob_pw);
    ASSERT_TRUE(locked);
    EXPECT_EQ(locked->status, 403);
    EXPECT_EQ(json::parse(locked->body)["error"]["message"], "account locked");

    auto listed = c.Get("/api/v1/users", bearer(admin));
    ASSERT_TRUE(listed);
    ASSERT_EQ(listed->status, 200);
    bool saw_locked = false;
    const json users = json::parse(listed->body)["users"];
    for (const auto& u : users)
        if (u["username"] == "bob") saw_locked = u["locked"].get<bool>();
    EXPECT_TRUE(saw_locked) << listed->body;

    auto unlock = c.Post("/api/v1/users/bob/unlock", bearer(admin), "", "application/json");
    ASSERT_TRUE(unlock);
    EXPECT_EQ(unlock->status, 204) << unlock->body;
    auto ok = login_json(c, "bob", bob_pw);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->status, 200) << ok->body;

    const json logins = audit_events(c, admin, "action=auth.login&target_id=bob");
    int failures = 0;
    int successes = 0;
    for (const auto& e : logins) {
        if (e["result"] == "failure") ++failures;
        if (e["result"] == "success") ++successes;
    }
    EXPECT_EQ(failures, 6);  // five wrong passwords and the refused locked attempt
    EXPECT_EQ(successes, 1);
    EXPECT_EQ(audit_events(c, admin, "action=auth.lockout&target_id=bob").size(), 1u);
    const json unlocks = audit_events(c, admin, "action=user.unlock&target_id=bob");
    ASSERT_EQ(unlocks.size(), 1u);
    EXPECT_EQ(unlocks[0]["principal"], "admin");
    EXPECT_EQ(unlocks[0]["result"], "success");

    // Unlocking is UserManagement:Write; an Operator may not.
    const std::string bob_token = create_token(c, login(c, "bob", bob_pw), "bob-cli");
    auto denied = c.Post("/api/v1/users/admin/unlock", bearer(bob_token), "", "application/json");
    ASSERT_TRUE(denied);
    EXPECT_EQ(denied->status, 403);
}

TEST(IdentitySession, CsrfIsRequiredForCookiePostsAndLogoutEndsTheSession) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const Session s = login(c, "admin", kAdminPassword);

    const std::string body = json{{"name", "csrf-check"}}.dump();
    auto without = c.Post("/api/v1/tokens", s.headers(false), body, "application/json");
    ASSERT_TRUE(without);
    EXPECT_EQ(without->status, 403);
    httplib::Headers wrong = s.headers(false);
    wrong.emplace("X-CSRF-Token", "not-the-token");
    auto mismatched = c.Post("/api/v1/tokens", wrong, body, "application/json");
    ASSERT_TRUE(mismatched);
    EXPECT_EQ(mismatched->status, 403);
    auto with = c.Post("/api/v1/tokens", s.headers(), body, "application/json");
    ASSERT_TRUE(with);
    EXPECT_EQ(with->status, 201) << with->body;
    const std::string admin = json::parse(with->body)["token"];
    // A token-authenticated call needs no CSRF token.
    auto by_token =
        c.Post("/api/v1/tokens", bearer(admin), json{{"name", "t2"}}.dump(), "application/json");
    ASSERT_TRUE(by_token);
    EXPECT_EQ(by_token->status, 201);

    auto logout_no_csrf = c.Post("/logout", s.headers(false), "", "application/json");
    ASSERT_TRUE(logout_no_csrf);
    EXPECT_EQ(logout_no_csrf->status, 403);
    auto logout = c.Post("/logout", s.headers(), "", "application/json");
    ASSERT_TRUE(logout);
    EXPECT_EQ(logout->status, 200) << logout->body;
    std::string expired;
    set_cookie(*logout, "yuzu_session", &expired);
    EXPECT_NE(expired.find("Max-Age=0"), std::string::npos) << expired;

    auto after = c.Get("/api/v1/me", s.headers(false));
    ASSERT_TRUE(after);
    EXPECT_EQ(after->status, 401);
    EXPECT_FALSE(after->get_header_value("WWW-Authenticate").empty());

    EXPECT_EQ(audit_events(c, admin, "action=auth.logout&principal=admin").size(), 1u);
    EXPECT_GE(audit_events(c, admin, "action=auth.csrf_rejected").size(), 3u);

    // A form logout (browser) redirects to the login page.
    const Session s2 = login(c, "admin", kAdminPassword);
    httplib::Headers cookie_only{{"Cookie", "yuzu_session=" + s2.cookie}};
    auto form_logout = c.Post("/logout", cookie_only, httplib::Params{{"csrf_token", s2.csrf}});
    ASSERT_TRUE(form_logout);
    EXPECT_EQ(form_logout->status, 303);
    EXPECT_EQ(form_logout->get_header_value("Location"), "/login");
}

}  // namespace
}  // namespace yuzu::testing::identity
