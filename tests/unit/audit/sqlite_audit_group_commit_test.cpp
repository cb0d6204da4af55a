// Group commit in SqliteAuditLog: concurrent record() calls share one
// transaction (one fsync), every caller still returns only once its own row
// is committed, and one failing row does not fail the rows batched with it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"
#include "yuzu/audit/sqlite_audit_log.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/statement.hpp"

namespace yuzu::audit {
namespace {

using namespace std::chrono_literals;
using yuzu::testing::TempDir;

AuditEvent make_event(std::string action, std::string principal = "alice") {
    AuditEvent e;
    e.principal = std::move(principal);
    e.principal_kind = "api_token";
    e.action = std::move(action);
    return e;
}

class GroupCommitTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto log = SqliteAuditLog::open(dir_.str());
        ASSERT_TRUE(log.ok()) << log.status().to_string();
        log_ = std::move(log).value();
    }

    // Another connection to audit.db, standing in for a second writer.
    std::unique_ptr<store::Database> side() {
        auto db = store::Database::open((dir_ / "audit.db").string());
        EXPECT_TRUE(db.ok()) << db.status().to_string();
        return db.ok() ? std::move(db).value() : nullptr;
    }

    int64_t rows_on_disk(const std::string& where = "1") {
        auto db = side();
        if (db == nullptr) return -1;
        auto conn = db->lock();
        auto stmt = conn.prepare("SELECT count(*) FROM audit_events WHERE " + where);
        EXPECT_TRUE(stmt.ok()) << stmt.status().to_string();
        if (!stmt.ok()) return -1;
        auto row = stmt->step();
        return row.ok() && *row ? stmt->column_int64(0) : -1;
    }

    // Polls the log's group-commit state until `holds` is true of it. Gives
    // up well inside the 5 s a blocked writer waits for SQLite's lock, so
    // a miss fails the test rather than the row.
    template <typename Pred>
    [[nodiscard]] bool eventually(Pred holds) {
        const auto deadline = std::chrono::steady_clock::now() + 4s;
        while (!holds(log_->group_commit_stats())) {
            if (std::chrono::steady_clock::now() > deadline) return false;
            std::this_thread::sleep_for(1ms);
        }
        return true;
    }

    // Starts `record_one` on a thread that leads a batch, and returns once
    // that batch is taken: rows recorded from now on queue for the next.
    template <typename F>
    void start_leader(std::vector<std::thread>& threads, F record_one) {
        threads.emplace_back(record_one);
        ASSERT_TRUE(eventually([](const SqliteAuditLog::GroupCommitStats& s) {
            return s.committing && s.rows_waiting == 0;
        })) << "the first row never led a commit";
    }

    // Returns once `n` rows wait for the next batch.
    void await_queued(size_t n) {
        ASSERT_TRUE(eventually([n](const SqliteAuditLog::GroupCommitStats& s) {
            return s.rows_waiting == n;
        })) << "the open batch never held "
            << n << " rows; it holds " << log_->group_commit_stats().rows_waiting;
    }

    // Holds audit.db's write lock from a side connection while `queue` runs,
    // so the log's first writer waits on SQLite's busy handler and every
    // record() made meanwhile queues behind it. `queue` returns once the
    // rows it started are queued (await_queued); then the lock is released.
    template <typename F>
    void with_writer_blocked(F queue) {
        auto db = side();
        ASSERT_NE(db, nullptr);
        auto conn = db->lock();
        ASSERT_TRUE(conn.exec("BEGIN IMMEDIATE").ok());
        queue();
        ASSERT_TRUE(conn.exec("COMMIT").ok());
    }

