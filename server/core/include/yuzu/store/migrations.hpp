// Numbered schema migrations for a store's SQLite file.
//
// A store lists its migrations once, oldest first, and calls
// apply_migrations() at start-up. The applied version lives in
// PRAGMA user_version and one row per migration in
// schema_migrations(version, name, applied_at), where applied_at is Unix
// seconds. Each missing migration runs in its own transaction together with
// its bookkeeping, so a failing migration leaves the file at the previous
// version. Migration SQL must not contain BEGIN/COMMIT, and PRAGMAs that are
// no-ops inside a transaction (foreign_keys) have no effect there.
//
// Thread-safety: takes the Database's lock for the whole run.
#pragma once

#include <span>
#include <string_view>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {

class Database;

struct Migration {
    int version;            // 1, 2, 3, ... strictly increasing (asserted)
    std::string_view name;  // short, e.g. "create_users"
    std::string_view sql;   // one or more statements
};

// Brings the file up to the newest migration; a no-op when already there.
// If the file is newer than the newest migration this binary knows, returns
// FailedPrecondition telling the operator to upgrade or restore a backup.
// `store_name` names the store in messages, e.g. "audit.db".
Status apply_migrations(Database& db, std::string_view store_name,
                        std::span<const Migration> migrations,
                        const Clock& clock = SystemClock::instance());

}  // namespace yuzu::store
