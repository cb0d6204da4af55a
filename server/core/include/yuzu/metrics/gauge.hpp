// Gauge: a value that goes up and down (sessions open, streams active).
//
// Thread-safety: every member is safe to call from any thread; updates are
// lock-free atomics.
#pragma once

#include <atomic>

#include "yuzu/metrics/metric_type.hpp"

namespace yuzu::metrics {

class Gauge {
  public:
    static constexpr MetricType kType = MetricType::kGauge;

    Gauge() = default;
    Gauge(const Gauge&) = delete;
    Gauge& operator=(const Gauge&) = delete;

    void Increment(double value = 1.0);
    void Decrement(double value = 1.0);
    void Set(double value);
    double Value() const;

  private:
    std::atomic<double> value_{0.0};
};

}  // namespace yuzu::metrics