    // Makes every insert of a row with action 'poison' fail, then records a
    // 'lead' row behind a blocked commit and queues `before` 'good' rows,
    // one 'poison' row and `after` more 'good' rows, to share one batch.
    struct PoisonOutcome {
        int good_ok = 0;
        int poison_failed = 0;  // failed, naming the trigger's reason
    };
    PoisonOutcome record_batch_with_poison(int before, int after) {
        {
            auto db = side();
            if (db == nullptr) return {};
            auto conn = db->lock();
            EXPECT_TRUE(conn.exec("CREATE TRIGGER refuse_poison BEFORE INSERT ON audit_events "
                                  "WHEN NEW.action = 'poison' BEGIN SELECT RAISE(ABORT, "
                                  "'poison'); END")
                            .ok());
        }
        std::vector<std::thread> threads;
        std::atomic<int> good_ok{0};
        std::atomic<int> poison_failed{0};
        auto good = [&](const char* action) {
            if (log_->record(make_event(action)).ok()) ++good_ok;
        };
        with_writer_blocked([&] {
            start_leader(threads, [&] { good("lead"); });
            for (int i = 0; i < before; ++i) threads.emplace_back(good, "good");
            // Behind the good rows, so that with 40 of them the bad row is in
            // the batch's last statement, after two that succeeded.
            await_queued(static_cast<size_t>(before));
            threads.emplace_back([&] {
                const Status s = log_->record(make_event("poison"));
                if (!s.ok() && s.message().find("poison") != std::string::npos) ++poison_failed;
            });
            await_queued(static_cast<size_t>(before) + 1);
            for (int i = 0; i < after; ++i) threads.emplace_back(good, "good");
            await_queued(static_cast<size_t>(before) + 1 + static_cast<size_t>(after));
        });
        for (auto& th : threads) th.join();
        return {good_ok.load(), poison_failed.load()};
    }

    TempDir dir_;
    std::unique_ptr<SqliteAuditLog> log_;
};

TEST_F(GroupCommitTest, EveryConcurrentRecordLandsOnceAndReturnsOk) {
    constexpr int kThreads = 8;
    constexpr int kPerThread = 150;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i) {
                const Status s = log_->record(
                    make_event("call." + std::to_string(i), "user" + std::to_string(t)));
                if (!s.ok()) ++failures;
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(rows_on_disk(), kThreads * kPerThread);
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(rows_on_disk("principal = 'user" + std::to_string(t) + "'"), kPerThread);
    }
    const auto stats = log_->group_commit_stats();
    EXPECT_EQ(stats.rows, static_cast<uint64_t>(kThreads * kPerThread));
    EXPECT_LE(stats.commits, stats.rows);
}

TEST_F(GroupCommitTest, CallersQueuedBehindACommitShareTheNextOne) {
    constexpr int kWaiting = 6;
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    auto record_one = [&](std::string action) {
        if (log_->record(make_event(std::move(action))).ok()) ++ok;
    };
    with_writer_blocked([&] {
        // The first caller leads a batch of one and waits for the lock...
        start_leader(threads, [&] { record_one("first"); });
        // ...and these queue behind it, to go in together.
        for (int i = 0; i < kWaiting; ++i) threads.emplace_back(record_one, "queued");
        await_queued(kWaiting);
    });
    for (auto& th : threads) th.join();
    EXPECT_EQ(ok.load(), 1 + kWaiting);
    EXPECT_EQ(rows_on_disk(), 1 + kWaiting);
    const auto stats = log_->group_commit_stats();
    EXPECT_EQ(stats.rows, static_cast<uint64_t>(1 + kWaiting));
    EXPECT_EQ(stats.commits, 2u) << "the queued rows were not committed as one group";
}

TEST_F(GroupCommitTest, OneFailingRowDoesNotFailItsBatch) {
    const PoisonOutcome got = record_batch_with_poison(4, 2);
    EXPECT_EQ(got.good_ok, 7);
    EXPECT_EQ(got.poison_failed, 1);
    EXPECT_EQ(rows_on_disk("action = 'poison'"), 0);
    EXPECT_EQ(rows_on_disk("action IN ('lead', 'good')"), 7);
}

// Here the 41-row batch goes in as 32 + 8 + 1 rows and the bad row is the
// last: two statements succeed, the third fails, the transaction rolls the
// first two back, the batch goes in row by row, and again only the bad row
// is refused (and no good row lands twice).
TEST_F(GroupCommitTest, OneFailingRowAmongManyFailsOnlyItself) {
    const PoisonOutcome got = record_batch_with_poison(40, 0);
    EXPECT_EQ(got.good_ok, 41);
    EXPECT_EQ(got.poison_failed, 1);
    EXPECT_EQ(rows_on_disk("action = 'poison'"), 0);
    EXPECT_EQ(rows_on_disk("action = 'good'"), 40);
}

