#include "yuzu/auth/identity.hpp"

#include <filesystem>

#include "yuzu/auth/auth_schema.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::auth {
namespace {

constexpr int kAuthReaders = 4;

}  // namespace

Result<bool> RbacAuthorizer::allowed(const Principal& who, Permission what) const {
    return rbac_.check(who.username, what);
}

Result<bool> RbacAuthorizer::allowed_on_agent(const Principal& who, Permission what,
                                              const std::string& agent_id) const {
    return rbac_.check_for_agent(who.username, what, agent_id);
}

Identity::~Identity() = default;

Result<std::unique_ptr<Identity>> Identity::open(const IdentityOptions& options,
                                                 const Clock& clock) {
    std::unique_ptr<Identity> id(new Identity());
    const std::string path = (std::filesystem::path(options.data_dir) / "auth.db").string();
    // Token lookup, user load and RBAC read auth.db on every request; their
    // own connections keep them from queueing behind session and token writes.
    auto db = store::Database::open(path, store::OpenOptions{.read_connections = kAuthReaders});
    if (!db.ok()) return db.status();
    id->db_ = std::move(db).value();
    YUZU_RETURN_IF_ERROR(store::apply_migrations(*id->db_, "auth.db", auth_migrations(), clock));

    const std::string key_file =
        options.secrets_key_file.empty()
            ? (std::filesystem::path(options.data_dir) / "secrets.key").string()
            : options.secrets_key_file;
    auto box = SecretBox::load_or_create_key_file(key_file);
    if (!box.ok()) return box.status();
    id->secrets_ = std::make_unique<SecretBox>(std::move(box).value());

    id->users_ = std::make_unique<UserStore>(*id->db_, clock, options.user_options);
    id->tokens_ = std::make_unique<TokenStore>(*id->db_, clock);
    id->sessions_ = std::make_unique<SessionStore>(*id->db_, clock);
    id->mfa_ = std::make_unique<MfaService>(*id->db_, *id->secrets_, clock);
    id->groups_ = std::make_unique<ManagementGroupStore>(*id->db_, clock);
    id->rbac_ = std::make_unique<Rbac>(*id->db_, *id->groups_, clock);
    id->authorizer_ = std::make_unique<RbacAuthorizer>(*id->rbac_);

    auto outcome = bootstrap_admin(*id->users_, options.data_dir, options.bootstrap_password_file,
                                   options.bootstrap_password_value);
    if (!outcome.ok()) return outcome.status();
    id->bootstrap_ = std::move(outcome).value();
    return id;
}

Result<bool> Identity::holds_group_role(const std::string& username, std::string_view role,
                                        const std::string& group_id) const {
    auto held = groups_->roles_held_by(std::string(kPrincipalUser), username);
    if (!held.ok()) return held.status();
    auto above = groups_->ancestors(group_id);
    if (!above.ok()) return above.status();
    for (const auto& a : *held) {
        if (a.role_name != role) continue;
        if (a.group_id == group_id) return true;
        for (const auto& g : *above) {
            if (a.group_id == g) return true;
        }
    }
    return false;
}

Status Identity::ready() const {
    auto conn = db_->lock();
    return conn.exec("SELECT 1");
}

}  // namespace yuzu::auth
