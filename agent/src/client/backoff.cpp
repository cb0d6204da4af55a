#include "client/backoff.hpp"

#include <algorithm>

namespace yuzu::agent {
namespace {

constexpr std::chrono::milliseconds kMaxStartDelay{5000};

}  // namespace

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

std::chrono::milliseconds retry_after_delay(std::chrono::seconds retry_after,
                                            std::mt19937_64& rng) {
    const int64_t ms = std::max<int64_t>(0, retry_after.count()) * 1000;
    if (ms == 0) return std::chrono::milliseconds(0);
    std::uniform_int_distribution<int64_t> jitter(ms, ms + ms / 2 - 1);
    return std::chrono::milliseconds(jitter(rng));
}

std::chrono::milliseconds max_start_delay(int identities) {
    return std::min(std::chrono::milliseconds(std::max(identities, 0) / 10), kMaxStartDelay);
}

std::chrono::milliseconds start_delay(int identities, std::mt19937_64& rng) {
    const int64_t max = max_start_delay(identities).count();
    if (max == 0) return std::chrono::milliseconds(0);
    std::uniform_int_distribution<int64_t> spread(0, max);
    return std::chrono::milliseconds(spread(rng));
}

}  // namespace yuzu::agent
