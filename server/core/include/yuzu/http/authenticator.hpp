// Request authentication shared by REST, the dashboard and MCP: a web session
// cookie, `Authorization: Bearer <token>`, or `X-Yuzu-Token: <token>`.
#pragma once

#include <httplib.h>

#include <string>
#include <string_view>

#include "yuzu/auth/principal.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::http {

inline constexpr char kSessionCookie[] = "yuzu_session";
inline constexpr char kCsrfCookie[] = "yuzu_csrf";
inline constexpr char kCsrfHeader[] = "X-CSRF-Token";

struct Authenticated {
    auth::Principal principal;
    std::string csrf_token;  // sessions only: what X-CSRF-Token must equal
    bool via_cookie = false;
};

// Turns a presented credential into a principal. Implemented by the identity
// layer; tests use fakes. Safe to call from any thread.
class CredentialResolver {
  public:
    virtual ~CredentialResolver() = default;
    virtual Result<Authenticated> from_token(std::string_view raw) const = 0;
    virtual Result<Authenticated> from_session_cookie(std::string_view secret) const = 0;
};

// Bearer first, then X-Yuzu-Token, then the session cookie (when
// `allow_cookie`). Unauthenticated when none is presented or it is invalid.
Result<Authenticated> authenticate(const httplib::Request& req, const CredentialResolver& resolver,
                                   bool allow_cookie = true);

// 401 with `WWW-Authenticate: Bearer realm="yuzu"` and the JSON error body.
void write_unauthorized(httplib::Response& res, const std::string& message);

// True when the request changes state and came with a cookie, and its
// X-CSRF-Token (or form field csrf_token) does not match the session's.
bool csrf_rejected(const httplib::Request& req, const Authenticated& who);

// The value of cookie `name`, or "".
std::string cookie_value(const httplib::Request& req, std::string_view name);

}  // namespace yuzu::http
