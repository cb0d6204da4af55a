#include "yuzu/http/authenticator.hpp"

#include <openssl/crypto.h>

#include "http/header_value.hpp"
#include "yuzu/common/ascii.hpp"
#include "yuzu/http/header_lookup.hpp"
#include "yuzu/http/server.hpp"

namespace yuzu::http {
namespace {

bool equal_constant_time(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::string cookie_value(const httplib::Request& req, std::string_view name) {
    const std::string& header = field_value(req.headers, "Cookie");
    std::string_view rest = header;
    while (!rest.empty()) {
        const auto semi = rest.find(';');
        std::string_view part = trim_ows(rest.substr(0, semi));
        rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
        const auto eq = part.find('=');
        if (eq == std::string_view::npos) continue;
        if (trim_ows(part.substr(0, eq)) == name) return std::string(trim_ows(part.substr(eq + 1)));
    }
    return "";
}

Result<Authenticated> CredentialResolver::resolve_token(std::string_view raw,
                                                        AuthFailure* failure) const {
    auto who = from_token(raw);
    if (!who.ok() && failure != nullptr) *failure = AuthFailure::kUnknownToken;
    return who;
}

namespace {

Result<Authenticated> refuse(AuthFailure* failure, AuthFailure why, std::string message) {
    if (failure != nullptr) *failure = why;
    return Status::Unauthenticated(std::move(message));
}

Result<Authenticated> resolve(const CredentialResolver& resolver, std::string_view raw,
                              AuthFailure* failure) {
    AuthFailure why = AuthFailure::kNone;
    auto who = resolver.resolve_token(raw, &why);
    if (!who.ok() && failure != nullptr) {
        *failure = why == AuthFailure::kNone ? AuthFailure::kUnknownToken : why;
    }
    return who;
}

}  // namespace

Result<Authenticated> authenticate(const httplib::Request& req, const CredentialResolver& resolver,
                                   bool allow_cookie, AuthFailure* failure) {
    if (failure != nullptr) *failure = AuthFailure::kNone;
    const std::string& authorization = field_value(req.headers, "Authorization");
    if (!authorization.empty()) {
        constexpr std::string_view kBearer = "Bearer ";
        if (authorization.size() <= kBearer.size() || !istarts_with_ascii(authorization, kBearer)) {
            // RFC 6750 §3.1: another scheme is "no bearer token", not a bad one.
            return refuse(failure, AuthFailure::kNoCredentials,
                          "Authorization must use the Bearer scheme");
        }
        return resolve(resolver, trim_ows(std::string_view(authorization).substr(kBearer.size())),
                       failure);
    }
    const std::string& token = field_value(req.headers, "X-Yuzu-Token");
    if (!token.empty()) return resolve(resolver, trim_ows(token), failure);
    if (allow_cookie) {
        const std::string secret = cookie_value(req, kSessionCookie);
        if (!secret.empty()) {
            auto who = resolver.from_session_cookie(secret);
            if (who.ok()) {
                who->via_cookie = true;
            } else if (failure != nullptr) {
                *failure = AuthFailure::kInvalidSession;
            }
            return who;
        }
    }
    return refuse(failure, AuthFailure::kNoCredentials, "authentication required");
}

std::string_view auth_failure_description(AuthFailure failure) {
    // RFC 6750 §3: printable ASCII without '"' and '\\'. Fixed texts only: a
    // description never repeats what the client presented.
    switch (failure) {
        case AuthFailure::kUnknownToken:
            return "the token is unknown";
        case AuthFailure::kExpiredToken:
            return "the token has expired";
        case AuthFailure::kRevokedToken:
            return "the token has been revoked";
        case AuthFailure::kSupersededToken:
            return "the token secret was replaced by rotation; use the new secret";
        case AuthFailure::kNone:
        case AuthFailure::kNoCredentials:
        case AuthFailure::kUnverifiedToken:  // the token may be fine: no error code
        case AuthFailure::kInvalidSession:   // a cookie, not a bearer token
            return "";
    }
    return "";
}

std::string www_authenticate_challenge(AuthFailure failure) {
    std::string challenge = R"(Bearer realm="yuzu")";
    const std::string_view description = auth_failure_description(failure);
    if (!description.empty()) {
        challenge += R"(, error="invalid_token", error_description=")";
        challenge += description;
        challenge += '"';
    }
    return challenge;
}

void write_unauthorized(httplib::Response& res, AuthFailure failure, const std::string& message) {
    res.set_header("WWW-Authenticate", www_authenticate_challenge(failure));
    write_error(res, 401, message);
}

void write_unauthorized(httplib::Response& res, const std::string& message) {
    write_unauthorized(res, AuthFailure::kNoCredentials, message);
}

bool csrf_rejected(const httplib::Request& req, const Authenticated& who) {
    if (!who.via_cookie) return false;
    if (req.method == "GET" || req.method == "HEAD" || req.method == "OPTIONS") return false;
    std::string presented = req.get_header_value(kCsrfHeader);
    if (presented.empty() && req.has_param("csrf_token"))
        presented = req.get_param_value("csrf_token");
    if (presented.empty() || who.csrf_token.empty()) return true;
    return !equal_constant_time(presented, who.csrf_token);
}

}  // namespace yuzu::http
