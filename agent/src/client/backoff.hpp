// When to try again: exponential back-off for retries after server faults
// and connection errors (the protocol's 1 s doubling to 60 s, each delay
// jittered down to between 75% and 100% of its step), the wait a 429/503
// asks for (jittered up by as much as half), and the spread of the first
// requests after start. The jitter keeps thousands of identities, refused
// or started together, from all coming back in the same millisecond.
//
// Thread-safety: none; each retry loop owns its Backoff and random source.
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

// The wait after a 429/503 that asked for `retry_after` (Retry-After, or
// the protocol's default): uniform in [retry_after, 1.5 * retry_after),
// never shorter than the server asked for.
std::chrono::milliseconds retry_after_delay(std::chrono::seconds retry_after, std::mt19937_64& rng);

// The longest an identity waits before its first request: N/10 ms for N
// identities, at most 5 s (10,000 identities start within one second).
std::chrono::milliseconds max_start_delay(int identities);
// Uniform in [0, max_start_delay(identities)]; 0 for a single identity.
std::chrono::milliseconds start_delay(int identities, std::mt19937_64& rng);

}  // namespace yuzu::agent
