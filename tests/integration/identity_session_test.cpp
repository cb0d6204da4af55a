// Web login over real HTTP: cookies, wrong passwords, lockout and unlock (by
// REST and by the CLI), the per-address login rate limit, logout, CSRF
// double-submit, and the audit rows they leave.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

// `yuzu-server ARGS...` beside the running server; stdout and stderr in out.
int yuzu_server(const std::vector<std::string>& args, std::string* out) {
    std::vector<std::string> argv = {bin_path("yuzu-server")};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, out);
}

bool listed_as_locked(httplib::Client& c, const std::string& token, const std::string& user) {
    auto listed = c.Get("/api/v1/users", bearer(token));
    EXPECT_TRUE(listed);
    if (!listed) return false;
    EXPECT_EQ(listed->status, 200) << listed->body;
    const json users = json::parse(listed->body)["users"];
    for (const auto& u : users) {
        if (u["username"] == user) return u["locked"].get<bool>();
    }
    ADD_FAILURE() << user << " not listed: " << listed->body;
    return false;
}

TEST(IdentitySession, FiveFailuresLockWithTheSameAnswerUntilUnlockedAndAllIsAudited) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const std::string admin = create_token(c, login(c, "admin", kAdminPassword), "admin-cli");
    const std::string bob_pw = "bob-long-password-1";
    create_user(c, admin, "bob", bob_pw, {"Operator"});

    std::string wrong_message;
    for (int i = 0; i < 5; ++i) {
        auto res = login_json(c, "bob", "wrong-password-" + std::to_string(i));
        ASSERT_TRUE(res);
        // The fifth wrong password locks the account, and answers the same.
        EXPECT_EQ(res->status, 401) << "attempt " << i;
        const std::string message = json::parse(res->body)["error"]["message"];
        if (i == 0) wrong_message = message;
        EXPECT_EQ(message, wrong_message) << "attempt " << i;
    }
    // Locked: even the right password is refused, with a wrong password's
    // answer, so the refusal does not tell that bob exists.
    auto locked = login_json(c, "bob", bob_pw);
    ASSERT_TRUE(locked);
    EXPECT_EQ(locked->status, 401);
    EXPECT_EQ(json::parse(locked->body)["error"]["message"], wrong_message);
    EXPECT_TRUE(set_cookie(*locked, "yuzu_session").empty());
    auto unknown = login_json(c, "nobody", bob_pw);
    ASSERT_TRUE(unknown);
    EXPECT_EQ(unknown->status, 401);
    EXPECT_EQ(json::parse(unknown->body)["error"]["message"], wrong_message);

    EXPECT_TRUE(listed_as_locked(c, admin, "bob"));

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
    // The detail, for administrators only, says why each was refused.
    int bad_credentials = 0;
    int just_locked = 0;
    int refused_locked = 0;
    for (const auto& e : logins) {
        bad_credentials += e["detail"] == "bad_credentials" ? 1 : 0;
        just_locked += e["detail"] == "just_locked" ? 1 : 0;
        refused_locked += e["detail"] == "locked" ? 1 : 0;
    }
    EXPECT_EQ(bad_credentials, 4);
    EXPECT_EQ(just_locked, 1);
    EXPECT_EQ(refused_locked, 1);
    EXPECT_EQ(audit_events(c, admin, "action=auth.lockout&target_id=bob").size(), 1u);
    const json unknown_rows = audit_events(c, admin, "action=auth.login&target_id=nobody");
    ASSERT_EQ(unknown_rows.size(), 1u);
    EXPECT_EQ(unknown_rows[0]["detail"], "unknown_user");
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

