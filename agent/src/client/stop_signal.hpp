// The agent-wide stop request, and the short-sliced waits of the runtime
// and the scheduler shards, so a SIGTERM is noticed within a fraction of a
// second. Identity threads sleep on a condition of their own
// (Identity::sleep_for): thousands of them on this one would all wake on
// every notify() and every 100 ms.
//
// Thread-safety: every member may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

namespace yuzu::agent {

class StopSignal {
  public:
    void request() {
        {
            std::lock_guard lock(mu_);
            stop_ = true;
        }
        cv_.notify_all();
    }
    bool requested() const { return stop_.load(); }
    const std::atomic<bool>& flag() const { return stop_; }

    // Wakes every waiter so it re-checks its own condition.
    void notify() {
        { std::lock_guard lock(mu_); }
        cv_.notify_all();
    }

    // Waits up to d, or until stop is requested or done() is true (checked
    // on every notify() and at least every 100 ms). Returns requested().
    bool wait_for(std::chrono::milliseconds d, const std::function<bool()>& done = {}) {
        const auto deadline = std::chrono::steady_clock::now() + d;
        std::unique_lock lock(mu_);
        while (!stop_ && !(done && done())) {
            const auto now = std::chrono::steady_clock::now();
            if (now >= deadline) break;
            const auto slice = std::min<std::chrono::steady_clock::duration>(
                deadline - now, std::chrono::milliseconds(100));
            cv_.wait_for(lock, slice);
        }
        return stop_;
    }

  private:
    std::atomic<bool> stop_{false};
    std::mutex mu_;
    std::condition_variable cv_;
};

}  // namespace yuzu::agent
