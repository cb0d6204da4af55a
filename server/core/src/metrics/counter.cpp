#include "yuzu/metrics/counter.hpp"

namespace yuzu::metrics {

void Counter::Increment(double value) {
    // `!(value >= 0)` also rejects NaN, which would poison the counter forever.
    if (!(value >= 0.0)) return;
    value_.fetch_add(value, std::memory_order_relaxed);
}

double Counter::Value() const {
    return value_.load(std::memory_order_relaxed);
}

}  // namespace yuzu::metrics
