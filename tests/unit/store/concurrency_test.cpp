// Many threads sharing one Database, and two Databases sharing one file.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::store {
namespace {

using yuzu::testing::TempDir;

int64_t count_rows(Database& db) {
    auto conn = db.lock();
    auto stmt = conn.prepare("SELECT count(*), count(DISTINCT thread || '/' || n) FROM rows");
    EXPECT_TRUE(stmt.ok());
    if (!stmt.ok()) return -1;
    auto row = stmt->step();
    EXPECT_TRUE(row.ok() && *row);
    if (!row.ok() || !*row) return -1;
    EXPECT_EQ(stmt->column_int64(0), stmt->column_int64(1)) << "duplicate rows";
    return stmt->column_int64(0);
}

TEST(Concurrency, EightThreadsInsertingThroughLockEndWith1600Rows) {
    TempDir dir;
    auto opened = Database::open((dir / "c.db").string());
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    Database& db = **opened;
    ASSERT_TRUE(
        db.lock().exec("CREATE TABLE rows(thread INTEGER, n INTEGER, rowid_seen INTEGER)").ok());

    constexpr int kThreads = 8;
    constexpr int kRowsPerThread = 200;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&db, &failures, t] {
            for (int n = 0; n < kRowsPerThread; ++n) {
                auto conn = db.lock();
                auto insert = conn.prepare("INSERT INTO rows(thread, n) VALUES(?, ?)");
                if (!insert.ok() || !insert->bind(1, t).bind(2, n).run().ok()) {
                    failures.fetch_add(1);
                    continue;
                }
                // Under the lock nobody else can insert between the two calls.
                const int64_t rowid = conn.last_insert_rowid();
                auto mark = conn.prepare("UPDATE rows SET rowid_seen = ? WHERE rowid = ?");
                if (!mark.ok() || !mark->bind(1, rowid).bind(2, rowid).run().ok() ||
                    conn.changes() != 1) {
                    failures.fetch_add(1);
                }
            }
        });
    }
    for (auto& th : threads) th.join();

    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(count_rows(db), kThreads * kRowsPerThread);
    auto conn = db.lock();
    auto unmarked = conn.prepare("SELECT count(*) FROM rows WHERE rowid_seen IS NOT rowid");
    ASSERT_TRUE(unmarked.ok());
    auto row = unmarked->step();
    ASSERT_TRUE(row.ok() && *row);
    EXPECT_EQ(unmarked->column_int64(0), 0);
}

TEST(Concurrency, TwoDatabasesOnOneFileSerializeTransactions) {
    TempDir dir;
    const std::string path = (dir / "shared.db").string();
    auto first = Database::open(path);
    auto second = Database::open(path);
    ASSERT_TRUE(first.ok() && second.ok());
    ASSERT_TRUE((*first)->lock().exec("CREATE TABLE rows(thread INTEGER, n INTEGER)").ok());

    constexpr int kThreadsPerDb = 4;
    constexpr int kTxPerThread = 50;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2 * kThreadsPerDb; ++t) {
        Database& db = t % 2 == 0 ? **first : **second;
        threads.emplace_back([&db, &failures, t] {
            for (int n = 0; n < kTxPerThread; ++n) {
                auto conn = db.lock();
                auto tx = conn.transaction();
                auto insert = conn.prepare("INSERT INTO rows(thread, n) VALUES(?, ?)");
                if (!tx.ok() || !insert.ok() || !insert->bind(1, t).bind(2, n).run().ok() ||
                    !tx.commit().ok()) {
                    failures.fetch_add(1);
                }
            }
        });
    }
    for (auto& th : threads) th.join();

    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(count_rows(**first), 2 * kThreadsPerDb * kTxPerThread);
    EXPECT_EQ(count_rows(**second), 2 * kThreadsPerDb * kTxPerThread);
}

}  // namespace
}  // namespace yuzu::store
