// POST /login, POST /logout and GET /api/v1/me.
#include <optional>
#include <string>

#include "route_registry.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/login_throttle.hpp"
#include "yuzu/http/authenticator.hpp"

namespace yuzu::web {
namespace {

bool is_json_request(const httplib::Request& req) {
    return req.get_header_value("Content-Type").rfind("application/json", 0) == 0;
}

bool wants_json(const httplib::Request& req) {
    return is_json_request(req) ||
           req.get_header_value("Accept").find("application/json") != std::string::npos;
}

// A same-site path to go to after login: one leading '/', never "//" or a
// backslash (both can mean another host to a browser), no control characters.
std::string safe_next(const std::string& next) {
    if (next.empty() || next[0] != '/') return "/";
    if (next.size() > 1 && (next[1] == '/' || next[1] == '\\')) return "/";
    for (char c : next) {
        if (c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "/";
    }
    return next;
}

std::string cookie_attrs(const WebContext& ctx, bool http_only) {
    std::string a = "; Path=/";
    if (http_only) a += "; HttpOnly";
    a += "; SameSite=Strict";
    if (ctx.tls) a += "; Secure";
    return a;
}

// 429 with Retry-After for an attempt the throttle refused. Audited once per
// run of refusals (LoginAdmission::worth_auditing), not once per request.
void refuse_throttled(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                      const std::string& username, const auth::LoginAdmission& refused) {
    if (refused.worth_auditing()) {
        audit_request(ctx, req, res, nullptr, "auth.login", "user", username, "denied",
                      std::string(auth::login_refusal_name(refused.refusal())));
    }
    const std::string wait = std::to_string(refused.retry_after_s());
    res.set_header("Retry-After", wait);
    http::write_error(
        res, 429,
        refused.refusal() == auth::LoginRefusal::kBusy
            ? "the server is checking too many logins at once; try again in " + wait + " s"
            : "too many login attempts from this address; try again in " + wait + " s");
}

void login(const WebContext& ctx, const httplib::Request& req, httplib::Response& res) {
    std::string username;
    std::string password;
    std::string next = "/";
    const bool json_client = is_json_request(req);
    if (json_client) {
        auto body = parse_json_body(req, res);
        if (!body) return;
        if (!read_string(*body, "username", username, true, res)) return;
        if (!read_string(*body, "password", password, true, res)) return;
    } else {
        username = req.get_param_value("username");
        password = req.get_param_value("password");
        if (req.has_param("next")) next = safe_next(req.get_param_value("next"));
    }

    // Before any hash runs: a throttled attempt must cost the server nothing.
    std::optional<auth::LoginAdmission> admission;
    if (ctx.login_throttle != nullptr) {
        admission.emplace(ctx.login_throttle->admit(req.remote_addr));
        if (!admission->admitted()) {
            refuse_throttled(ctx, req, res, username, *admission);
            return;
        }
    }

    auth::AuthOutcome outcome = auth::AuthOutcome::kError;
    auto user = ctx.identity.users().authenticate(username, password, &outcome);
    admission.reset();  // the hash is done; free its slot for the next login
    if (!user.ok()) {
        // The detail tells the reason apart for administrators; the client
        // gets one answer for every refusal (UserStore's rules).
        const std::string detail = std::string(auth::auth_outcome_name(outcome));
        audit_request(ctx, req, res, nullptr, "auth.login", "user", username,
                      outcome == auth::AuthOutcome::kError ? "error" : "failure", detail);
        if (outcome == auth::AuthOutcome::kJustLocked) {
            // Sessions and tokens are left alone: the lock throttles password
            // guessing, and ending them would hand anyone who knows a
            // username a way to log its owner out.
            audit_request(ctx, req, res, nullptr, "auth.lockout", "user", username, "success",
                          "locked after " + std::to_string(auth::kMaxConsecutiveFailedLogins) +
                              " or more failed logins in a row; the lock ends by itself");
        }
        write_status(res, user.status());
        return;
    }

    auto session = ctx.identity.sessions().create(user->username, req.remote_addr,
                                                  req.get_header_value("User-Agent"));
    if (!session.ok()) {
        audit_request(ctx, req, res, nullptr, "auth.login", "user", user->username, "error",
                      session.status().message());
        write_status(res, session.status());
        return;
    }
    res.set_header("Set-Cookie", std::string(http::kSessionCookie) + "=" + session->cookie_secret +
                                     cookie_attrs(ctx, true));
    res.set_header("Set-Cookie", std::string(http::kCsrfCookie) + "=" + session->csrf_token +
                                     cookie_attrs(ctx, false));
    auth::Principal who;
    who.username = user->username;
    who.session_id = session->session_id;
    audit_request(ctx, req, res, &who, "auth.login", "user", user->username, "success",
                  "session " + session->session_id);
    if (json_client) {
        nlohmann::json out = {{"username", user->username}, {"csrf_token", session->csrf_token}};
        http::write_json(res, 200, out);
        return;
    }
    res.set_redirect(next, 303);
}

void logout(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
            const http::Authenticated& who) {
    if (!who.via_cookie) {
        http::write_error(res, 400, "logout ends a web session; revoke a token instead");
        return;
    }
    Status st = ctx.identity.sessions().destroy(http::cookie_value(req, http::kSessionCookie));
    audit_request(ctx, req, res, &who.principal, "auth.logout", "user", who.principal.username,
                  audit_result_for(st),
                  st.ok() ? "session " + who.principal.session_id : st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.set_header("Set-Cookie",
                   std::string(http::kSessionCookie) + "=; Max-Age=0" + cookie_attrs(ctx, true));
    res.set_header("Set-Cookie",
                   std::string(http::kCsrfCookie) + "=; Max-Age=0" + cookie_attrs(ctx, false));
    if (wants_json(req)) {
        http::write_json(res, 200, R"({"logged_out":true})");
        return;
    }
    res.set_redirect("/login", 303);
}

void me(const WebContext& ctx, httplib::Response& out, const http::Authenticated& who) {
    auto roles = ctx.identity.rbac().roles_of(who.principal.username);
    if (!roles.ok()) {
        write_status(out, roles.status());
        return;
    }
    nlohmann::json body = {
        {"username", who.principal.username},
        {"roles", *roles},
        {"principal_kind", std::string(auth::principal_kind_name(who.principal.kind))},
        {"mcp_tier", who.principal.mcp_tier},
        {"mfa_active", ctx.identity.mfa().is_active(who.principal.username)},
    };
    http::write_json(out, 200, body);
}

}  // namespace

void register_session_routes(http::HttpServer& server, const WebContext& ctx) {
    server.post("/login", "/login", [&ctx](const httplib::Request& req, httplib::Response& res) {
        login(ctx, req, res);
    });
    server.post(
        "/logout", "/logout",
        authed(ctx, [&ctx](const httplib::Request& req, httplib::Response& res,
                           const http::Authenticated& who) { logout(ctx, req, res, who); }));
    server.get("/api/v1/me", "/api/v1/me",
               authed(ctx, [&ctx](const httplib::Request&, httplib::Response& res,
                                  const http::Authenticated& who) { me(ctx, res, who); }));
}

}  // namespace yuzu::web
