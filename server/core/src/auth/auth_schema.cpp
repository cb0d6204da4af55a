#include "yuzu/auth/auth_schema.hpp"

#include <array>

namespace yuzu::auth {

std::span<const store::Migration> auth_migrations() {
    static const std::array<store::Migration, 3> kMigrations = {
        kIdentitySchemaMigration, kCredentialSchemaMigration, kLockExpiryMigration};
    return kMigrations;
}

}  // namespace yuzu::auth
