// Database::read() (OpenOptions::read_connections): reads on their own
// read-only connections see every committed write and do not wait behind a
// writer that holds the read-write connection.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/statement.hpp"

namespace yuzu::store {
namespace {

using namespace std::chrono_literals;
using yuzu::testing::TempDir;

std::unique_ptr<Database> open_ok(const std::string& path, const OpenOptions& options) {
    auto db = Database::open(path, options);
    EXPECT_TRUE(db.ok()) << db.status().to_string();
    return db.ok() ? std::move(db).value() : nullptr;
}

int64_t count_rows(Conn& conn) {
    auto stmt = conn.prepare("SELECT count(*) FROM t");
    EXPECT_TRUE(stmt.ok()) << stmt.status().to_string();
    if (!stmt.ok()) return -1;
    auto row = stmt->step();
    EXPECT_TRUE(row.ok() && *row);
    return row.ok() && *row ? stmt->column_int64(0) : -1;
}

class ReadConnectionsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        OpenOptions options;
        options.read_connections = 2;
        db_ = open_ok((dir_ / "r.db").string(), options);
        ASSERT_NE(db_, nullptr);
        auto conn = db_->lock();
        ASSERT_TRUE(conn.exec("CREATE TABLE t(k INTEGER PRIMARY KEY)").ok());
        ASSERT_TRUE(conn.exec("INSERT INTO t VALUES(1), (2)").ok());
    }

    TempDir dir_;
    std::unique_ptr<Database> db_;
};

TEST_F(ReadConnectionsTest, AReadSeesEveryCommittedWrite) {
    for (int i = 3; i <= 20; ++i) {
        {
            auto w = db_->lock();
            ASSERT_TRUE(w.exec("INSERT INTO t VALUES(" + std::to_string(i) + ")").ok());
        }
        auto r = db_->read();
        EXPECT_EQ(count_rows(r), i);
    }
}

TEST_F(ReadConnectionsTest, AReadDoesNotWaitForAWriterHoldingTheWriteConnection) {
    std::promise<void> writing;
    std::promise<void> release;
    std::thread writer([&] {
        auto w = db_->lock();
        auto tx = w.transaction();
        ASSERT_TRUE(tx.ok());
        ASSERT_TRUE(w.exec("INSERT INTO t VALUES(99)").ok());
        writing.set_value();
        release.get_future().wait();
        EXPECT_TRUE(tx.commit().ok());
    });
    writing.get_future().wait();
    // The writer holds the read-write Conn and an open transaction. Were
    // read() to share that connection, this would block until release.
    auto reading = std::async(std::launch::async, [&] {
        auto r = db_->read();
        return count_rows(r);
    });
    const bool done = reading.wait_for(10s) == std::future_status::ready;
    release.set_value();
    writer.join();
    ASSERT_TRUE(done) << "read() waited behind the writer";
    EXPECT_EQ(reading.get(), 2) << "a reader saw an uncommitted row";
    auto r = db_->read();
    EXPECT_EQ(count_rows(r), 3);
}

TEST_F(ReadConnectionsTest, AReadConnectionRefusesWrites) {
    auto r = db_->read();
    Status s = r.exec("INSERT INTO t VALUES(50)");
    EXPECT_FALSE(s.ok());
}

TEST_F(ReadConnectionsTest, ManyThreadsReadWhileOneWrites) {
    std::atomic<bool> stop{false};
    std::atomic<int> bad{0};
    std::vector<std::thread> readers;
    for (int n = 0; n < 4; ++n) {
        readers.emplace_back([&] {
            int64_t last = 0;
            while (!stop.load()) {
                auto r = db_->read();
                const int64_t now = count_rows(r);
                // Committed rows only ever grow.
                if (now < last || now < 2) ++bad;
                last = now;
            }
        });
    }
    for (int i = 100; i < 300; ++i) {
        auto w = db_->lock();
        ASSERT_TRUE(w.exec("INSERT INTO t VALUES(" + std::to_string(i) + ")").ok());
    }
    stop = true;
    for (auto& t : readers) t.join();
    EXPECT_EQ(bad.load(), 0);
    auto r = db_->read();
    EXPECT_EQ(count_rows(r), 202);
}

TEST_F(ReadConnectionsTest, ReadingWhileHoldingTheWriteConnNeitherDeadlocksNorSeesUncommitted) {
    auto w = db_->lock();
    auto tx = w.transaction();
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(w.exec("INSERT INTO t VALUES(7)").ok());
    {
        auto r = db_->read();
        EXPECT_EQ(count_rows(r), 2);
    }
    EXPECT_EQ(count_rows(w), 3);
    ASSERT_TRUE(tx.commit().ok());
}

TEST(ReadConnectionsMemory, AnInMemoryStoreReadsThroughItsOnlyConnection) {
    OpenOptions options;
    options.read_connections = 3;
    auto db = open_ok(":memory:", options);
    ASSERT_NE(db, nullptr);
    {
        auto w = db->lock();
        ASSERT_TRUE(w.exec("CREATE TABLE t(k INTEGER PRIMARY KEY)").ok());
        ASSERT_TRUE(w.exec("INSERT INTO t VALUES(1)").ok());
    }
    auto r = db->read();
    EXPECT_EQ(count_rows(r), 1);
}

TEST(ReadConnectionsSync, SyncEveryCommitSetsSynchronousFull) {
    TempDir dir;
    OpenOptions options;
    options.sync_every_commit = true;
    auto db = open_ok((dir / "a.db").string(), options);
    ASSERT_NE(db, nullptr);
    auto conn = db->lock();
    auto stmt = conn.prepare("PRAGMA synchronous");
    ASSERT_TRUE(stmt.ok());
    ASSERT_TRUE(stmt->step().value());
    EXPECT_EQ(stmt->column_int64(0), 2);  // FULL
}

}  // namespace
}  // namespace yuzu::store
