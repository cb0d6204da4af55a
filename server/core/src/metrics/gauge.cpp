#include "yuzu/metrics/gauge.hpp"

namespace yuzu::metrics {

void Gauge::Increment(double value) {
    value_.fetch_add(value, std::memory_order_relaxed);
}

void Gauge::Decrement(double value) {
    value_.fetch_sub(value, std::memory_order_relaxed);
}

void Gauge::Set(double value) {
    value_.store(value, std::memory_order_relaxed);
}

double Gauge::Value() const {
    return value_.load(std::memory_order_relaxed);
}

}  // namespace yuzu::metrics
