// Exponential back-off for retries after server faults and connection
// errors: the protocol's 1 s doubling to 60 s, each delay jittered down to
// between 75% and 100% of its step so many agents do not retry in step.
//
// Thread-safety: none; each retry loop owns its Backoff.
#pragma once

#include <chrono>
#include <random>

namespace yuzu::agent {

class Backoff {
  public:
    Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max);

    // The delay to wait before the next attempt; the step then doubles.
    std::chrono::milliseconds next();
    // After a success: the next failure starts from the initial step again.
    void reset();

  private:
    std::chrono::milliseconds initial_;
    std::chrono::milliseconds max_;
    std::chrono::milliseconds step_;
    std::mt19937_64 rng_;
};

}  // namespace yuzu::agent
