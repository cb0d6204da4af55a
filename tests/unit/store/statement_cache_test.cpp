// The statement cache (database.hpp, "Statement cache"): a Statement that
// dies while its thread holds the Conn goes back for the next prepare() of
// the same SQL, reset and unbound, and never outlives its Database's handle.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "yuzu/store/database.hpp"
#include "yuzu/store/statement.hpp"

namespace yuzu::store {
namespace {

class StatementCacheTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto opened = Database::open(":memory:");
        ASSERT_TRUE(opened.ok()) << opened.status().to_string();
        db_ = std::move(opened).value();
        auto conn = db_->lock();
        ASSERT_TRUE(conn.exec("CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)").ok());
        ASSERT_TRUE(conn.exec("INSERT INTO t VALUES(1, 'one'), (2, 'two'), (3, 'three')").ok());
    }

    // The value for key `k` through a freshly prepared (maybe cached) SELECT.
    std::optional<std::string> value_of(Conn& conn, int64_t k) {
        auto stmt = conn.prepare("SELECT v FROM t WHERE k = ?");
        EXPECT_TRUE(stmt.ok()) << stmt.status().to_string();
        if (!stmt.ok()) return std::nullopt;
        stmt->bind(1, k);
        auto row = stmt->step();
        EXPECT_TRUE(row.ok()) << row.status().to_string();
        if (!row.ok() || !*row) return std::nullopt;
        return stmt->column_text(0);
    }

    std::unique_ptr<Database> db_;
};

TEST_F(StatementCacheTest, AStatementDyingUnderItsConnIsKeptAndReusedWithNewBinds) {
    auto conn = db_->lock();
    const size_t before = conn.cached_statements();
    EXPECT_EQ(value_of(conn, 1), "one");
    EXPECT_EQ(conn.cached_statements(), before + 1);
    // The second prepare takes the kept statement (the count does not grow)
    // and sees only its own binds.
    EXPECT_EQ(value_of(conn, 3), "three");
    EXPECT_EQ(conn.cached_statements(), before + 1);
    EXPECT_EQ(value_of(conn, 7), std::nullopt);
    EXPECT_EQ(value_of(conn, 2), "two");
}

TEST_F(StatementCacheTest, AReusedStatementHasNoBindingsLeftFromItsLastUse) {
    auto conn = db_->lock();
    {
        auto stmt = conn.prepare("SELECT ? IS NULL");
        ASSERT_TRUE(stmt.ok());
        stmt->bind(1, int64_t{42});
        ASSERT_TRUE(stmt->step().value());
        EXPECT_EQ(stmt->column_int64(0), 0);
    }
    auto again = conn.prepare("SELECT ? IS NULL");
    ASSERT_TRUE(again.ok());
    ASSERT_TRUE(again->step().value());
    EXPECT_EQ(again->column_int64(0), 1) << "the previous bind leaked into the reused statement";
}

TEST_F(StatementCacheTest, TrailingSemicolonAndSpaceShareOneEntry) {
    auto conn = db_->lock();
    const size_t before = conn.cached_statements();
    for (const char* sql :
         {"SELECT count(*) FROM t", "SELECT count(*) FROM t;", "SELECT count(*) FROM t ;\n"}) {
        auto stmt = conn.prepare(sql);
        ASSERT_TRUE(stmt.ok()) << sql;
        ASSERT_TRUE(stmt->step().value());
        EXPECT_EQ(stmt->column_int64(0), 3);
    }
    EXPECT_EQ(conn.cached_statements(), before + 1);
}

TEST_F(StatementCacheTest, AKeptStatementIsResetSoItHoldsNoTableOpen) {
    auto conn = db_->lock();
    {
        // Stepped once and abandoned mid-result: unreset, it would keep the
        // table busy and DROP TABLE would fail with "table is locked".
        auto stmt = conn.prepare("SELECT v FROM t ORDER BY k");
        ASSERT_TRUE(stmt.ok());
        ASSERT_TRUE(stmt->step().value());
    }
    Status dropped = conn.exec("DROP TABLE t");
    EXPECT_TRUE(dropped.ok()) << dropped.to_string();
}

