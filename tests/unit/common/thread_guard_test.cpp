// run_guarded: a throwing body is reported, counted and swallowed, so no
// exception can end the process from a background thread.
#include "yuzu/common/thread_guard.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace yuzu {
namespace {

// What the capturing reporter saw, for the test that installed it.
struct Captured {
    std::mutex mu;
    std::vector<std::pair<std::string, std::string>> reports;
};

Captured& captured() {
    static Captured c;
    return c;
}

void capture(std::string_view thread, std::string_view what) noexcept {
    std::lock_guard<std::mutex> lock(captured().mu);
    captured().reports.emplace_back(std::string(thread), std::string(what));
}

class ThreadGuard : public ::testing::Test {
  protected:
    void SetUp() override {
        {
            std::lock_guard<std::mutex> lock(captured().mu);
            captured().reports.clear();
        }
        previous_ = set_thread_exception_reporter(&capture);
    }
    void TearDown() override { (void)set_thread_exception_reporter(previous_); }

    static std::vector<std::pair<std::string, std::string>> reports() {
        std::lock_guard<std::mutex> lock(captured().mu);
        return captured().reports;
    }

    ThreadExceptionReporter previous_ = nullptr;
};

TEST_F(ThreadGuard, ABodyThatReturnsIsNeitherCountedNorReported) {
    bool ran = false;
    EXPECT_TRUE(run_guarded("test.guard.quiet", [&ran] { ran = true; }));
    EXPECT_TRUE(ran);
    EXPECT_EQ(thread_exception_count("test.guard.quiet"), 0u);
    EXPECT_TRUE(reports().empty());
}

TEST_F(ThreadGuard, AStdExceptionIsReportedCountedAndSwallowed) {
    EXPECT_FALSE(run_guarded("test.guard.std", [] { throw std::runtime_error("disk on fire"); }));
    EXPECT_FALSE(run_guarded("test.guard.std", [] { throw std::logic_error("again"); }));
    EXPECT_EQ(thread_exception_count("test.guard.std"), 2u);
    const auto seen = reports();
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0].first, "test.guard.std");
    EXPECT_EQ(seen[0].second, "disk on fire");
    EXPECT_EQ(seen[1].second, "again");
}

TEST_F(ThreadGuard, ANonStandardThrowIsReportedCountedAndSwallowed) {
    EXPECT_FALSE(run_guarded("test.guard.int", [] { throw 42; }));
    struct NotAnException {};
    EXPECT_FALSE(run_guarded("test.guard.int", [] { throw NotAnException{}; }));
    EXPECT_EQ(thread_exception_count("test.guard.int"), 2u);
    const auto seen = reports();
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0].first, "test.guard.int");
    EXPECT_EQ(seen[0].second, kNonStandardException);
}

TEST_F(ThreadGuard, CountsAreListedPerGuardName) {
    (void)run_guarded("test.guard.listed", [] { throw std::runtime_error("x"); });
    bool found = false;
    for (const ThreadExceptionCount& c : thread_exception_counts()) {
        if (c.thread == "test.guard.listed") {
            found = true;
            EXPECT_EQ(c.count, 1u);
        }
        EXPECT_NE(c.thread, "test.guard.never");
    }
    EXPECT_TRUE(found);
    EXPECT_EQ(thread_exception_count("test.guard.never"), 0u);
}

TEST_F(ThreadGuard, ALoopCarriesOnAfterAnIterationThrows) {
    int finished = 0;
    int failed = 0;
    for (int i = 0; i < 5; ++i) {
        const bool ok = run_guarded("test.guard.loop", [i, &finished] {
            if (i % 2 == 1) throw std::runtime_error("odd iteration " + std::to_string(i));
            ++finished;
        });
        failed += ok ? 0 : 1;
    }
    EXPECT_EQ(failed, 2);
    EXPECT_EQ(finished, 3);
    EXPECT_EQ(thread_exception_count("test.guard.loop"), 2u);
}

TEST_F(ThreadGuard, AThrowingBodyOnAStdThreadDoesNotTerminateTheProcess) {
    std::thread worker([]() noexcept {
        (void)run_guarded("test.guard.thread",
                          [] { throw std::runtime_error("thrown on a worker thread"); });
        (void)run_guarded("test.guard.thread", [] { throw 7; });
    });
    worker.join();
    EXPECT_EQ(thread_exception_count("test.guard.thread"), 2u);
    const auto seen = reports();
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0].second, "thrown on a worker thread");
}

// The same in a child process, judged by how it ends: std::terminate would
// abort it (SIGABRT), a clean run exits 0.
TEST(ThreadGuardDeathTest, AThrowingThreadBodyLeavesTheProcessToExitNormally) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            std::thread worker([]() noexcept {
                for (int i = 0; i < 3; ++i) {
                    (void)run_guarded("test.guard.child",
                                      [] { throw std::runtime_error("child thread throws"); });
                }
            });
            worker.join();
            std::exit(thread_exception_count("test.guard.child") == 3 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "child thread throws");
}

TEST(ThreadGuardDefaultReporter, WritesOneLineToStderr) {
    const ThreadExceptionReporter previous = set_thread_exception_reporter(nullptr);
    ::testing::internal::CaptureStderr();
    (void)run_guarded("test.guard.stderr", [] { throw std::runtime_error("to stderr"); });
    const std::string err = ::testing::internal::GetCapturedStderr();
    (void)set_thread_exception_reporter(previous);
    EXPECT_EQ(err, "thread=test.guard.stderr caught an exception and carries on: to stderr\n");
}

}  // namespace
}  // namespace yuzu
