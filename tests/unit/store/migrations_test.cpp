#include "yuzu/store/migrations.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "support/temp_dir.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::store {
namespace {

using yuzu::testing::TempDir;

constexpr Migration kV1{1, "create_users",
                        "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);"};
constexpr Migration kV2{2, "add_email",
                        "ALTER TABLE users ADD COLUMN email TEXT;"
                        "CREATE UNIQUE INDEX users_email ON users(email);"};
constexpr Migration kV3{3, "create_sessions",
                        "CREATE TABLE sessions(id TEXT PRIMARY KEY,"
                        " user_id INTEGER NOT NULL REFERENCES users(id));"};

struct AppliedRow {
    int64_t version;
    std::string name;
    int64_t applied_at;
    bool operator==(const AppliedRow&) const = default;
};

class MigrationsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        path_ = (dir_ / "audit.db").string();
        auto db = Database::open(path_);
        ASSERT_TRUE(db.ok()) << db.status().to_string();
        db_ = std::move(db).value();
    }

    int64_t user_version() {
        auto conn = db_->lock();
        auto stmt = conn.prepare("PRAGMA user_version");
        EXPECT_TRUE(stmt.ok());
        auto row = stmt->step();
        EXPECT_TRUE(row.ok() && *row);
        return stmt->column_int64(0);
    }

    std::vector<AppliedRow> applied_rows() {
        std::vector<AppliedRow> out;
        auto conn = db_->lock();
        auto stmt = conn.prepare(
            "SELECT version, name, applied_at FROM schema_migrations ORDER BY version");
        EXPECT_TRUE(stmt.ok()) << stmt.status().to_string();
        if (!stmt.ok()) return out;
        for (;;) {
            auto row = stmt->step();
            EXPECT_TRUE(row.ok());
            if (!row.ok() || !*row) break;
            out.push_back({stmt->column_int64(0), stmt->column_text(1), stmt->column_int64(2)});
        }
        return out;
    }

    bool table_exists(std::string_view name) {
        auto conn = db_->lock();
        auto stmt =
            conn.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?");
        EXPECT_TRUE(stmt.ok());
        auto row = stmt->bind(1, name).step();
        EXPECT_TRUE(row.ok() && *row);
        return stmt->column_int64(0) == 1;
    }

    TempDir dir_;
    std::string path_;
    std::unique_ptr<Database> db_;
    ManualClock clock_{1'700'000'000'000};
};

