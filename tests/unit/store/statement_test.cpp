#include "yuzu/store/statement.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "store/sqlite_error.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::store {
namespace {

class StatementTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto opened = Database::open(":memory:");
        ASSERT_TRUE(opened.ok()) << opened.status().to_string();
        db_ = std::move(opened).value();
        ASSERT_TRUE(db_->lock()
                        .exec("CREATE TABLE v(id INTEGER PRIMARY KEY, i INTEGER, d REAL, "
                              "t TEXT, b BLOB)")
                        .ok());
    }

    std::unique_ptr<Database> db_;
};

TEST_F(StatementTest, PositionalBindsRoundTripEveryType) {
    const std::string utf8 = "Grüße, 世界 🍋";
    const std::string text_with_nul("a\0b", 3);
    const std::vector<uint8_t> blob = {0x00, 0xff, 0x00, 0x01, 0x80, 0x00};
    struct Row {
        int64_t i;
        double d;
        std::string t;
        std::vector<uint8_t> b;
    };
    const std::vector<Row> rows = {
        {std::numeric_limits<int64_t>::min(), -1.5, utf8, blob},
        {std::numeric_limits<int64_t>::max(), 1e300, text_with_nul, {0x00}},
        {0, 0.1, "", {}},
    };

    auto conn = db_->lock();
    auto insert = conn.prepare("INSERT INTO v(id, i, d, t, b) VALUES(?, ?, ?, ?, ?)");
    ASSERT_TRUE(insert.ok()) << insert.status().to_string();
    for (size_t n = 0; n < rows.size(); ++n) {
        const Row& r = rows[n];
        Status s = insert->bind(1, static_cast<int64_t>(n))
                       .bind(2, r.i)
                       .bind(3, r.d)
                       .bind(4, std::string_view(r.t))
                       .bind_blob(5, r.b)
                       .run();
        ASSERT_TRUE(s.ok()) << s.to_string();
    }

    auto select = conn.prepare("SELECT i, d, t, b FROM v ORDER BY id");
    ASSERT_TRUE(select.ok());
    EXPECT_EQ(select->column_count(), 4);
    for (const Row& r : rows) {
        auto row = select->step();
        ASSERT_TRUE(row.ok()) << row.status().to_string();
        ASSERT_TRUE(*row);
        EXPECT_EQ(select->column_int64(0), r.i);
        EXPECT_DOUBLE_EQ(select->column_double(1), r.d);
        EXPECT_EQ(select->column_text(2), r.t);
        EXPECT_EQ(select->column_blob(3), r.b);
        // Empty text and empty blobs are values, not NULL.
        EXPECT_FALSE(select->column_is_null(2));
        EXPECT_FALSE(select->column_is_null(3));
    }
    auto done = select->step();
    ASSERT_TRUE(done.ok());
    EXPECT_FALSE(*done);
}

TEST_F(StatementTest, BorrowedTextIsStoredAsBoundAndNotKeptAfterTheStatement) {
    const std::string text_with_nul("x\0y", 3);
    auto conn = db_->lock();
    {
        auto insert = conn.prepare("INSERT INTO v(id, t) VALUES(?, ?)");
        ASSERT_TRUE(insert.ok()) << insert.status().to_string();
        std::string changing = "first value";
        ASSERT_TRUE(insert->bind(1, int64_t{1}).bind_borrowed(2, changing).run().ok());
        // The row holds its own copy: changing the bytes after the insert
        // does not reach it.
        changing.assign("second");
        ASSERT_TRUE(insert->bind(1, int64_t{2}).bind_borrowed(2, changing).run().ok());
        ASSERT_TRUE(insert->bind(1, int64_t{3}).bind_borrowed(2, text_with_nul).run().ok());
        ASSERT_TRUE(insert->bind(1, int64_t{4}).bind_borrowed(2, std::string_view()).run().ok());
    }
    // The same SQL again comes from the statement cache with its bindings
    // cleared, not pointing into the strings above.
    const size_t cached = conn.cached_statements();
    {
        auto insert = conn.prepare("INSERT INTO v(id, t) VALUES(?, ?)");
        EXPECT_EQ(conn.cached_statements(), cached - 1) << "not taken from the cache";
        ASSERT_TRUE(insert.ok());
        ASSERT_TRUE(insert->bind(1, int64_t{5}).run().ok());
    }
    auto select = conn.prepare("SELECT t, t IS NULL FROM v ORDER BY id");
    ASSERT_TRUE(select.ok());
    const std::vector<std::pair<std::string, bool>> want = {
        {"first value", false}, {"second", false}, {text_with_nul, false}, {"", false}, {"", true}};
    for (const auto& [text, is_null] : want) {
        auto row = select->step();
        ASSERT_TRUE(row.ok() && *row);
        EXPECT_EQ(select->column_text(0), text);
        EXPECT_EQ(select->column_int64(1) != 0, is_null) << text;
    }
}

