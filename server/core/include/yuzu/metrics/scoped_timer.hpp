// Observing elapsed time, in seconds, into a latency Histogram.
//
// Uses std::chrono::steady_clock, not yuzu::Clock: latency needs a monotonic
// clock with sub-millisecond resolution, and yuzu::Clock is wall-clock
// milliseconds for expiries and windows.
//
// Thread-safety: a ScopedTimer belongs to one thread; the histogram it
// observes into may be shared.
#pragma once

#include <chrono>

#include "yuzu/metrics/histogram.hpp"

namespace yuzu::metrics {

void ObserveDuration(Histogram& histogram, std::chrono::steady_clock::duration elapsed);

// Observes the time from construction to Stop() or destruction, once.
class ScopedTimer {
  public:
    explicit ScopedTimer(Histogram& histogram);
    ~ScopedTimer();
    ScopedTimer(const ScopedTimer&) = delete;
    ScopedTimer& operator=(const ScopedTimer&) = delete;

    // Observes now and returns the seconds observed; later calls (and the
    // destructor) observe nothing and return 0.
    double Stop();

  private:
    Histogram* histogram_;  // null once stopped
    std::chrono::steady_clock::time_point start_;
};

}  // namespace yuzu::metrics
