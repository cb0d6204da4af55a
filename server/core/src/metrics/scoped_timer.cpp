#include "yuzu/metrics/scoped_timer.hpp"

namespace yuzu::metrics {

void ObserveDuration(Histogram& histogram, std::chrono::steady_clock::duration elapsed) {
    histogram.Observe(std::chrono::duration<double>(elapsed).count());
}

ScopedTimer::ScopedTimer(Histogram& histogram)
    : histogram_(&histogram), start_(std::chrono::steady_clock::now()) {}

ScopedTimer::~ScopedTimer() {
    Stop();
}

double ScopedTimer::Stop() {
    if (histogram_ == nullptr) return 0.0;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    histogram_->Observe(seconds);
    histogram_ = nullptr;
    return seconds;
}

}  // namespace yuzu::metrics
