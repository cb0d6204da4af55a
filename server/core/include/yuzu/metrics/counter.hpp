// Counter: a value that only goes up (requests served, frames dropped).
//
// Thread-safety: every member is safe to call from any thread; updates are
// lock-free atomics.
#pragma once

#include <atomic>

#include "yuzu/metrics/metric_type.hpp"

namespace yuzu::metrics {

class Counter {
  public:
    static constexpr MetricType kType = MetricType::kCounter;

    Counter() = default;
    Counter(const Counter&) = delete;
    Counter& operator=(const Counter&) = delete;

    // Adds `value`. Negative and NaN increments are ignored (as prometheus-cpp
    // does): a counter that went down would read as a process restart.
    void Increment(double value = 1.0);
    double Value() const;

  private:
    std::atomic<double> value_{0.0};
};

}  // namespace yuzu::metrics
