// install_thread_exception_logging: run_guarded's reports become one spdlog
// error line each, with the thread's name as a key=value word.
#include "yuzu/logging/thread_exception_logging.hpp"

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "yuzu/common/thread_guard.hpp"

namespace yuzu::logging {
namespace {

TEST(ThreadExceptionLogging, ACaughtExceptionIsOneErrorLineNamingTheThread) {
    auto ring = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(8);
    auto logger = std::make_shared<spdlog::logger>("thread-guard-test", ring);
    const auto previous_logger = spdlog::default_logger();
    spdlog::set_default_logger(logger);
    install_thread_exception_logging();

    EXPECT_FALSE(run_guarded("test.logging.sweeper", [] { throw std::runtime_error("no disk"); }));

    (void)set_thread_exception_reporter(nullptr);
    spdlog::set_default_logger(previous_logger);
    const auto lines = ring->last_raw();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].level, spdlog::level::err);
    EXPECT_EQ(std::string(lines[0].payload.data(), lines[0].payload.size()),
              "thread=test.logging.sweeper caught an exception and carries on: no disk");
    EXPECT_EQ(thread_exception_count("test.logging.sweeper"), 1u);
}

}  // namespace
}  // namespace yuzu::logging
