#include "yuzu/http/authenticator.hpp"

#include <openssl/crypto.h>

#include "http/header_value.hpp"
#include "yuzu/http/server.hpp"

namespace yuzu::http {
namespace {

bool equal_constant_time(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::string cookie_value(const httplib::Request& req, std::string_view name) {
    const std::string header = req.get_header_value("Cookie");
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

Result<Authenticated> authenticate(const httplib::Request& req, const CredentialResolver& resolver,
                                   bool allow_cookie) {
    const std::string authorization = req.get_header_value("Authorization");
    if (!authorization.empty()) {
        constexpr std::string_view kBearer = "Bearer ";
        if (authorization.size() <= kBearer.size() ||
            !std::equal(kBearer.begin(), kBearer.end(), authorization.begin(),
                        [](char a, char b) { return std::tolower(a) == std::tolower(b); })) {
            return Status::Unauthenticated("Authorization must use the Bearer scheme");
        }
        return resolver.from_token(
            trim_ows(std::string_view(authorization).substr(kBearer.size())));
    }
    const std::string token = req.get_header_value("X-Yuzu-Token");
    if (!token.empty()) return resolver.from_token(trim_ows(token));
    if (allow_cookie) {
        const std::string secret = cookie_value(req, kSessionCookie);
        if (!secret.empty()) {
            auto who = resolver.from_session_cookie(secret);
            if (who.ok()) who->via_cookie = true;
            return who;
        }
    }
    return Status::Unauthenticated("authentication required");
}

void write_unauthorized(httplib::Response& res, const std::string& message) {
    res.set_header("WWW-Authenticate", R"(Bearer realm="yuzu")");
    write_error(res, 401, message);
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
