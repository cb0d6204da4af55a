#include "yuzu/common/periodic_task.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>

#include "yuzu/common/clock.hpp"

namespace yuzu {
namespace {

using std::chrono::milliseconds;

// Counts ticks and lets a test wait for the n-th without sleeping.
struct TickLog {
    std::mutex mu;
    std::condition_variable cv;
    int ticks = 0;
    int failures = 0;
    bool wait_for_ticks(int n) {
        std::unique_lock<std::mutex> lock(mu);
        return cv.wait_for(lock, std::chrono::seconds(10), [&] { return ticks >= n; });
    }
};

TEST(PeriodicTaskTest, TicksUntilStopped) {
    TickLog log;
    PeriodicTask task("test.tick", milliseconds(1), [&] {
        std::lock_guard<std::mutex> lock(log.mu);
        ++log.ticks;
        log.cv.notify_all();
        return Status::Ok();
    });
    task.start();
    ASSERT_TRUE(log.wait_for_ticks(3));
    task.stop();
    const uint64_t after_stop = task.ticks();
    EXPECT_GE(after_stop, 3u);
    task.stop();  // idempotent
    EXPECT_EQ(task.ticks(), after_stop);
}

TEST(PeriodicTaskTest, StopDoesNotWaitOutThePeriod) {
    PeriodicTask task("test.tick", std::chrono::hours(1), [] { return Status::Ok(); });
    task.start();
    const auto before = std::chrono::steady_clock::now();
    task.stop();
    EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(5));
    EXPECT_EQ(task.ticks(), 0u);
}

TEST(PeriodicTaskTest, FailuresAndThrowsReachOnFailureAndTheTaskGoesOn) {
    TickLog log;
    std::atomic<int> n{0};
    PeriodicTask task(
        "test.tick", milliseconds(1),
        [&]() -> Status {
            const int i = n.fetch_add(1);
            if (i == 0) return Status::Unavailable("store busy");
            if (i == 1) throw std::runtime_error("boom");
            std::lock_guard<std::mutex> lock(log.mu);
            ++log.ticks;
            log.cv.notify_all();
            return Status::Ok();
        },
        [&](const Status& failure) {
            std::lock_guard<std::mutex> lock(log.mu);
            EXPECT_FALSE(failure.ok());
            ++log.failures;
        });
    task.start();
    ASSERT_TRUE(log.wait_for_ticks(1));
    task.stop();
    std::lock_guard<std::mutex> lock(log.mu);
    EXPECT_EQ(log.failures, 2);
}

TEST(ManualClockTest, AdvanceMovesBothReadingsSetMovesOnlyWallTime) {
    ManualClock clock(1'000'000);
    const int64_t steady = clock.steady_ms();
    clock.advance_ms(250);
    EXPECT_EQ(clock.now_ms(), 1'000'250);
    EXPECT_EQ(clock.steady_ms(), steady + 250);
    clock.set_ms(5);
    EXPECT_EQ(clock.now_ms(), 5);
    EXPECT_EQ(clock.steady_ms(), steady + 250);
}

}  // namespace
}  // namespace yuzu