TEST_F(StatementTest, NullRoundTripsAndReadsAsEmpty) {
    auto conn = db_->lock();
    auto insert = conn.prepare("INSERT INTO v(id, i, d, t, b) VALUES(1, ?, ?, ?, ?)");
    ASSERT_TRUE(insert.ok());
    ASSERT_TRUE(insert->bind_null(1).bind_null(2).bind_null(3).bind_null(4).run().ok());

    auto select = conn.prepare("SELECT i, d, t, b FROM v");
    ASSERT_TRUE(select.ok());
    auto row = select->step();
    ASSERT_TRUE(row.ok() && *row);
    for (int c = 0; c < 4; ++c) EXPECT_TRUE(select->column_is_null(c)) << c;
    EXPECT_EQ(select->column_int64(0), 0);
    EXPECT_EQ(select->column_text(2), "");
    EXPECT_TRUE(select->column_blob(3).empty());
}

TEST_F(StatementTest, NamedBindsRoundTripEveryType) {
    const std::vector<uint8_t> blob = {'x', 0x00, 'y'};
    auto conn = db_->lock();
    auto insert = conn.prepare("INSERT INTO v(id, i, d, t, b) VALUES(:id, :i, :d, :t, :b)");
    ASSERT_TRUE(insert.ok());
    ASSERT_TRUE(insert->bind(":id", 7)
                    .bind(":i", int64_t{-9})
                    .bind(":d", 2.25)
                    .bind(":t", "naïve")
                    .bind_blob(":b", blob)
                    .run()
                    .ok());
    ASSERT_TRUE(insert->bind(":id", 8).bind_null(":t").run().ok());

    auto select = conn.prepare("SELECT i, d, t, b FROM v WHERE id = :id");
    ASSERT_TRUE(select.ok());
    auto row = select->bind(":id", 7).step();
    ASSERT_TRUE(row.ok() && *row);
    EXPECT_EQ(select->column_int64(0), -9);
    EXPECT_DOUBLE_EQ(select->column_double(1), 2.25);
    EXPECT_EQ(select->column_text(2), "naïve");
    EXPECT_EQ(select->column_blob(3), blob);

    select->reset();
    row = select->bind(":id", 8).step();
    ASSERT_TRUE(row.ok() && *row);
    EXPECT_TRUE(select->column_is_null(2));
    EXPECT_EQ(select->column_int64(0), -9);  // bindings persist across run()
}

TEST_F(StatementTest, UnknownNameOrIndexIsReportedByStep) {
    auto conn = db_->lock();
    auto stmt = conn.prepare("SELECT :known");
    ASSERT_TRUE(stmt.ok());
    auto row = stmt->bind(":unknown", 1).bind(":known", 2).step();
    ASSERT_FALSE(row.ok());
    EXPECT_EQ(row.status().code(), StatusCode::kInternal);
    EXPECT_NE(row.status().message().find(":unknown"), std::string::npos);
    EXPECT_NE(row.status().message().find("SELECT :known"), std::string::npos);
    // The error sticks until bindings are cleared.
    EXPECT_FALSE(stmt->step().ok());
    stmt->clear_bindings();
    row = stmt->bind(":known", 3).step();
    ASSERT_TRUE(row.ok() && *row) << row.status().to_string();
    EXPECT_EQ(stmt->column_int64(0), 3);

    auto positional = conn.prepare("SELECT ?");
    ASSERT_TRUE(positional.ok());
    auto out_of_range = positional->bind(2, 1).step();
    ASSERT_FALSE(out_of_range.ok());
    EXPECT_NE(out_of_range.status().message().find(
                  "parameter 2 on :memory:: no such parameter; the SQL has 1"),
              std::string::npos)
        << out_of_range.status().message();
}

TEST_F(StatementTest, UniqueViolationIsAlreadyExistsWithContext) {
    auto conn = db_->lock();
    ASSERT_TRUE(conn.exec("CREATE TABLE users(name TEXT NOT NULL UNIQUE, age INTEGER "
                          "CHECK(age >= 0))")
                    .ok());
    auto insert = conn.prepare("INSERT INTO users(name, age) VALUES(?, ?)");
    ASSERT_TRUE(insert.ok());
    ASSERT_TRUE(insert->bind(1, "alice").bind(2, 30).run().ok());

    Status dup = insert->bind(1, "alice").bind(2, 31).run();
    EXPECT_EQ(dup.code(), StatusCode::kAlreadyExists) << dup.to_string();
    EXPECT_NE(dup.message().find("UNIQUE constraint failed: users.name"), std::string::npos);
    EXPECT_NE(dup.message().find("INSERT INTO users(name, age)"), std::string::npos);
    EXPECT_NE(dup.message().find(":memory:"), std::string::npos);

    Status not_null = insert->bind_null(1).bind(2, 1).run();
    EXPECT_EQ(not_null.code(), StatusCode::kFailedPrecondition) << not_null.to_string();
    Status check = insert->bind(1, "bob").bind(2, -1).run();
    EXPECT_EQ(check.code(), StatusCode::kFailedPrecondition) << check.to_string();

    // After errors the statement is usable again.
    EXPECT_TRUE(insert->bind(1, "bob").bind(2, 5).run().ok());
}

