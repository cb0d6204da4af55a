// When Conn takes its Database's mutex (database.hpp, "Lock order"): at
// once normally, so a Conn can guard a kept Statement; at first use when the
// thread already holds another Conn, so replacing a held Conn never holds two
// Databases' mutexes at once (ThreadSanitizer reported that as a lock-order
// inversion in Conn.MoveAssignmentReleasesTheLockItHeld).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <utility>

#include "yuzu/store/database.hpp"

namespace yuzu::store {
namespace {

std::unique_ptr<Database> open_memory() {
    auto db = Database::open(":memory:");
    EXPECT_TRUE(db.ok()) << db.status().to_string();
    return db.ok() ? std::move(db).value() : nullptr;
}

// Runs one statement on `db` from another thread and says whether it
// finished within `wait`; the thread is joined either way (it finishes once
// the caller lets go of `db`).
class OtherThread {
  public:
    explicit OtherThread(Database& db)
        : thread_([this, &db] {
              ok_ = db.lock().exec("SELECT 1").ok();
              done_ = true;
          }) {}
    ~OtherThread() { join(); }
    OtherThread(const OtherThread&) = delete;
    OtherThread& operator=(const OtherThread&) = delete;

    bool finished_within(std::chrono::milliseconds wait) const {
        const auto deadline = std::chrono::steady_clock::now() + wait;
        while (!done_ && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return done_;
    }
    bool join() {
        if (thread_.joinable()) thread_.join();
        return ok_;
    }

  private:
    std::atomic<bool> done_{false};
    std::atomic<bool> ok_{false};
    std::thread thread_;
};

TEST(ConnLockOrder, ALockTakenWithNothingElseHeldWaitsAtOnce) {
    auto db = open_memory();
    ASSERT_NE(db, nullptr);
    auto guard = db->lock();  // never used: it still keeps every other thread out
    OtherThread other(*db);
    EXPECT_FALSE(other.finished_within(std::chrono::milliseconds(100)));
    { [[maybe_unused]] Conn released = std::move(guard); }
    EXPECT_TRUE(other.finished_within(std::chrono::seconds(10)));
    EXPECT_TRUE(other.join());
}

TEST(ConnLockOrder, ALockTakenWhileAnotherIsHeldWaitsAtFirstUse) {
    auto one = open_memory();
    auto two = open_memory();
    ASSERT_NE(one, nullptr);
    ASSERT_NE(two, nullptr);
    auto held = one->lock();
    ASSERT_TRUE(held.exec("SELECT 1").ok());
    auto later = two->lock();  // `two` is not taken yet...
    {
        OtherThread other(*two);
        EXPECT_TRUE(other.finished_within(std::chrono::seconds(10)));
        EXPECT_TRUE(other.join());
    }
    ASSERT_TRUE(later.exec("SELECT 1").ok());  // ...only here
    OtherThread blocked(*two);
    EXPECT_FALSE(blocked.finished_within(std::chrono::milliseconds(100)));
    { [[maybe_unused]] Conn released = std::move(later); }
    EXPECT_TRUE(blocked.finished_within(std::chrono::seconds(10)));
    EXPECT_TRUE(blocked.join());
}

TEST(ConnLockOrder, ReplacingAUsedConnFreesTheOldDatabaseForOtherThreads) {
    auto one = open_memory();
    auto two = open_memory();
    ASSERT_NE(one, nullptr);
    ASSERT_NE(two, nullptr);
    Conn held = one->lock();
    ASSERT_TRUE(held.exec("CREATE TABLE t(x)").ok());
    held = two->lock();
    {
        OtherThread other(*one);
        EXPECT_TRUE(other.finished_within(std::chrono::seconds(10)));
        EXPECT_TRUE(other.join());
    }
    ASSERT_TRUE(held.exec("CREATE TABLE u(x)").ok());
    // And the other way round on the same thread, which a Conn replaced the
    // other way first would have made a cycle in the lock order.
    held = one->lock();
    EXPECT_TRUE(held.exec("INSERT INTO t VALUES(1)").ok());
    EXPECT_EQ(held.changes(), 1);
}

}  // namespace
}  // namespace yuzu::store
