#include "yuzu/common/thread_guard.hpp"

#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>

namespace yuzu {
namespace {

void report_to_stderr(std::string_view thread, std::string_view what) noexcept {
    std::fprintf(stderr, "thread=%.*s caught an exception and carries on: %.*s\n",
                 static_cast<int>(thread.size()), thread.data(), static_cast<int>(what.size()),
                 what.data());
}

std::atomic<ThreadExceptionReporter> g_reporter{&report_to_stderr};

// Guard names are a small fixed set, so the table stays tiny.
struct Counts {
    std::mutex mu;
    std::map<std::string, uint64_t, std::less<>> by_thread;
};

Counts& counts() {
    static Counts* c = new Counts;  // never destroyed: threads may still count at exit
    return *c;
}

}  // namespace

ThreadExceptionReporter set_thread_exception_reporter(ThreadExceptionReporter reporter) noexcept {
    return g_reporter.exchange(reporter != nullptr ? reporter : &report_to_stderr);
}

void note_thread_exception(std::string_view thread, std::string_view what) noexcept {
    try {
        Counts& c = counts();
        std::lock_guard<std::mutex> lock(c.mu);
        auto it = c.by_thread.find(thread);
        if (it == c.by_thread.end()) it = c.by_thread.emplace(std::string(thread), 0).first;
        ++it->second;
    } catch (...) {
        // Out of memory (or a broken mutex): the report below still goes out.
    }
    g_reporter.load()(thread, what);
}

std::vector<ThreadExceptionCount> thread_exception_counts() {
    Counts& c = counts();
    std::lock_guard<std::mutex> lock(c.mu);
    std::vector<ThreadExceptionCount> out;
    out.reserve(c.by_thread.size());
    for (const auto& [thread, count] : c.by_thread) out.push_back({thread, count});
    return out;
}

uint64_t thread_exception_count(std::string_view thread) noexcept {
    try {
        Counts& c = counts();
        std::lock_guard<std::mutex> lock(c.mu);
        auto it = c.by_thread.find(thread);
        return it == c.by_thread.end() ? 0 : it->second;
    } catch (...) {
        return 0;
    }
}

}  // namespace yuzu
