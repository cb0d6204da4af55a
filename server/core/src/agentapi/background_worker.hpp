// BackgroundWorker: one thread, at a lower CPU priority, for agent-plane work
// that is heavy and can wait (full inventory reports: a quarter of a
// megabyte of JSON to parse and hundreds of rows to rewrite each). While a
// fleet reports, polls, results, heartbeats and the management API get the
// CPU first.
//
// Thread-safety: submit() and stop() may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace yuzu::agentapi {

class BackgroundWorker {
  public:
    // `niceness` is added to the thread's nice value (Linux: per thread).
    BackgroundWorker(std::string name, size_t capacity, int niceness);
    ~BackgroundWorker();
    BackgroundWorker(const BackgroundWorker&) = delete;
    BackgroundWorker& operator=(const BackgroundWorker&) = delete;

    // False when `capacity` jobs wait already or after stop(): the caller
    // answers the request itself. A job must not throw out (it is guarded,
    // logged and counted if it does) and owns what it captured.
    bool submit(std::function<void()> job);
    // Runs what is waiting, then joins the thread; idempotent.
    void stop();

  private:
    void run() noexcept;

    const std::string name_;
    const size_t capacity_;
    const int niceness_;
    std::mutex mu_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> jobs_;  // guarded by mu_
    bool stopping_ = false;                   // guarded by mu_
    std::thread thread_;
};

}  // namespace yuzu::agentapi
