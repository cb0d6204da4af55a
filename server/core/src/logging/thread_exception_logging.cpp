#include "yuzu/logging/thread_exception_logging.hpp"

#include <spdlog/spdlog.h>

#include <string_view>

#include "yuzu/common/thread_guard.hpp"

namespace yuzu::logging {
namespace {

void log_thread_exception(std::string_view thread, std::string_view what) noexcept {
    try {
        spdlog::error("thread={} caught an exception and carries on: {}", thread, what);
    } catch (...) {
        // The count was taken; a log that cannot be written has nowhere to say so.
    }
}

}  // namespace

void install_thread_exception_logging() noexcept {
    (void)set_thread_exception_reporter(&log_thread_exception);
}

}  // namespace yuzu::logging
