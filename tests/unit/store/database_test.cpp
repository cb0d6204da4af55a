#include "yuzu/store/database.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.hpp"

namespace yuzu::store {
namespace {

using yuzu::testing::TempDir;

std::unique_ptr<Database> open_ok(const std::string& path, const OpenOptions& options = {}) {
    auto db = Database::open(path, options);
    EXPECT_TRUE(db.ok()) << db.status().to_string();
    return db.ok() ? std::move(db).value() : nullptr;
}

std::string query_text(Conn& conn, std::string_view sql) {
    auto stmt = conn.prepare(sql);
    EXPECT_TRUE(stmt.ok()) << stmt.status().to_string();
    if (!stmt.ok()) return "<prepare failed>";
    auto row = stmt->step();
    EXPECT_TRUE(row.ok() && *row) << sql;
    return row.ok() && *row ? stmt->column_text(0) : "<no row>";
}

TEST(DatabaseOpen, CreatesTheFileAndSetsWal) {
    TempDir dir;
    const std::string path = (dir / "auth.db").string();
    ASSERT_FALSE(std::filesystem::exists(path));
    auto db = open_ok(path);
    ASSERT_NE(db, nullptr);
    EXPECT_TRUE(std::filesystem::exists(path));
    EXPECT_EQ(db->path(), path);
    auto conn = db->lock();
    EXPECT_EQ(query_text(conn, "PRAGMA journal_mode"), "wal");
}

BusyCounts busy_counts_of(const std::string& name) {
    for (const BusyCounts& c : busy_counts()) {
        if (c.db == name) return c;
    }
    return BusyCounts{name, 0, 0};
}

TEST(DatabaseOpen, ALockedDatabaseIsRetriedUntilTheBusyTimeoutAndBothAreCounted) {
    TempDir dir;
    const std::string path = (dir / "busy-counted.db").string();
    auto holder = open_ok(path);
    auto waiter = open_ok(path, OpenOptions{.busy_timeout_ms = 60});
    ASSERT_NE(holder, nullptr);
    ASSERT_NE(waiter, nullptr);
    const BusyCounts before = busy_counts_of("busy-counted.db");

    auto held = holder->lock();
    ASSERT_TRUE(held.exec("BEGIN IMMEDIATE").ok());
    auto conn = waiter->lock();
    const Status refused = conn.exec("BEGIN IMMEDIATE");
    EXPECT_FALSE(refused.ok());
    ASSERT_TRUE(held.exec("COMMIT").ok());

    const BusyCounts after = busy_counts_of("busy-counted.db");
    EXPECT_GT(after.retries, before.retries);
    EXPECT_EQ(after.timeouts, before.timeouts + 1);
    // Once the lock is free the same statement goes through at once.
    EXPECT_TRUE(conn.exec("BEGIN IMMEDIATE; COMMIT").ok());
    EXPECT_EQ(busy_counts_of("busy-counted.db").timeouts, after.timeouts);
}

TEST(DatabaseOpen, SetsForeignKeysAndSynchronous) {
    TempDir dir;
    auto db = open_ok((dir / "a.db").string(), OpenOptions{.busy_timeout_ms = 1234});
    ASSERT_NE(db, nullptr);
    auto conn = db->lock();
    EXPECT_EQ(query_text(conn, "PRAGMA foreign_keys"), "1");
    EXPECT_EQ(query_text(conn, "PRAGMA synchronous"), "1");  // NORMAL
}

TEST(DatabaseOpen, ForeignKeysAreEnforced) {
    TempDir dir;
    auto db = open_ok((dir / "fk.db").string());
    ASSERT_NE(db, nullptr);
    auto conn = db->lock();
    ASSERT_TRUE(conn.exec("CREATE TABLE parent(id INTEGER PRIMARY KEY);"
                          "CREATE TABLE child(parent_id INTEGER NOT NULL REFERENCES parent(id));")
                    .ok());
    Status orphan = conn.exec("INSERT INTO child(parent_id) VALUES(42)");
    EXPECT_EQ(orphan.code(), StatusCode::kFailedPrecondition) << orphan.to_string();
    EXPECT_NE(orphan.message().find("FOREIGN KEY constraint failed"), std::string::npos);

    ASSERT_TRUE(conn.exec("INSERT INTO parent(id) VALUES(42);"
                          "INSERT INTO child(parent_id) VALUES(42)")
                    .ok());
    Status in_use = conn.exec("DELETE FROM parent WHERE id = 42");
    EXPECT_EQ(in_use.code(), StatusCode::kFailedPrecondition) << in_use.to_string();
}

TEST(DatabaseOpen, MissingDirectoryFailsWithThePath) {
    TempDir dir;
    const std::string path = (dir / "no-such-dir" / "audit.db").string();
    auto db = Database::open(path);
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(db.status().message().find(path), std::string::npos) << db.status().message();
    EXPECT_NE(db.status().message().find("does not exist"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(dir / "no-such-dir"));
}

TEST(DatabaseOpen, DirectoryThatIsAFileFailsWithThePath) {
    TempDir dir;
    std::ofstream(dir / "plain-file") << "x";
    const std::string path = (dir / "plain-file" / "audit.db").string();
    auto db = Database::open(path);
    ASSERT_FALSE(db.ok());
    EXPECT_NE(db.status().message().find(path), std::string::npos) << db.status().message();
    EXPECT_NE(db.status().message().find("not a directory"), std::string::npos);
}

TEST(DatabaseOpen, UnwritableDirectoryFailsWithThePath) {
    if (::geteuid() == 0) GTEST_SKIP() << "root can write anywhere; permission checks are moot";
    TempDir dir;
    const auto locked = dir / "locked";
    std::filesystem::create_directory(locked);
    ::chmod(locked.c_str(), 0500);
    const std::string path = (locked / "audit.db").string();
    auto db = Database::open(path);
    ::chmod(locked.c_str(), 0700);
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(db.status().message().find(path), std::string::npos) << db.status().message();
    EXPECT_NE(db.status().message().find("not writable"), std::string::npos);
}

TEST(DatabaseOpen, EmptyPathIsRejected) {
    auto db = Database::open("");
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), StatusCode::kInvalidArgument);
}

TEST(DatabaseOpen, AFileThatIsNotADatabaseFailsAtOpen) {
    TempDir dir;
    const std::string path = (dir / "junk.db").string();
    std::ofstream(path) << std::string(4096, 'j');
    auto db = Database::open(path);
    ASSERT_FALSE(db.ok());
    EXPECT_NE(db.status().message().find("file is not a database"), std::string::npos)
        << db.status().message();
    EXPECT_NE(db.status().message().find(path), std::string::npos);
}

TEST(DatabaseOpen, ReadOnlyOfAMissingFileIsNotFound) {
    TempDir dir;
    const std::string path = (dir / "absent.db").string();
    auto db = Database::open(path, OpenOptions{.read_only = true});
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), StatusCode::kNotFound);
    EXPECT_NE(db.status().message().find(path), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(DatabaseOpen, ReadOnlySeesDataButRefusesWrites) {
    TempDir dir;
    const std::string path = (dir / "ro.db").string();
    auto writer = open_ok(path);
    ASSERT_NE(writer, nullptr);
    ASSERT_TRUE(writer->lock().exec("CREATE TABLE t(x); INSERT INTO t VALUES(7)").ok());

    auto reader = open_ok(path, OpenOptions{.read_only = true});
    ASSERT_NE(reader, nullptr);
    auto conn = reader->lock();
    EXPECT_EQ(query_text(conn, "SELECT x FROM t"), "7");
    Status write = conn.exec("INSERT INTO t VALUES(8)");
    EXPECT_FALSE(write.ok());
    EXPECT_EQ(query_text(conn, "SELECT count(*) FROM t"), "1");
}

TEST(DatabaseOpen, InMemoryDatabaseWorks) {
    auto db = open_ok(":memory:");
    ASSERT_NE(db, nullptr);
    auto conn = db->lock();
    ASSERT_TRUE(conn.exec("CREATE TABLE t(x); INSERT INTO t VALUES('hi')").ok());
    EXPECT_EQ(query_text(conn, "SELECT x FROM t"), "hi");
    EXPECT_EQ(query_text(conn, "PRAGMA foreign_keys"), "1");
}

TEST(DatabaseOpen, ReopenKeepsData) {
    TempDir dir;
    const std::string path = (dir / "keep.db").string();
    {
        auto db = open_ok(path);
        ASSERT_NE(db, nullptr);
        ASSERT_TRUE(db->lock().exec("CREATE TABLE t(x); INSERT INTO t VALUES('kept')").ok());
    }
    auto db = open_ok(path);
    ASSERT_NE(db, nullptr);
    auto conn = db->lock();
    EXPECT_EQ(query_text(conn, "SELECT x FROM t"), "kept");
}

TEST(Conn, ExecRunsAScriptAndIgnoresTrailingComments) {
    auto db = open_ok(":memory:");
    ASSERT_NE(db, nullptr);
    auto conn = db->lock();
    Status s = conn.exec(R"sql(
        CREATE TABLE t(x INTEGER);
        INSERT INTO t VALUES(1);
        INSERT INTO t VALUES(2);
        SELECT * FROM t;   -- rows are discarded
        -- a closing comment
    )sql");
    ASSERT_TRUE(s.ok()) << s.to_string();
    EXPECT_EQ(query_text(conn, "SELECT sum(x) FROM t"), "3");
    EXPECT_TRUE(conn.exec("").ok());
}

TEST(Conn, ExecNamesTheFailingStatement) {
    auto db = open_ok(":memory:");
    ASSERT_NE(db, nullptr);
    auto conn = db->lock();
    Status s =
        conn.exec("CREATE TABLE t(x); INSERT INTO missing_table VALUES(1); CREATE TABLE u(y)");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kInternal);
    EXPECT_NE(s.message().find("no such table: missing_table"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("INSERT INTO missing_table"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(":memory:"), std::string::npos) << s.message();
    // Statements before the failure ran (exec is not a transaction), later ones did not.
    EXPECT_EQ(query_text(conn, "SELECT count(*) FROM sqlite_schema WHERE name = 't'"), "1");
    EXPECT_EQ(query_text(conn, "SELECT count(*) FROM sqlite_schema WHERE name = 'u'"), "0");
}

TEST(Conn, PrepareRefusesMoreThanOneStatement) {
    auto db = open_ok(":memory:");
    ASSERT_NE(db, nullptr);
    auto conn = db->lock();
    auto two = conn.prepare("SELECT 1; SELECT 2");
    ASSERT_FALSE(two.ok());
    EXPECT_NE(two.status().message().find("use exec()"), std::string::npos);

    EXPECT_TRUE(conn.prepare("SELECT 1;  -- trailing comment\n").ok());
    EXPECT_TRUE(conn.prepare("SELECT 1;;").ok());
}

TEST(Conn, PrepareRefusesEmptySqlAndReportsSyntaxErrors) {
    auto db = open_ok(":memory:");
    ASSERT_NE(db, nullptr);
    auto conn = db->lock();
    EXPECT_EQ(conn.prepare("").status().code(), StatusCode::kInternal);
    EXPECT_EQ(conn.prepare("  -- nothing\n").status().code(), StatusCode::kInternal);

    auto bad = conn.prepare("SELEC 1");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().code(), StatusCode::kInternal);
    EXPECT_NE(bad.status().message().find("syntax error"), std::string::npos);
    EXPECT_NE(bad.status().message().find("[SQL: SELEC 1]"), std::string::npos)
        << bad.status().message();
}

TEST(Conn, LastInsertRowidAndChanges) {
    auto db = open_ok(":memory:");
    ASSERT_NE(db, nullptr);
    auto conn = db->lock();
    ASSERT_TRUE(conn.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, x)").ok());
    ASSERT_TRUE(conn.exec("INSERT INTO t(id, x) VALUES(40, 'a')").ok());
    EXPECT_EQ(conn.last_insert_rowid(), 40);
    ASSERT_TRUE(conn.exec("INSERT INTO t(x) VALUES('b')").ok());
    EXPECT_EQ(conn.last_insert_rowid(), 41);
    ASSERT_TRUE(conn.exec("UPDATE t SET x = 'z'").ok());
    EXPECT_EQ(conn.changes(), 2);
    ASSERT_TRUE(conn.exec("DELETE FROM t WHERE id = 41").ok());
    EXPECT_EQ(conn.changes(), 1);
}

TEST(Conn, MoveConstructionKeepsTheLockAndReleasesItOnce) {
    auto db = open_ok(":memory:");
    ASSERT_NE(db, nullptr);
    {
        Conn first = db->lock();
        Conn second = std::move(first);
        EXPECT_TRUE(second.exec("CREATE TABLE t(x)").ok());
        Conn third = std::move(second);
        EXPECT_TRUE(third.exec("INSERT INTO t VALUES(1)").ok());
    }
    // Released exactly once: the same thread can take it again.
    auto conn = db->lock();
    EXPECT_EQ(query_text(conn, "SELECT count(*) FROM t"), "1");
}

TEST(Conn, MoveAssignmentReleasesTheLockItHeld) {
    auto one = open_ok(":memory:");
    auto two = open_ok(":memory:");
    ASSERT_NE(one, nullptr);
    ASSERT_NE(two, nullptr);
    Conn held = one->lock();
    held = two->lock();  // gives up `one`
    EXPECT_EQ(held.path(), ":memory:");
    auto again = one->lock();  // would deadlock if `one` were still held
    EXPECT_TRUE(again.exec("SELECT 1").ok());
}

}  // namespace
}  // namespace yuzu::store
