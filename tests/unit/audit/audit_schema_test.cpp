// audit.db's migrations: version 2 rebuilds audit_events without changing
// what it holds or refuses.
#include "yuzu/audit/audit_schema.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "yuzu/audit/sqlite_audit_log.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"
#include "yuzu/store/statement.hpp"

namespace yuzu::audit {
namespace {

using yuzu::testing::TempDir;

constexpr char kInsert[] =
    "INSERT INTO audit_events(timestamp_ms, principal, principal_kind, action, target_type, "
    "target_id, detail, source_ip, user_agent, result, correlation_id) VALUES(?, 'alice', "
    "'api_token', ?, 't', 'i', 'd', '127.0.0.1', 'ua', ?, 'req-1')";

class AuditSchemaTest : public ::testing::Test {
  protected:
    std::unique_ptr<store::Database> open_db() {
        auto db = store::Database::open((dir_ / "audit.db").string());
        EXPECT_TRUE(db.ok()) << db.status().to_string();
        return db.ok() ? std::move(db).value() : nullptr;
    }

    static Status insert(store::Database& db, int64_t ts, const std::string& action,
                         const std::string& result) {
        auto conn = db.lock();
        auto stmt = conn.prepare(kInsert);
        if (!stmt.ok()) return stmt.status();
        return stmt->bind(1, ts).bind(2, action).bind(3, result).run();
    }

    static std::vector<std::string> column(store::Database& db, const std::string& sql) {
        std::vector<std::string> out;
        auto conn = db.lock();
        auto stmt = conn.prepare(sql);
        EXPECT_TRUE(stmt.ok()) << stmt.status().to_string();
        if (!stmt.ok()) return out;
        for (;;) {
            auto row = stmt->step();
            EXPECT_TRUE(row.ok()) << row.status().to_string();
            if (!row.ok() || !*row) break;
            out.push_back(stmt->column_text(0));
        }
        return out;
    }

    TempDir dir_;
    ManualClock clock_{1'700'000'000'000};
};

TEST_F(AuditSchemaTest, VersionTwoKeepsRowsIdsSequenceAndTheAppendOnlyRules) {
    // A version-1 file with rows, the newest of them pruned.
    {
        auto db = open_db();
        ASSERT_NE(db, nullptr);
        ASSERT_TRUE(
            store::apply_migrations(*db, "audit.db", audit_migrations().first(1), clock_).ok());
        ASSERT_TRUE(insert(*db, 1000, "kept.1", "success").ok());
        ASSERT_TRUE(insert(*db, 1001, "kept.2", "denied").ok());
        ASSERT_TRUE(insert(*db, 1002, "pruned", "error").ok());
        auto conn = db->lock();
        ASSERT_TRUE(conn.exec("UPDATE audit_prune_gate SET open = 1; "
                              "DELETE FROM audit_events WHERE action = 'pruned'; "
                              "UPDATE audit_prune_gate SET open = 0")
                        .ok());
    }
    auto log = SqliteAuditLog::open(dir_.str(), clock_);
    ASSERT_TRUE(log.ok()) << log.status().to_string();
    auto db = open_db();
    ASSERT_NE(db, nullptr);
    EXPECT_EQ(column(*db, "PRAGMA user_version"), std::vector<std::string>{"2"});
    EXPECT_EQ(column(*db,
                     "SELECT id || ' ' || action || ' ' || result FROM audit_events "
                     "ORDER BY id"),
              (std::vector<std::string>{"1 kept.1 success", "2 kept.2 denied"}));
    // The sequence came along: id 3 was handed out once and stays retired.
    AuditEvent next;
    next.principal = "bob";
    next.action = "after.migration";
    ASSERT_TRUE((*log)->record(next).ok());
    EXPECT_EQ(column(*db, "SELECT MAX(id) FROM audit_events"), std::vector<std::string>{"4"});
    EXPECT_EQ(column(*db,
                     "SELECT name FROM sqlite_master WHERE type = 'index' AND "
                     "tbl_name = 'audit_events' ORDER BY name"),
              (std::vector<std::string>{"audit_events_by_action", "audit_events_by_principal",
                                        "audit_events_by_time"}));

    // Still append-only, and still only the known results.
    {
        auto conn = db->lock();
        const Status update = conn.exec("UPDATE audit_events SET principal = 'mallory'");
        EXPECT_NE(update.message().find("append-only"), std::string::npos) << update.to_string();
        const Status del = conn.exec("DELETE FROM audit_events");
        EXPECT_NE(del.message().find("append-only"), std::string::npos) << del.to_string();
    }
    EXPECT_FALSE(insert(*db, 2000, "x", "bogus").ok());
    EXPECT_FALSE(insert(*db, 2000, "x", "Success").ok());  // BINARY, as before
    for (const char* result :
         {"success", "failure", "denied", "error", "pending", "approved", "rejected", "consumed"}) {
        EXPECT_TRUE(insert(*db, 2000, "x", result).ok()) << result;
    }
    EXPECT_EQ(column(*db, "SELECT COUNT(*) FROM audit_events"), std::vector<std::string>{"11"});
    // Retention pruning still gets through the recreated delete trigger.
    EXPECT_EQ((*log)->prune_older_than(1002), 2u);
    EXPECT_EQ(column(*db, "SELECT COUNT(*) FROM audit_events WHERE timestamp_ms < 1002"),
              std::vector<std::string>{"0"});
}

TEST_F(AuditSchemaTest, AnInsertNoLongerBuildsATemporaryTable) {
    auto log = SqliteAuditLog::open(dir_.str(), clock_);
    ASSERT_TRUE(log.ok()) << log.status().to_string();
    auto db = open_db();
    ASSERT_NE(db, nullptr);
    const std::string explain = std::string("EXPLAIN ") + kInsert;
    std::vector<std::string> opcodes;
    {
        auto conn = db->lock();
        auto stmt = conn.prepare(explain);
        ASSERT_TRUE(stmt.ok()) << stmt.status().to_string();
        stmt->bind(1, int64_t{1}).bind(2, std::string("a")).bind(3, std::string("success"));
        for (;;) {
            auto row = stmt->step();
            ASSERT_TRUE(row.ok()) << row.status().to_string();
            if (!*row) break;
            opcodes.push_back(stmt->column_text(1));
        }
    }
    ASSERT_FALSE(opcodes.empty());
    for (const std::string& op : opcodes) EXPECT_NE(op, "OpenEphemeral");
    // A fresh file, no sequence carried: ids start at 1.
    AuditEvent first;
    first.action = "first";
    ASSERT_TRUE((*log)->record(first).ok());
    EXPECT_EQ(column(*db, "SELECT MAX(id) FROM audit_events"), std::vector<std::string>{"1"});
}

}  // namespace
}  // namespace yuzu::audit
