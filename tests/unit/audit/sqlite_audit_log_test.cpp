// What only the SQLite log has: the file, reopening, the append-only schema,
// retention pruning, readiness and store failures.
#include "yuzu/audit/sqlite_audit_log.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::audit {
namespace {

using yuzu::testing::TempDir;

constexpr int64_t kStartMs = 1'700'000'000'000;

AuditEvent make_event(std::string action, int64_t timestamp_ms = 0) {
    AuditEvent e;
    e.principal = "alice";
    e.principal_kind = "api_token";
    e.action = std::move(action);
    e.timestamp_ms = timestamp_ms;
    return e;
}

class SqliteAuditLogTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_NO_FATAL_FAILURE(open_log()); }

    void open_log() {
        log_.reset();
        auto log = SqliteAuditLog::open(dir_.str(), clock_);
        ASSERT_TRUE(log.ok()) << log.status().to_string();
        log_ = std::move(log).value();
    }

    void record(AuditEvent e) {
        const Status s = log_->record(std::move(e));
        ASSERT_TRUE(s.ok()) << s.to_string();
    }

    std::vector<AuditEvent> all_rows() {
        auto page = log_->query({.limit = kMaxQueryLimit});
        EXPECT_TRUE(page.ok()) << page.status().to_string();
        return page.ok() ? page->events : std::vector<AuditEvent>{};
    }

    // A second connection to audit.db, as an operator's sqlite3 shell would be.
    std::unique_ptr<store::Database> side_connection() {
        auto db = store::Database::open((dir_ / "audit.db").string());
        EXPECT_TRUE(db.ok()) << db.status().to_string();
        return db.ok() ? std::move(db).value() : nullptr;
    }

    Status side_exec(const std::string& sql) {
        auto db = side_connection();
        if (db == nullptr) return Status::Internal("no side connection");
        auto conn = db->lock();
        return conn.exec(sql);
    }

    TempDir dir_;
    ManualClock clock_{kStartMs};
    std::unique_ptr<SqliteAuditLog> log_;
};

TEST_F(SqliteAuditLogTest, CreatesAuditDbInTheDataDir) {
    EXPECT_EQ(log_->path(), (dir_ / "audit.db").string());
    EXPECT_TRUE(std::filesystem::exists(dir_ / "audit.db"));
}

TEST_F(SqliteAuditLogTest, OpenFailsWithThePathWhenTheDataDirIsMissing) {
    const std::string missing = (dir_ / "no-such-dir").string();
    auto log = SqliteAuditLog::open(missing, clock_);
    ASSERT_FALSE(log.ok());
    EXPECT_NE(log.status().message().find(missing), std::string::npos) << log.status().to_string();
}

TEST_F(SqliteAuditLogTest, ReopenKeepsRowsAndNeverReusesIds) {
    record(make_event("auth.login"));
    record(make_event("token.create"));
    const std::vector<AuditEvent> before = all_rows();
    ASSERT_EQ(before.size(), 2u);

    ASSERT_NO_FATAL_FAILURE(open_log());
    EXPECT_EQ(all_rows(), before);
    record(make_event("auth.logout"));
    const std::vector<AuditEvent> after = all_rows();
    ASSERT_EQ(after.size(), 3u);
    EXPECT_EQ(after[0].action, "auth.logout");
    EXPECT_GT(after[0].id, before[0].id);
}

TEST_F(SqliteAuditLogTest, UpdateIsRefusedBySchema) {
    record(make_event("auth.login"));
    const Status s = side_exec("UPDATE audit_events SET principal = 'mallory'");
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("append-only"), std::string::npos) << s.to_string();
    const std::vector<AuditEvent> rows = all_rows();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].principal, "alice");
}

TEST_F(SqliteAuditLogTest, DeleteOutsidePruneIsRefusedBySchema) {
    record(make_event("auth.login"));
    const Status s = side_exec("DELETE FROM audit_events");
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("append-only"), std::string::npos) << s.to_string();
    EXPECT_EQ(all_rows().size(), 1u);
}

TEST_F(SqliteAuditLogTest, PruneRemovesOnlyRowsOlderThanTheCutoff) {
    record(make_event("old.1", 1000));
    record(make_event("old.2", 1999));
    record(make_event("at_cutoff", 2000));
    record(make_event("new", 3000));

    EXPECT_EQ(log_->prune_older_than(2000), 2u);
    std::vector<std::string> left;
    for (const AuditEvent& e : all_rows()) left.push_back(e.action);
    EXPECT_EQ(left, (std::vector<std::string>{"new", "at_cutoff"}));

    EXPECT_EQ(log_->prune_older_than(2000), 0u);  // nothing older left
    // The gate closed again with prune's transaction.
    EXPECT_FALSE(side_exec("DELETE FROM audit_events").ok());
    EXPECT_EQ(all_rows().size(), 2u);
}

TEST_F(SqliteAuditLogTest, IdsKeepGrowingAfterPruningTheNewestRows) {
    record(make_event("a", 1000));
    record(make_event("b", 1001));
    const int64_t last_id = all_rows().front().id;
    EXPECT_EQ(log_->prune_older_than(5000), 2u);
    record(make_event("c", 1002));
    const std::vector<AuditEvent> rows = all_rows();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_GT(rows[0].id, last_id);
}

TEST_F(SqliteAuditLogTest, FailedPruneDeletesNothingAndReturnsZero) {
    record(make_event("old", 1000));
    ASSERT_TRUE(side_exec("DROP TABLE audit_prune_gate").ok());
    EXPECT_EQ(log_->prune_older_than(5000), 0u);
    EXPECT_EQ(all_rows().size(), 1u);
}

TEST_F(SqliteAuditLogTest, ReadyIsOkOnAHealthyStore) {
    EXPECT_TRUE(log_->ready().ok());
}

TEST_F(SqliteAuditLogTest, StoreFailureIsReturnedNotThrown) {
    ASSERT_TRUE(side_exec("DROP TABLE audit_events").ok());
    const Status recorded = log_->record(make_event("token.create"));
    ASSERT_FALSE(recorded.ok());
    EXPECT_NE(recorded.message().find("token.create"), std::string::npos) << recorded.to_string();
    EXPECT_FALSE(log_->ready().ok());
    EXPECT_FALSE(log_->query({}).ok());
}

TEST_F(SqliteAuditLogTest, SchemaHasTheQueryIndexes) {
    auto db = side_connection();
    ASSERT_NE(db, nullptr);
    auto conn = db->lock();
    auto stmt = conn.prepare(
        "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
        "WHERE type = 'index' AND tbl_name = 'audit_events' ORDER BY name)");
    ASSERT_TRUE(stmt.ok()) << stmt.status().to_string();
    auto row = stmt->step();
    ASSERT_TRUE(row.ok() && *row);
    EXPECT_EQ(stmt->column_text(0),
              "audit_events_by_action,audit_events_by_principal,audit_events_by_time");
}

TEST_F(SqliteAuditLogTest, EveryRecordIsCommittedBeforeItReturns) {
    record(make_event("auth.login"));
    // A separate connection sees the row at once: it is not held in a
    // transaction or a buffer of the log.
    auto db = side_connection();
    ASSERT_NE(db, nullptr);
    auto conn = db->lock();
    auto stmt = conn.prepare("SELECT count(*) FROM audit_events");
    ASSERT_TRUE(stmt.ok());
    auto row = stmt->step();
    ASSERT_TRUE(row.ok() && *row);
    EXPECT_EQ(stmt->column_int64(0), 1);
}

}  // namespace
}  // namespace yuzu::audit
