// The migrations of auth.db. Each part of the identity layer owns the SQL of
// its own migrations (identity_schema.cpp: users, roles, management groups,
// lock expiry; credential_schema.cpp: API tokens, web sessions, TOTP
// factors); this list fixes their order.
#pragma once

#include <span>

#include "yuzu/store/migrations.hpp"

namespace yuzu::auth {

// Version 1: users, role assignments, management groups (identity_schema.cpp).
extern const store::Migration kIdentitySchemaMigration;
// Version 2: api tokens, web sessions, TOTP factors (credential_schema.cpp).
extern const store::Migration kCredentialSchemaMigration;
// Version 3: users.locked_until_ms; a login lock ends by itself (identity_schema.cpp).
extern const store::Migration kLockExpiryMigration;

std::span<const store::Migration> auth_migrations();

}  // namespace yuzu::auth
