// PeriodicTask: one background thread that runs a maintenance tick every
// period until stopped (session GC, sweeps). stop() wakes the thread at
// once rather than waiting out the period, so shutdown never waits a tick.
//
// A tick reports failure as a Status, or by throwing (caught by run_guarded
// and counted as yuzu_thread_exceptions_total); either way the failure is
// passed to `on_failure` (which logs it and counts it, e.g. in
// yuzu_mcp_maintenance_tick_failures_total) and the next tick runs as usual.
//
// The logic a tick runs stays testable without the thread: tests call it
// directly with a ManualClock; this class only schedules it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "yuzu/common/status.hpp"

namespace yuzu {

class PeriodicTask {
  public:
    using Tick = std::function<Status()>;
    using OnFailure = std::function<void(const Status&)>;

    PeriodicTask(std::string name, std::chrono::milliseconds period, Tick tick,
                 OnFailure on_failure = {});
    ~PeriodicTask();
    PeriodicTask(const PeriodicTask&) = delete;
    PeriodicTask& operator=(const PeriodicTask&) = delete;

    // Starts the thread; the first tick runs one period from now. Once.
    void start();
    // Stops and joins; idempotent, safe from any thread but the task's own.
    void stop();
    // Ticks run so far (for tests and logs).
    uint64_t ticks() const;

  private:
    void run();

    const std::string name_;
    const std::chrono::milliseconds period_;
    const Tick tick_;
    const OnFailure on_failure_;
    mutable std::mutex mu_;
    std::condition_variable wake_;
    bool stopping_ = false;  // guarded by mu_
    uint64_t ticks_ = 0;     // guarded by mu_
    std::thread thread_;
};

}  // namespace yuzu
