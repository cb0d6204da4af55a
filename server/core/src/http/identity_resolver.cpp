#include "yuzu/http/identity_resolver.hpp"

#include <spdlog/spdlog.h>

#include "yuzu/auth/identity.hpp"

namespace yuzu::http {

Result<Authenticated> IdentityResolver::from_token(std::string_view raw) const {
    auto info = identity_.tokens().validate(raw);
    if (!info.ok()) {
        // The reason (expired, revoked, unknown) is for the log only; every
        // client sees the same 401.
        spdlog::info("token refused: {}", info.status().message());
        return Status::Unauthenticated("invalid or expired token");
    }
    // A token whose owner is gone stops working with it. A login lock does
    // not count: it throttles password guessing, and voiding tokens would let
    // anyone who knows a username cut its owner off (or lock out the only
    // administrator's automation).
    auto owner = identity_.users().get_user(info->owner);
    if (!owner.ok()) return Status::Unauthenticated("invalid or expired token");
    Authenticated out;
    out.principal.username = info->owner;
    out.principal.kind =
        info->mcp_tier.empty() ? auth::PrincipalKind::kApiToken : auth::PrincipalKind::kMcpToken;
    out.principal.mcp_tier = info->mcp_tier;
    out.principal.token_id = info->id;
    return out;
}

Result<Authenticated> IdentityResolver::from_session_cookie(std::string_view secret) const {
    auto session = identity_.sessions().lookup(secret);
    if (!session.ok()) return Status::Unauthenticated("session expired; log in again");
    // As for tokens: only a user that is gone ends the session, not a lock.
    auto user = identity_.users().get_user(session->username);
    if (!user.ok()) return Status::Unauthenticated("session expired; log in again");
    Authenticated out;
    out.principal.username = session->username;
    out.principal.kind = auth::PrincipalKind::kUserSession;
    out.principal.session_id = session->session_id;
    out.principal.mfa_verified_at_ms = session->mfa_verified_at_ms;
    out.csrf_token = session->csrf_token;
    return out;
}

}  // namespace yuzu::http
