#include "yuzu/auth/auth_schema.hpp"

#include <array>

namespace yuzu::auth {

std::span<const store::Migration> auth_migrations() {
    static const std::array<store::Migration, 2> kMigrations = {kIdentitySchemaMigration,
                                                                kCredentialSchemaMigration};
    return kMigrations;
}

}  // namespace yuzu::auth
