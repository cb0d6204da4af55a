#include "yuzu/store/transaction.hpp"

#include <gtest/gtest.h>

#include "support/temp_dir.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::store {
namespace {

using yuzu::testing::TempDir;

std::unique_ptr<Database> open_ok(const std::string& path, const OpenOptions& options = {}) {
    auto db = Database::open(path, options);
    EXPECT_TRUE(db.ok()) << db.status().to_string();
    return db.ok() ? std::move(db).value() : nullptr;
}

int64_t count_rows(Conn& conn, std::string_view table) {
    auto stmt = conn.prepare("SELECT count(*) FROM " + std::string(table));
    EXPECT_TRUE(stmt.ok()) << stmt.status().to_string();
    if (!stmt.ok()) return -1;
    auto row = stmt->step();
    EXPECT_TRUE(row.ok() && *row);
    return row.ok() && *row ? stmt->column_int64(0) : -1;
}

class TransactionTest : public ::testing::Test {
  protected:
    void SetUp() override {
        db_ = open_ok((dir_ / "tx.db").string());
        ASSERT_NE(db_, nullptr);
        ASSERT_TRUE(db_->lock().exec("CREATE TABLE t(x INTEGER UNIQUE)").ok());
    }

    TempDir dir_;
    std::unique_ptr<Database> db_;
};

TEST_F(TransactionTest, RollsBackOnScopeExit) {
    auto conn = db_->lock();
    {
        auto tx = conn.transaction();
        ASSERT_TRUE(tx.ok()) << tx.status().to_string();
        ASSERT_TRUE(conn.exec("INSERT INTO t VALUES(1); INSERT INTO t VALUES(2)").ok());
        EXPECT_EQ(count_rows(conn, "t"), 2);  // visible inside the transaction
    }
    EXPECT_EQ(count_rows(conn, "t"), 0);
}

TEST_F(TransactionTest, CommitsWhenAsked) {
    {
        auto conn = db_->lock();
        auto tx = conn.transaction();
        ASSERT_TRUE(tx.ok());
        ASSERT_TRUE(conn.exec("INSERT INTO t VALUES(1); INSERT INTO t VALUES(2)").ok());
        ASSERT_TRUE(tx.commit().ok());
    }
    // Durable for another connection to the same file.
    auto other = open_ok(db_->path());
    ASSERT_NE(other, nullptr);
    auto conn = other->lock();
    EXPECT_EQ(count_rows(conn, "t"), 2);
}

TEST_F(TransactionTest, AnErrorInsideLeavesTheTransactionForTheCallerToAbandon) {
    auto conn = db_->lock();
    {
        auto tx = conn.transaction();
        ASSERT_TRUE(conn.exec("INSERT INTO t VALUES(1)").ok());
        Status dup = conn.exec("INSERT INTO t VALUES(1)");
        ASSERT_EQ(dup.code(), StatusCode::kAlreadyExists);
        // Returning early drops tx: everything since BEGIN goes.
    }
    EXPECT_EQ(count_rows(conn, "t"), 0);
    // The connection is clean for the next transaction.
    auto tx = conn.transaction();
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(conn.exec("INSERT INTO t VALUES(5)").ok());
    ASSERT_TRUE(tx.commit().ok());
    EXPECT_EQ(count_rows(conn, "t"), 1);
}

TEST_F(TransactionTest, FailedCommitRollsBackAndReportsTheViolation) {
    auto conn = db_->lock();
    ASSERT_TRUE(conn.exec("CREATE TABLE parent(id INTEGER PRIMARY KEY);"
                          "CREATE TABLE child(pid INTEGER REFERENCES parent(id) "
                          "DEFERRABLE INITIALLY DEFERRED)")
                    .ok());
    {
        auto tx = conn.transaction();
        ASSERT_TRUE(conn.exec("INSERT INTO child VALUES(99); INSERT INTO t VALUES(1)").ok());
        Status committed = tx.commit();
        EXPECT_EQ(committed.code(), StatusCode::kFailedPrecondition) << committed.to_string();
        EXPECT_NE(committed.message().find("FOREIGN KEY"), std::string::npos);
    }
    EXPECT_EQ(count_rows(conn, "child"), 0);
    EXPECT_EQ(count_rows(conn, "t"), 0);
    auto tx = conn.transaction();  // and a new one can begin
    EXPECT_TRUE(tx.ok());
}

Transaction begin_on(Conn& conn) {
    return conn.transaction();
}

TEST_F(TransactionTest, IsMovable) {
    auto conn = db_->lock();
    {
        Transaction tx = begin_on(conn);
        Transaction moved = std::move(tx);
        ASSERT_TRUE(conn.exec("INSERT INTO t VALUES(1)").ok());
        ASSERT_TRUE(moved.commit().ok());
    }  // the moved-from tx must not roll back or assert
    EXPECT_EQ(count_rows(conn, "t"), 1);
}

TEST_F(TransactionTest, BeginThatCannotGetTheWriteLockBlocksEveryWrite) {
    auto other = open_ok(db_->path(), OpenOptions{.busy_timeout_ms = 50});
    ASSERT_NE(other, nullptr);

    auto holder = db_->lock();
    auto held = holder.transaction();
    ASSERT_TRUE(held.ok());
    ASSERT_TRUE(holder.exec("INSERT INTO t VALUES(1)").ok());

    auto conn = other->lock();
    auto insert = conn.prepare("INSERT INTO t VALUES(?)");
    ASSERT_TRUE(insert.ok());
    {
        auto tx = conn.transaction();
        ASSERT_FALSE(tx.ok());
        EXPECT_EQ(tx.status().code(), StatusCode::kUnavailable) << tx.status().to_string();
        EXPECT_NE(tx.status().message().find(db_->path()), std::string::npos);
        // The lock frees up while the failed tx still lives: a write now would
        // succeed in autocommit mode, outside any transaction. It must not.
        ASSERT_TRUE(held.commit().ok());
        EXPECT_EQ(insert->bind(1, 2).run().code(), StatusCode::kUnavailable);
        EXPECT_EQ(conn.exec("INSERT INTO t VALUES(3)").code(), StatusCode::kUnavailable);
        EXPECT_EQ(tx.commit().code(), StatusCode::kUnavailable);
    }
    EXPECT_EQ(count_rows(conn, "t"), 1);  // only the holder's row

    // Once the failed transaction is gone the connection works again.
    EXPECT_TRUE(insert->bind(1, 2).run().ok());
    EXPECT_EQ(count_rows(conn, "t"), 2);
}

TEST_F(TransactionTest, WritesWithoutATransactionWaitOutBusyThenReportUnavailable) {
    auto other = open_ok(db_->path(), OpenOptions{.busy_timeout_ms = 50});
    ASSERT_NE(other, nullptr);
    auto holder = db_->lock();
    auto held = holder.transaction();
    ASSERT_TRUE(held.ok());

    auto conn = other->lock();
    Status busy = conn.exec("INSERT INTO t VALUES(1)");
    EXPECT_EQ(busy.code(), StatusCode::kUnavailable) << busy.to_string();
    EXPECT_NE(busy.message().find("database is locked"), std::string::npos);
    EXPECT_NE(busy.message().find("INSERT INTO t VALUES(1)"), std::string::npos);
}

#ifndef NDEBUG
TEST_F(TransactionTest, NestingIsAProgrammingError) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            auto conn = db_->lock();
            auto outer = conn.transaction();
            auto inner = conn.transaction();
        },
        "nested transaction");
}
#endif

}  // namespace
}  // namespace yuzu::store
