#include "yuzu/store/migrations.hpp"

#include <spdlog/spdlog.h>

#include <cassert>
#include <string>

#include "yuzu/store/database.hpp"

namespace yuzu::store {
namespace {

constexpr std::string_view kCreateBookkeeping =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL,"
    " applied_at INTEGER NOT NULL)";  // Unix seconds

Result<int64_t> read_user_version(Conn& conn) {
    auto stmt = conn.prepare("PRAGMA user_version");
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    assert(*row && "PRAGMA user_version always answers one row");
    const int64_t version = stmt->column_int64(0);
    stmt->reset();
    return version;
}

void assert_well_formed(std::span<const Migration> migrations) {
    int previous = 0;
    for (const Migration& m : migrations) {
        assert((previous != 0 || m.version == 1) && "the first migration must be version 1");
        assert(m.version > previous && "migration versions must strictly increase");
        assert(!m.name.empty() && !m.sql.empty());
        previous = m.version;
    }
    (void)previous;
}

// One migration and its bookkeeping, all-or-nothing. Answers whether it ran
// (false when another process got there first).
Result<bool> apply_one(Conn& conn, std::string_view store_name, const Migration& m,
                       const Clock& clock) {
    const std::string label = std::string(store_name) + " migration " + std::to_string(m.version) +
                              " (" + std::string(m.name) + ") at " + conn.path();
    auto tx = conn.transaction();
    if (!tx.ok()) return Status(tx.status().code(), label + ": " + tx.status().message());

    // Re-read inside the write lock: another process may have migrated.
    auto current = read_user_version(conn);
    if (!current.ok()) return current.status();
    if (*current >= m.version) return false;

    Status ran = conn.exec(m.sql);
    if (!ran.ok()) {
        return Status(ran.code(), label +
                                      " failed and was rolled back; the file stays at schema "
                                      "version " +
                                      std::to_string(*current) + ": " + ran.message());
    }
    YUZU_RETURN_IF_ERROR(conn.exec(kCreateBookkeeping));
    auto record =
        conn.prepare("INSERT INTO schema_migrations(version, name, applied_at) VALUES(?, ?, ?)");
    if (!record.ok()) return record.status();
    YUZU_RETURN_IF_ERROR(record->bind(1, m.version).bind(2, m.name).bind(3, clock.now_s()).run());
    // PRAGMA takes no parameters; the version is an int we own.
    YUZU_RETURN_IF_ERROR(conn.exec("PRAGMA user_version = " + std::to_string(m.version)));
    Status committed = tx.commit();
    if (!committed.ok()) {
        return Status(committed.code(), label + ": " + committed.message());
    }
    return true;
}

}  // namespace

Status apply_migrations(Database& db, std::string_view store_name,
                        std::span<const Migration> migrations, const Clock& clock) {
    assert_well_formed(migrations);
    const int newest = migrations.empty() ? 0 : migrations.back().version;

    auto conn = db.lock();
    auto current = read_user_version(conn);
    if (!current.ok()) return current.status();
    if (*current > newest) {
        return Status::FailedPrecondition(
            std::string(store_name) + " at " + db.path() + " is at schema version " +
            std::to_string(*current) + " but this yuzu-server only knows up to " +
            std::to_string(newest) +
            "; it was written by a newer release \u2014 upgrade yuzu-server or restore a backup");
    }

    for (const Migration& m : migrations) {
        if (m.version <= *current) continue;
        auto applied = apply_one(conn, store_name, m, clock);
        if (!applied.ok()) return applied.status();
        if (*applied) {
            spdlog::info("store: {} at {} migrated to schema version {} ({})", store_name,
                         db.path(), m.version, m.name);
        }
    }
    return Status::Ok();
}

}  // namespace yuzu::store