TEST(IdentitySession, ALockedAdminKeepsItsTokenAndSessionAndTheCliUnlocksIt) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const Session session = login(c, "admin", kAdminPassword);
    const std::string token = create_token(c, session, "admin-automation");
    for (int i = 0; i < 5; ++i) {
        auto res = login_json(c, "admin", "wrong-password-" + std::to_string(i));
        ASSERT_TRUE(res);
        EXPECT_EQ(res->status, 401) << "attempt " << i;
    }
    auto refused = login_json(c, "admin", kAdminPassword);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 401) << refused->body;

    // The lock throttles password guessing and nothing else: the token and
    // the session made before it keep working.
    EXPECT_TRUE(listed_as_locked(c, token, "admin"));
    auto me = c.Get("/api/v1/me", session.headers(false));
    ASSERT_TRUE(me);
    EXPECT_EQ(me->status, 200) << me->body;

    // The way back in that needs no login: the CLI, beside the live server.
    std::string out;
    ASSERT_EQ(yuzu_server({"user", "unlock", "admin", "--data-dir", server.data_dir()}, &out), 0)
        << out;
    EXPECT_EQ(json::parse(out, nullptr, false), (json{{"username", "admin"}, {"unlocked", true}}))
        << out;
    EXPECT_FALSE(listed_as_locked(c, token, "admin"));
    auto ok = login_json(c, "admin", kAdminPassword);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->status, 200) << ok->body;

    const json unlocks = audit_events(c, token, "action=user.unlock&target_id=admin");
    ASSERT_EQ(unlocks.size(), 1u) << unlocks.dump();
    EXPECT_EQ(unlocks[0]["principal"].get<std::string>().rfind("cli:", 0), 0u) << unlocks.dump();
    EXPECT_EQ(unlocks[0]["result"], "success");

    EXPECT_EQ(yuzu_server({"user", "unlock", "nobody", "--data-dir", server.data_dir()}, &out), 2);
    EXPECT_NE(out.find("no user 'nobody'"), std::string::npos) << out;
    EXPECT_EQ(yuzu_server({"user", "unlock", "--data-dir", server.data_dir()}, &out), 2) << out;
    ASSERT_EQ(yuzu_server({"user", "unlock", "--help"}, &out), 0) << out;
    EXPECT_NE(out.find("--data-dir"), std::string::npos) << out;
}

TEST(IdentitySession, TheEleventhRapidLoginFromOneAddressIs429WithRetryAfter) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const auto start = std::chrono::steady_clock::now();
    for (int i = 1; i <= 10; ++i) {
        auto res = login_json(c, "nobody", "not-the-password-at-all");
        ASSERT_TRUE(res);
        ASSERT_EQ(res->status, 401) << "attempt " << i << ": " << res->body;
    }
    // One attempt comes back every 3 s; a slow (sanitizer) build can earn one
    // while the ten run, and then the 429 comes an attempt or two later.
    const bool refilled = std::chrono::steady_clock::now() - start >= std::chrono::seconds(3);
    int extra_admitted = 0;
    int status = 0;
    std::string retry_after;
    std::string body;
    while (extra_admitted < 5) {
        // The right password, to show the limit comes before any check.
        auto res = login_json(c, "admin", kAdminPassword);
        ASSERT_TRUE(res);
        status = res->status;
        retry_after = res->get_header_value("Retry-After");
        body = res->body;
        if (status == 429) break;
        ++extra_admitted;
    }
    ASSERT_EQ(status, 429) << body;
    if (!refilled) {
        EXPECT_EQ(extra_admitted, 0) << "the 11th attempt was let through";
    }
    ASSERT_FALSE(retry_after.empty());
    EXPECT_GE(std::stoi(retry_after), 1);
    EXPECT_LE(std::stoi(retry_after), 3);
    const json error = json::parse(body)["error"];
    EXPECT_EQ(error["code"], 429);
    EXPECT_NE(error["message"].get<std::string>().find("try again in"), std::string::npos) << body;
    // A second refusal in the same run answers the same.
    auto again = login_json(c, "admin", kAdminPassword);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->status, 429);
    EXPECT_FALSE(again->get_header_value("Retry-After").empty());

    // This address cannot log in now, so the audit is read with a CLI token.
    std::string out;
    ASSERT_EQ(
        yuzu_server({"token", "create", "--data-dir", server.data_dir(), "--user", "admin"}, &out),
        0)
        << out;
    const std::string token = json::parse(out)["token"];
    // One row for the run of refusals, not one per request.
    const json denied = audit_events(c, token, "action=auth.login&result=denied");
    ASSERT_EQ(denied.size(), 1u) << denied.dump();
    EXPECT_EQ(denied[0]["detail"], "rate_limited");
    EXPECT_EQ(denied[0]["target_id"], "admin");
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
