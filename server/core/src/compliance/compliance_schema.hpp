// Private to the compliance module: compliance.db's migrations and the
// policies seeded the first time the store is opened.
#pragma once

#include <span>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::compliance {

std::span<const store::Migration> compliance_migrations();

// Inserts the built-in policies if migration 1 left its "seed_pending" mark,
// and removes the mark in the same transaction: the seeds arrive exactly
// once, and policies an administrator deleted never come back.
Status seed_policies_once(store::Database& db, const Clock& clock);

}  // namespace yuzu::compliance
