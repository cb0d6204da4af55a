// CredentialResolver over the identity stores: API/MCP tokens and web
// sessions. Safe to call from any thread.
#pragma once

#include "yuzu/http/authenticator.hpp"

namespace yuzu::auth {
class Identity;
}

namespace yuzu::http {

class IdentityResolver final : public CredentialResolver {
  public:
    explicit IdentityResolver(auth::Identity& identity) : identity_(identity) {}
    Result<Authenticated> from_token(std::string_view raw) const override;
    Result<Authenticated> resolve_token(std::string_view raw, AuthFailure* failure) const override;
    Result<Authenticated> from_session_cookie(std::string_view secret) const override;

  private:
    auth::Identity& identity_;
};

}  // namespace yuzu::http
