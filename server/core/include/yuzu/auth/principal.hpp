// Principal: who is making a request, as resolved by the HTTP auth layer from
// a web session cookie, `Authorization: Bearer <token>` or `X-Yuzu-Token`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace yuzu::auth {

enum class PrincipalKind {
    kUserSession,  // interactive web session (cookie)
    kApiToken,     // API token without an MCP tier
    kMcpToken,     // API token with an MCP tier
};

// "user_session", "api_token", "mcp_token" — the spelling used in audit rows.
std::string_view principal_kind_name(PrincipalKind kind);

struct Principal {
    std::string username;  // the acting user; a token acts as its owner
    PrincipalKind kind = PrincipalKind::kUserSession;
    std::string mcp_tier;    // "", "readonly", "operator", "supervised"; "" unless kMcpToken
    std::string token_id;    // display id (24 hex) for token principals
    std::string session_id;  // opaque handle of the web session (not the cookie secret)
    int64_t mfa_verified_at_ms = 0;  // sessions only: time of the last TOTP step-up proof

    bool is_token() const { return kind != PrincipalKind::kUserSession; }
    bool is_interactive() const { return kind == PrincipalKind::kUserSession; }
};

}  // namespace yuzu::auth
