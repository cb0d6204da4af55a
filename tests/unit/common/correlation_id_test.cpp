#include "yuzu/common/correlation_id.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace yuzu {
namespace {

TEST(CorrelationId, FormatIsHexMillisAndHexSequence) {
    ManualClock clock(0x18c2f4a1b2cLL);
    const std::string id = next_correlation_id(clock);
    EXPECT_TRUE(is_correlation_id(id)) << id;
    EXPECT_EQ(id.rfind("req-18c2f4a1b2c-", 0), 0u) << id;
}

TEST(CorrelationId, RejectsOtherShapes) {
    EXPECT_FALSE(is_correlation_id(""));
    EXPECT_FALSE(is_correlation_id("req-"));
    EXPECT_FALSE(is_correlation_id("req-12"));
    EXPECT_FALSE(is_correlation_id("req-12-"));
    EXPECT_FALSE(is_correlation_id("req-XY-1"));
    EXPECT_FALSE(is_correlation_id("req-12-1-2"));
    EXPECT_FALSE(is_correlation_id("abc-12-1"));
    EXPECT_TRUE(is_correlation_id("req-12-0"));
}

TEST(CorrelationId, UniqueUnderConcurrency) {
    constexpr int kThreads = 8;
    constexpr int kPerThread = 5000;
    std::vector<std::vector<std::string>> ids(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            ids[t].reserve(kPerThread);
            for (int i = 0; i < kPerThread; ++i) ids[t].push_back(next_correlation_id());
        });
    }
    for (auto& th : threads) th.join();
    std::set<std::string> all;
    for (const auto& v : ids) {
        for (const auto& id : v) {
            EXPECT_TRUE(is_correlation_id(id));
            all.insert(id);
        }
    }
    EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kPerThread));
}

}  // namespace
}  // namespace yuzu