// A batch goes in as multi-row INSERTs of 32, 16, ... 1 rows: the 37 rows
// queued behind the lead row take three statements (32 + 4 + 1), and every
// field of every row must land in its own row.
TEST_F(GroupCommitTest, ABatchSpanningSeveralStatementsKeepsEveryRowsFields) {
    constexpr int kQueued = 37;
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    auto record_one = [&](int n) {
        AuditEvent e = make_event("call." + std::to_string(n), "user" + std::to_string(n));
        e.target_type = "tool";
        e.target_id = "t" + std::to_string(n);
        e.detail = R"({"n":)" + std::to_string(n) + "}";
        e.source_ip = "10.0.0." + std::to_string(n);
        e.user_agent = "agent/" + std::to_string(n);
        e.result = n % 2 == 0 ? AuditResult::kSuccess : AuditResult::kDenied;
        e.correlation_id = "corr-" + std::to_string(n);
        e.timestamp_ms = 1'000'000 + n;
        if (log_->record(std::move(e)).ok()) ++ok;
    };
    with_writer_blocked([&] {
        start_leader(threads, [&] { record_one(0); });
        for (int i = 1; i <= kQueued; ++i) threads.emplace_back(record_one, i);
        await_queued(kQueued);
    });
    for (auto& th : threads) th.join();
    ASSERT_EQ(ok.load(), 1 + kQueued);
    EXPECT_EQ(log_->group_commit_stats().commits, 2u);

    auto db = side();
    ASSERT_NE(db, nullptr);
    auto conn = db->lock();
    auto stmt = conn.prepare(
        "SELECT principal, principal_kind, action, target_type, target_id, detail, source_ip, "
        "user_agent, result, correlation_id, timestamp_ms FROM audit_events "
        "WHERE action LIKE 'call.%'");
    ASSERT_TRUE(stmt.ok()) << stmt.status().to_string();
    std::set<int> seen;
    for (;;) {
        auto row = stmt->step();
        ASSERT_TRUE(row.ok()) << row.status().to_string();
        if (!*row) break;
        const int n = static_cast<int>(stmt->column_int64(10) - 1'000'000);
        const std::string s = std::to_string(n);
        EXPECT_TRUE(seen.insert(n).second) << "row " << n << " twice";
        EXPECT_EQ(stmt->column_text(0), "user" + s);
        EXPECT_EQ(stmt->column_text(1), "api_token");
        EXPECT_EQ(stmt->column_text(2), "call." + s);
        EXPECT_EQ(stmt->column_text(3), "tool");
        EXPECT_EQ(stmt->column_text(4), "t" + s);
        EXPECT_EQ(stmt->column_text(5), R"({"n":)" + s + "}");
        EXPECT_EQ(stmt->column_text(6), "10.0.0." + s);
        EXPECT_EQ(stmt->column_text(7), "agent/" + s);
        EXPECT_EQ(stmt->column_text(8), n % 2 == 0 ? "success" : "denied");
        EXPECT_EQ(stmt->column_text(9), "corr-" + s);
    }
    EXPECT_EQ(seen.size(), static_cast<size_t>(1 + kQueued));
}

TEST_F(GroupCommitTest, CallersBeyondAFullBatchWaitForTheNextOne) {
    // More callers than one batch holds queue behind a blocked first commit:
    // a full batch goes first, the rest follow in later ones, none is lost.
    constexpr int kWaiting = static_cast<int>(SqliteAuditLog::kMaxBatchRows) + 44;
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    auto record_one = [&](std::string action) {
        if (log_->record(make_event(std::move(action))).ok()) ++ok;
    };
    with_writer_blocked([&] {
        start_leader(threads, [&] { record_one("first"); });
        for (int i = 0; i < kWaiting; ++i) threads.emplace_back(record_one, "queued");
        // The open batch is full; the other 44 wait for room.
        await_queued(SqliteAuditLog::kMaxBatchRows);
    });
    for (auto& th : threads) th.join();
    EXPECT_EQ(ok.load(), 1 + kWaiting);
    EXPECT_EQ(rows_on_disk(), 1 + kWaiting);
    const auto stats = log_->group_commit_stats();
    EXPECT_EQ(stats.rows, static_cast<uint64_t>(1 + kWaiting));
    // The first alone, then at least two for the rest: no batch went over.
    EXPECT_GE(stats.commits, 3u);
    EXPECT_LE(stats.commits, 10u) << "the queued callers were not grouped";
}

}  // namespace
}  // namespace yuzu::audit
