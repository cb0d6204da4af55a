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

// Why a request has no principal. It picks the 401's WWW-Authenticate
// challenge (RFC 6750 §3): no error for a request that presented no bearer
// token, error="invalid_token" with a fixed description for one that did.
enum class AuthFailure {
    kNone,             // authenticated
    kNoCredentials,    // nothing presented, or a scheme other than Bearer
    kUnknownToken,     // not a token this server issued (or not token-shaped)
    kExpiredToken,     // past its expires_at
    kRevokedToken,     // revoked, or its owner no longer exists
    kSupersededToken,  // an old secret retired by rotation
    kUnverifiedToken,  // the token store could not answer
    kInvalidSession,   // a session cookie that is unknown, expired or idle
};

// Turns a presented credential into a principal. Implemented by the identity
// layer; tests use fakes. Safe to call from any thread.
class CredentialResolver {
  public:
    virtual ~CredentialResolver() = default;
    virtual Result<Authenticated> from_token(std::string_view raw) const = 0;
    virtual Result<Authenticated> from_session_cookie(std::string_view secret) const = 0;
    // from_token() that also says why a token was refused (*failure is set
    // only on a refusal). The default calls from_token() and says
    // kUnknownToken; a resolver that can tell the reasons apart overrides it.
    virtual Result<Authenticated> resolve_token(std::string_view raw, AuthFailure* failure) const;
};

// Bearer first, then X-Yuzu-Token, then the session cookie (when
// `allow_cookie`). Unauthenticated when none is presented or it is invalid;
// then *failure (when given) says why.
Result<Authenticated> authenticate(const httplib::Request& req, const CredentialResolver& resolver,
                                   bool allow_cookie = true, AuthFailure* failure = nullptr);

// The WWW-Authenticate value for a 401 with this failure:
//   Bearer realm="yuzu"                                   (no bearer token)
//   Bearer realm="yuzu", error="invalid_token", error_description="..."
// The description is a fixed text per failure, never the presented token.
std::string www_authenticate_challenge(AuthFailure failure);

// The fixed error_description for a refused token ("the token has
// expired", ...); "" for failures that carry no error code.
std::string_view auth_failure_description(AuthFailure failure);

// 401 with www_authenticate_challenge(failure) and the JSON error body
// carrying `message`.
void write_unauthorized(httplib::Response& res, AuthFailure failure, const std::string& message);

// 401 with `WWW-Authenticate: Bearer realm="yuzu"` (no error code) and the
// JSON error body.
void write_unauthorized(httplib::Response& res, const std::string& message);

// True when the request changes state and came with a cookie, and its
// X-CSRF-Token (or form field csrf_token) does not match the session's.
bool csrf_rejected(const httplib::Request& req, const Authenticated& who);

// The value of cookie `name`, or "".
std::string cookie_value(const httplib::Request& req, std::string_view name);

}  // namespace yuzu::http
