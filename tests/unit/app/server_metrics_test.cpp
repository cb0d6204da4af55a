// The scrape-time families of server_metrics.cpp: exceptions caught by
// run_guarded show as yuzu_thread_exceptions_total{thread}.
#include "yuzu/app/server_metrics.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "yuzu/common/thread_guard.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::app {
namespace {

void quiet(std::string_view, std::string_view) noexcept {}

TEST(ServerMetrics, ThreadExceptionsAreCountedByThreadAtScrapeTime) {
    metrics::Registry registry;
    register_server_metrics(registry, nullptr, nullptr);
    const std::string before = registry.Serialize();
    EXPECT_NE(before.find("# TYPE yuzu_thread_exceptions_total counter"), std::string::npos);
    EXPECT_EQ(before.find("yuzu_thread_exceptions_total{thread=\"test.metrics.loop\"}"),
              std::string::npos);

    const ThreadExceptionReporter previous = set_thread_exception_reporter(&quiet);
    for (int i = 0; i < 2; ++i) {
        (void)run_guarded("test.metrics.loop", [] { throw std::runtime_error("x"); });
    }
    (void)set_thread_exception_reporter(previous);
    EXPECT_NE(
        registry.Serialize().find("yuzu_thread_exceptions_total{thread=\"test.metrics.loop\"} 2"),
        std::string::npos)
        << registry.Serialize();
}

}  // namespace
}  // namespace yuzu::app
