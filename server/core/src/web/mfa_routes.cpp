// TOTP MFA: enrol and activate the caller's own factor (web sessions and
// plain API tokens; never MCP tokens, so an AI client cannot hold the second
// factor of the human it acts for), and the step-up proof, which only a web
// session can hold.
#include <string>

#include "route_registry.hpp"
#include "yuzu/auth/identity.hpp"

namespace yuzu::web {
namespace {

constexpr char kTarget[] = "user";

// The code from {"code": "123456"}; false (400 written) otherwise.
bool read_code(const httplib::Request& req, httplib::Response& res, std::string& code) {
    auto body = parse_json_body(req, res);
    if (!body) return false;
    return read_string(*body, "code", code, true, res);
}

// MCP tokens may not manage the factor; writes 403 and answers false for them.
bool factor_manager(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                    const auth::Principal& who, const std::string& action) {
    if (who.kind != auth::PrincipalKind::kMcpToken) return true;
    audit_request(ctx, req, res, &who, action, kTarget, who.username, "denied",
                  "MCP tokens cannot manage MFA factors");
    http::write_error(res, 403, "MCP tokens cannot enrol or activate MFA factors");
    return false;
}

void enroll(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
            const auth::Principal& who) {
    if (!factor_manager(ctx, req, res, who, "mfa.enroll")) return;
    auto e = ctx.identity.mfa().enroll(who.username);
    const Status st = e.ok() ? Status::Ok() : e.status();
    audit_request(ctx, req, res, &who, "mfa.enroll", kTarget, who.username, audit_result_for(st),
                  st.message());
    if (!e.ok()) {
        write_status(res, st);
        return;
    }
    http::write_json(res, 200,
                     nlohmann::json{{"secret", e->secret_base32}, {"otpauth_uri", e->otpauth_uri}});
}

void activate(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
              const auth::Principal& who) {
    if (!factor_manager(ctx, req, res, who, "mfa.activate")) return;
    std::string code;
    if (!read_code(req, res, code)) return;
    Status st = ctx.identity.mfa().activate(who.username, code);
    audit_request(ctx, req, res, &who, "mfa.activate", kTarget, who.username,
                  st.ok() ? "success" : "failure", st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

void verify(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
            const auth::Principal& who) {
    if (!who.is_interactive()) {
        audit_request(ctx, req, res, &who, "mfa.verify", kTarget, who.username, "failure",
                      "not a web session");
        http::write_error(res, 400,
                          "MFA verification needs a web session: the proof is kept on the "
                          "session, which a token does not have");
        return;
    }
    std::string code;
    if (!read_code(req, res, code)) return;
    Status st = ctx.identity.mfa().verify(who.username, code);
    if (st.ok()) st = ctx.identity.sessions().record_mfa_proof(who.session_id, ctx.clock.now_ms());
    audit_request(ctx, req, res, &who, "mfa.verify", kTarget, who.username,
                  st.ok() ? "success" : "failure", st.message());
    if (!st.ok()) {
        // FailedPrecondition carries "mfa_not_enrolled" (409); ResourceExhausted
        // is 429; a wrong or reused code is PermissionDenied (403).
        write_status(res, st);
        return;
    }
    http::write_json(res, 200,
                     nlohmann::json{{"verified", true},
                                    {"valid_for_seconds", auth::kMfaProofLifetimeMs / 1000}});
}

}  // namespace

void register_mfa_routes(http::HttpServer& server, const WebContext& ctx) {
    server.post("/api/v1/mfa/totp/enroll", "/api/v1/mfa/totp/enroll", with_principal(ctx, enroll));
    server.post("/api/v1/mfa/totp/activate", "/api/v1/mfa/totp/activate",
                with_principal(ctx, activate));
    server.post("/api/v1/mfa/verify", "/api/v1/mfa/verify", with_principal(ctx, verify));
}

}  // namespace yuzu::web