TEST_F(StatementCacheTest, TheSameSqlTwiceInOneScopeGivesTwoIndependentStatements) {
    auto conn = db_->lock();
    auto a = conn.prepare("SELECT v FROM t WHERE k = ?");
    auto b = conn.prepare("SELECT v FROM t WHERE k = ?");
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(b.ok());
    a->bind(1, int64_t{1});
    b->bind(1, int64_t{2});
    ASSERT_TRUE(a->step().value());
    ASSERT_TRUE(b->step().value());
    EXPECT_EQ(a->column_text(0), "one");
    EXPECT_EQ(b->column_text(0), "two");
}

TEST_F(StatementCacheTest, ACachedStatementFollowsASchemaChange) {
    auto conn = db_->lock();
    EXPECT_EQ(value_of(conn, 1), "one");
    ASSERT_TRUE(conn.exec("DROP TABLE t").ok());
    ASSERT_TRUE(conn.exec("CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT, extra INTEGER)").ok());
    ASSERT_TRUE(conn.exec("INSERT INTO t(k, v) VALUES(1, 'uno')").ok());
    EXPECT_EQ(value_of(conn, 1), "uno");
}

TEST_F(StatementCacheTest, AStatementKeptAcrossLockScopesIsFinalizedNotCached) {
    std::optional<Statement> kept;
    size_t before = 0;
    {
        auto conn = db_->lock();
        before = conn.cached_statements();
        auto stmt = conn.prepare("SELECT count(*) FROM t");
        ASSERT_TRUE(stmt.ok());
        kept.emplace(std::move(stmt).value());
    }
    // Destroyed while no Conn is held: it must not touch the cache.
    kept.reset();
    auto conn = db_->lock();
    EXPECT_EQ(conn.cached_statements(), before);
}

TEST_F(StatementCacheTest, AStatementMayOutliveItsDatabase) {
    std::optional<Statement> kept;
    {
        auto conn = db_->lock();
        auto stmt = conn.prepare("SELECT v FROM t WHERE k = 1");
        ASSERT_TRUE(stmt.ok());
        kept.emplace(std::move(stmt).value());
    }
    db_.reset();
    // A new Database may sit at the old one's address; the statement must
    // be finalized against its own (deferred-close) handle, not adopted.
    auto reopened = Database::open(":memory:");
    ASSERT_TRUE(reopened.ok());
    {
        auto conn = reopened.value()->lock();
        const size_t before = conn.cached_statements();
        kept.reset();
        EXPECT_EQ(conn.cached_statements(), before);
    }
}

TEST_F(StatementCacheTest, TheCacheIsBounded) {
    auto conn = db_->lock();
    for (int i = 0; i < 200; ++i) {
        auto stmt = conn.prepare("SELECT " + std::to_string(i));
        ASSERT_TRUE(stmt.ok());
        ASSERT_TRUE(stmt->step().value());
        EXPECT_EQ(stmt->column_int64(0), i);
    }
    EXPECT_LE(conn.cached_statements(), 64u);
    EXPECT_GE(conn.cached_statements(), 32u);
}

TEST_F(StatementCacheTest, StatementsFromAnotherThreadNeverShareOneCompiledCopy) {
    // Each thread prepares, steps and drops the same SQL many times; with the
    // cache guarded by the Conn, every read sees its own bind.
    auto worker = [this](int64_t k, const std::string& want, int* mismatches) {
        for (int i = 0; i < 500; ++i) {
            auto conn = db_->lock();
            if (value_of(conn, k) != want) ++*mismatches;
        }
    };
    int m1 = 0, m2 = 0;
    std::thread a(worker, 1, "one", &m1);
    std::thread b(worker, 2, "two", &m2);
    a.join();
    b.join();
    EXPECT_EQ(m1, 0);
    EXPECT_EQ(m2, 0);
}

}  // namespace
}  // namespace yuzu::store
