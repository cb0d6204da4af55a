#include "yuzu/common/thread_priority.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace yuzu {
namespace {

TEST(ThreadPriority, LoweringOneThreadLeavesTheOthers) {
    const int before = thread_nice_value();
    int inside = before;
    bool lowered = false;
    std::thread t([&] {
        lowered = lower_thread_priority(3).ok();
        inside = thread_nice_value();
    });
    t.join();
    // At the ceiling (nice 19) there is no lower priority to go to.
    if (before + 3 <= 19) {
        EXPECT_TRUE(lowered);
        EXPECT_EQ(inside, before + 3);
    }
    EXPECT_EQ(thread_nice_value(), before) << "the calling thread keeps its priority";
}

TEST(ThreadPriority, ZeroStepsChangeNothing) {
    const int before = thread_nice_value();
    std::thread t([&] { EXPECT_TRUE(lower_thread_priority(0).ok()); });
    t.join();
    EXPECT_EQ(thread_nice_value(), before);
}

}  // namespace
}  // namespace yuzu
