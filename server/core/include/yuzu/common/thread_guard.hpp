// run_guarded(): the one place a background thread's loop body catches what
// it throws. A thread body lets nothing escape (an exception leaving a
// std::thread's function calls std::terminate and ends the whole process),
// so each iteration runs through here: an exception is reported, counted and
// swallowed, and the loop decides how to carry on (or, for a one-shot
// thread, stops cleanly).
//
// The count is process-wide, per guard name; yuzu-server exposes it as
// yuzu_thread_exceptions_total{thread} (app/server_metrics.cpp). The report
// goes to a replaceable reporter: one line on stderr by default, spdlog at
// error level once yuzu::logging::install_thread_exception_logging() ran
// (both binaries call it right after configuring their log).
//
// Thread-safety: every function here may be called from any thread.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace yuzu {

// Receives one caught exception: `thread` is the guard's name, `what` the
// exception's message (a fixed text for a throw of a non-std::exception).
using ThreadExceptionReporter = void (*)(std::string_view thread, std::string_view what) noexcept;

// Installs `reporter` (nullptr restores the stderr default) and returns the
// one it replaces.
ThreadExceptionReporter set_thread_exception_reporter(ThreadExceptionReporter reporter) noexcept;

// Counts one exception under `thread` and reports it. run_guarded calls it.
void note_thread_exception(std::string_view thread, std::string_view what) noexcept;

struct ThreadExceptionCount {
    std::string thread;
    uint64_t count = 0;
};
// Every guard name that has caught at least one exception, with its count.
std::vector<ThreadExceptionCount> thread_exception_counts();
// The count for one guard name (0 when it never caught one).
uint64_t thread_exception_count(std::string_view thread) noexcept;

inline constexpr std::string_view kNonStandardException = "a non-std::exception was thrown";

// Runs fn(). True when it returned normally; false when it threw, after the
// exception was counted under `where` and reported. `where` names the thread
// and what it does ("execution.sweeper"); it is the metric's `thread` label,
// so it must come from a small fixed set (never a request's data).
template <typename F>
bool run_guarded(std::string_view where, F&& fn) noexcept {
    try {
        std::forward<F>(fn)();
        return true;
    } catch (const std::exception& e) {
        note_thread_exception(where, e.what());
    } catch (...) {
        note_thread_exception(where, kNonStandardException);
    }
    return false;
}

}  // namespace yuzu
