#include "yuzu/http/identity_resolver.hpp"

#include <spdlog/spdlog.h>

#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/token_store.hpp"

namespace yuzu::http {

namespace {

AuthFailure failure_for(auth::TokenRejection rejection) {
    switch (rejection) {
        case auth::TokenRejection::kExpired:
            return AuthFailure::kExpiredToken;
        case auth::TokenRejection::kRevoked:
            return AuthFailure::kRevokedToken;
        case auth::TokenRejection::kSuperseded:
            return AuthFailure::kSupersededToken;
        case auth::TokenRejection::kUnavailable:
            return AuthFailure::kUnverifiedToken;
        case auth::TokenRejection::kNone:
        case auth::TokenRejection::kMalformed:
        case auth::TokenRejection::kUnknown:
            return AuthFailure::kUnknownToken;
    }
    return AuthFailure::kUnknownToken;
}

Result<Authenticated> refused(AuthFailure why, AuthFailure* failure) {
    if (failure != nullptr) *failure = why;
    const std::string_view description = auth_failure_description(why);
    return Status::Unauthenticated(description.empty()
                                       ? "the token could not be verified; try again"
                                       : std::string(description));
}

}  // namespace

Result<Authenticated> IdentityResolver::from_token(std::string_view raw) const {
    return resolve_token(raw, nullptr);
}

Result<Authenticated> IdentityResolver::resolve_token(std::string_view raw,
                                                      AuthFailure* failure) const {
    auth::TokenRejection rejection = auth::TokenRejection::kNone;
    auto info = identity_.tokens().validate(raw, &rejection);
    if (!info.ok()) {
        // The client learns expired, revoked or unknown (RFC 6750
        // error_description), which only a holder of a real token can use;
        // the store's exact words stay in the log.
        spdlog::info("token refused: {}", info.status().message());
        return refused(failure_for(rejection), failure);
    }
    // A token whose owner is gone stops working with it. A login lock does
    // not count: it throttles password guessing, and voiding tokens would let
    // anyone who knows a username cut its owner off (or lock out the only
    // administrator's automation).
    auto owner = identity_.users().user_exists(info->owner);
    if (!owner.ok()) return refused(AuthFailure::kUnverifiedToken, failure);
    if (!*owner) return refused(AuthFailure::kRevokedToken, failure);
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
    auto user = identity_.users().user_exists(session->username);
    if (!user.ok() || !*user) return Status::Unauthenticated("session expired; log in again");
    Authenticated out;
    out.principal.username = session->username;
    out.principal.kind = auth::PrincipalKind::kUserSession;
    out.principal.session_id = session->session_id;
    out.principal.mfa_verified_at_ms = session->mfa_verified_at_ms;
    out.csrf_token = session->csrf_token;
    return out;
}

}  // namespace yuzu::http
