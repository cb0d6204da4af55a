// Identity: auth.db and every service built on it (users, RBAC, management
// groups, API tokens, web sessions, TOTP), opened and migrated together, plus
// the first-start admin bootstrap. Owned by the app; the services are safe to
// use from any thread.
#pragma once

#include <memory>
#include <string>

#include "yuzu/auth/authorizer.hpp"
#include "yuzu/auth/bootstrap_admin.hpp"
#include "yuzu/auth/management_group.hpp"
#include "yuzu/auth/mfa_service.hpp"
#include "yuzu/auth/rbac.hpp"
#include "yuzu/auth/secret_box.hpp"
#include "yuzu/auth/session_store.hpp"
#include "yuzu/auth/token_store.hpp"
#include "yuzu/auth/user_store.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::auth {

struct IdentityOptions {
    std::string data_dir;
    std::string bootstrap_password_file;   // --bootstrap-admin-password-file
    std::string bootstrap_password_value;  // YUZU_BOOTSTRAP_ADMIN_PASSWORD
    std::string secrets_key_file;          // default <data_dir>/secrets.key
    UserStoreOptions user_options;
};

// RBAC for principals: a token acts as its owner, with the owner's current
// roles (the tier is checked separately, before RBAC).
class RbacAuthorizer final : public Authorizer {
  public:
    explicit RbacAuthorizer(const Rbac& rbac) : rbac_(rbac) {}
    Result<bool> allowed(const Principal& who, Permission what) const override;
    Result<bool> allowed_on_agent(const Principal& who, Permission what,
                                  const std::string& agent_id) const override;

  private:
    const Rbac& rbac_;
};

class Identity {
  public:
    static Result<std::unique_ptr<Identity>> open(const IdentityOptions& options,
                                                  const Clock& clock);
    ~Identity();

    UserStore& users() { return *users_; }
    TokenStore& tokens() { return *tokens_; }
    SessionStore& sessions() { return *sessions_; }
    MfaService& mfa() { return *mfa_; }
    Rbac& rbac() { return *rbac_; }
    ManagementGroupStore& groups() { return *groups_; }
    const Authorizer& authorizer() const { return *authorizer_; }
    const BootstrapOutcome& bootstrap() const { return bootstrap_; }
    const std::string& db_path() const { return db_->path(); }

    // Whether `username` holds `role` on group `group_id` or on any group
    // above it (a role on a group reaches everything below it).
    Result<bool> holds_group_role(const std::string& username, std::string_view role,
                                  const std::string& group_id) const;

    // For /readyz: auth.db answers a query.
    Status ready() const;

  private:
    Identity() = default;
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<SecretBox> secrets_;
    std::unique_ptr<UserStore> users_;
    std::unique_ptr<TokenStore> tokens_;
    std::unique_ptr<SessionStore> sessions_;
    std::unique_ptr<MfaService> mfa_;
    std::unique_ptr<ManagementGroupStore> groups_;
    std::unique_ptr<Rbac> rbac_;
    std::unique_ptr<RbacAuthorizer> authorizer_;
    BootstrapOutcome bootstrap_;
};

}  // namespace yuzu::auth