TEST_F(MigrationsTest, FreshApplyRunsEveryMigrationAndRecordsIt) {
    const Migration all[] = {kV1, kV2};
    Status s = apply_migrations(*db_, "audit.db", all, clock_);
    ASSERT_TRUE(s.ok()) << s.to_string();
    EXPECT_EQ(user_version(), 2);
    EXPECT_EQ(applied_rows(), (std::vector<AppliedRow>{{1, "create_users", 1'700'000'000},
                                                       {2, "add_email", 1'700'000'000}}));
    auto conn = db_->lock();
    EXPECT_TRUE(conn.exec("INSERT INTO users(name, email) VALUES('a', 'a@example.com')").ok());
    EXPECT_EQ(conn.exec("INSERT INTO users(name, email) VALUES('b', 'a@example.com')").code(),
              StatusCode::kAlreadyExists);
}

TEST_F(MigrationsTest, RerunIsANoOp) {
    const Migration all[] = {kV1, kV2};
    ASSERT_TRUE(apply_migrations(*db_, "audit.db", all, clock_).ok());
    const auto before = applied_rows();
    clock_.advance_ms(3'600'000);
    Status again = apply_migrations(*db_, "audit.db", all, clock_);
    ASSERT_TRUE(again.ok()) << again.to_string();
    EXPECT_EQ(user_version(), 2);
    EXPECT_EQ(applied_rows(), before);

    // Also across a reopen of the file.
    db_.reset();
    auto reopened = Database::open(path_);
    ASSERT_TRUE(reopened.ok());
    db_ = std::move(reopened).value();
    ASSERT_TRUE(apply_migrations(*db_, "audit.db", all, clock_).ok());
    EXPECT_EQ(user_version(), 2);
    EXPECT_EQ(applied_rows(), before);
}

TEST_F(MigrationsTest, AddingMigrationThreeAppliesOnlyThree) {
    const Migration first_release[] = {kV1, kV2};
    ASSERT_TRUE(apply_migrations(*db_, "audit.db", first_release, clock_).ok());
    ASSERT_TRUE(db_->lock().exec("INSERT INTO users(id, name) VALUES(1, 'kept')").ok());

    clock_.advance_ms(86'400'000);
    const Migration second_release[] = {kV1, kV2, kV3};
    Status s = apply_migrations(*db_, "audit.db", second_release, clock_);
    ASSERT_TRUE(s.ok()) << s.to_string();
    EXPECT_EQ(user_version(), 3);
    EXPECT_EQ(applied_rows(), (std::vector<AppliedRow>{{1, "create_users", 1'700'000'000},
                                                       {2, "add_email", 1'700'000'000},
                                                       {3, "create_sessions", 1'700'086'400}}));
    auto conn = db_->lock();
    EXPECT_TRUE(conn.exec("INSERT INTO sessions(id, user_id) VALUES('s', 1)").ok());
}

TEST_F(MigrationsTest, ANewerFileIsRefusedWithAnOperatorMessage) {
    ASSERT_TRUE(db_->lock().exec("PRAGMA user_version = 5").ok());
    const Migration known[] = {kV1, kV2, kV3};
    Status s = apply_migrations(*db_, "audit.db", known, clock_);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(s.message(), "audit.db at " + path_ +
                               " is at schema version 5 but this yuzu-server only knows up to 3; "
                               "it was written by a newer release \u2014 upgrade yuzu-server or "
                               "restore a backup");
    EXPECT_EQ(user_version(), 5);
    EXPECT_FALSE(table_exists("users"));
    EXPECT_FALSE(table_exists("schema_migrations"));
}

TEST_F(MigrationsTest, AFailingMigrationRollsBackAndKeepsTheVersion) {
    const Migration first_release[] = {kV1, kV2};
    ASSERT_TRUE(apply_migrations(*db_, "audit.db", first_release, clock_).ok());

    const Migration broken{3, "broken_step",
                           "CREATE TABLE half_done(x);"
                           "INSERT INTO no_such_table VALUES(1);"};
    const Migration never{4, "never_reached", "CREATE TABLE never(x);"};
    const Migration with_broken[] = {kV1, kV2, broken, never};
    Status s = apply_migrations(*db_, "audit.db", with_broken, clock_);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("audit.db migration 3 (broken_step)"), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find(path_), std::string::npos);
    EXPECT_NE(s.message().find("stays at schema version 2"), std::string::npos);
    EXPECT_NE(s.message().find("no such table: no_such_table"), std::string::npos);

    EXPECT_EQ(user_version(), 2);
    EXPECT_EQ(applied_rows().size(), 2u);
    EXPECT_FALSE(table_exists("half_done"));
    EXPECT_FALSE(table_exists("never"));

    // Fixed in the next build, the same file moves on.
    const Migration fixed{3, "broken_step", "CREATE TABLE half_done(x);"};
    const Migration with_fix[] = {kV1, kV2, fixed, never};
    ASSERT_TRUE(apply_migrations(*db_, "audit.db", with_fix, clock_).ok());
    EXPECT_EQ(user_version(), 4);
    EXPECT_TRUE(table_exists("half_done"));
    EXPECT_TRUE(table_exists("never"));
}

TEST_F(MigrationsTest, AFailingFirstMigrationLeavesAnEmptyFile) {
    const Migration bad{1, "bad", "CREATE TABLE ok_table(x); CREATE TABLE ok_table(y);"};
    const Migration all[] = {bad};
    Status s = apply_migrations(*db_, "auth.db", all, clock_);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("already exists"), std::string::npos) << s.message();
    EXPECT_EQ(user_version(), 0);
    EXPECT_FALSE(table_exists("ok_table"));
    EXPECT_FALSE(table_exists("schema_migrations"));
}

TEST_F(MigrationsTest, ConcurrentAppliersOnOneFileApplyEachMigrationOnce) {
    auto other = Database::open(path_);
    ASSERT_TRUE(other.ok());
    const Migration all[] = {kV1, kV2, kV3};
    Status a, b;
    std::thread ta([&] { a = apply_migrations(*db_, "audit.db", all, clock_); });
    std::thread tb([&] { b = apply_migrations(**other, "audit.db", all, clock_); });
    ta.join();
    tb.join();
    EXPECT_TRUE(a.ok()) << a.to_string();
    EXPECT_TRUE(b.ok()) << b.to_string();
    EXPECT_EQ(user_version(), 3);
    EXPECT_EQ(applied_rows().size(), 3u);
}

}  // namespace
}  // namespace yuzu::store