TEST_F(StatementTest, PrimaryKeyViolationIsAlreadyExists) {
    auto conn = db_->lock();
    ASSERT_TRUE(conn.exec("INSERT INTO v(id) VALUES(1)").ok());
    Status rowid = conn.exec("INSERT INTO v(id) VALUES(1)");
    EXPECT_EQ(rowid.code(), StatusCode::kAlreadyExists) << rowid.to_string();

    ASSERT_TRUE(conn.exec("CREATE TABLE k(name TEXT PRIMARY KEY)").ok());
    ASSERT_TRUE(conn.exec("INSERT INTO k VALUES('a')").ok());
    Status text_key = conn.exec("INSERT INTO k VALUES('a')");
    EXPECT_EQ(text_key.code(), StatusCode::kAlreadyExists) << text_key.to_string();
}

TEST_F(StatementTest, RuntimeErrorsAreInternal) {
    auto conn = db_->lock();
    auto stmt = conn.prepare("SELECT abs(?)");
    ASSERT_TRUE(stmt.ok());
    auto overflow = stmt->bind(1, std::numeric_limits<int64_t>::min()).step();
    ASSERT_FALSE(overflow.ok());
    EXPECT_EQ(overflow.status().code(), StatusCode::kInternal);
    EXPECT_NE(overflow.status().message().find("integer overflow"), std::string::npos);
}

TEST_F(StatementTest, ResetRewindsAndRunAllowsReuse) {
    auto conn = db_->lock();
    ASSERT_TRUE(conn.exec("INSERT INTO v(id) VALUES(1), (2), (3)").ok());
    auto select = conn.prepare("SELECT id FROM v ORDER BY id");
    ASSERT_TRUE(select.ok());
    auto row = select->step();
    ASSERT_TRUE(row.ok() && *row);
    row = select->step();
    ASSERT_TRUE(row.ok() && *row);
    EXPECT_EQ(select->column_int64(0), 2);
    select->reset();
    row = select->step();
    ASSERT_TRUE(row.ok() && *row);
    EXPECT_EQ(select->column_int64(0), 1);

    auto insert = conn.prepare("INSERT INTO v(id) VALUES(?)");
    ASSERT_TRUE(insert.ok());
    for (int id = 10; id < 15; ++id) ASSERT_TRUE(insert->bind(1, id).run().ok());
    select->reset();
    int count = 0;
    for (;;) {
        auto r = select->step();
        ASSERT_TRUE(r.ok());
        if (!*r) break;
        ++count;
    }
    EXPECT_EQ(count, 8);
}

TEST_F(StatementTest, StatementsAreMovableAndSurviveManyLockScopes) {
    Statement kept = [&] {
        auto conn = db_->lock();
        auto stmt = conn.prepare("INSERT INTO v(id) VALUES(?)");
        EXPECT_TRUE(stmt.ok());
        return std::move(stmt).value();
    }();
    for (int id = 1; id <= 3; ++id) {
        auto conn = db_->lock();
        ASSERT_TRUE(kept.bind(1, id).run().ok());
    }
    Statement moved = std::move(kept);
    {
        auto conn = db_->lock();
        ASSERT_TRUE(moved.bind(1, 4).run().ok());
        auto count = conn.prepare("SELECT count(*) FROM v");
        ASSERT_TRUE(count.ok());
        auto row = count->step();
        ASSERT_TRUE(row.ok() && *row);
        EXPECT_EQ(count->column_int64(0), 4);
    }
}

TEST_F(StatementTest, StatementMayOutliveItsDatabase) {
    std::optional<Statement> survivor;
    {
        auto conn = db_->lock();
        auto stmt = conn.prepare("SELECT 1");
        ASSERT_TRUE(stmt.ok());
        survivor.emplace(std::move(stmt).value());
    }
    db_.reset();       // close_v2 defers the close...
    survivor.reset();  // ...until the last statement is finalized (ASan checks this)
}

TEST(SqlExcerpt, CollapsesWhitespaceAndCutsAt80Characters) {
    EXPECT_EQ(internal::sql_excerpt("  SELECT\n\t  1  \n"), "SELECT 1");
    const std::string long_sql = "SELECT " + std::string(100, 'x');
    const std::string excerpt = internal::sql_excerpt(long_sql);
    EXPECT_EQ(excerpt, long_sql.substr(0, 80) + "...");
    // 80 characters, not bytes, and never half a character.
    std::string kanji;
    for (int i = 0; i < 90; ++i) kanji += "字";
    EXPECT_EQ(internal::sql_excerpt(kanji), kanji.substr(0, 80 * 3) + "...");
    EXPECT_EQ(internal::sql_excerpt(std::string(80, 'a') + "   "), std::string(80, 'a'));
}

}  // namespace
}  // namespace yuzu::store
