#include "client/backoff.hpp"

#include <algorithm>

namespace yuzu::agent {

Backoff::Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max)
    : initial_(std::max(initial, std::chrono::milliseconds(1))),
      max_(std::max(max, initial_)),
      step_(initial_),
      rng_(std::random_device{}()) {}

std::chrono::milliseconds Backoff::next() {
    const int64_t step = step_.count();
    std::uniform_int_distribution<int64_t> jitter(step * 3 / 4, step);
    const std::chrono::milliseconds delay(jitter(rng_));
    step_ = std::min(max_, step_ * 2);
    return delay;
}

void Backoff::reset() {
    step_ = initial_;
}

}  // namespace yuzu::agent
