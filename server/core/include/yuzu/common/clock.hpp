// Clock: the seam through which everything time-dependent (session expiry,
// approval lifetimes, TOTP windows, heartbeats) reads the time, so tests can
// move time instead of sleeping. Implementations are safe to call from any
// thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace yuzu {

class Clock {
  public:
    virtual ~Clock() = default;
    // Wall-clock time, milliseconds since the Unix epoch.
    virtual int64_t now_ms() const = 0;
    int64_t now_s() const { return now_ms() / 1000; }
};

class SystemClock final : public Clock {
  public:
    int64_t now_ms() const override {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    }
    // A process-wide instance for code that has no injected clock.
    static const Clock& instance() {
        static const SystemClock clock;
        return clock;
    }
};

// A clock tests move by hand.
class ManualClock final : public Clock {
  public:
    explicit ManualClock(int64_t start_ms = 1'700'000'000'000) : now_(start_ms) {}
    int64_t now_ms() const override { return now_.load(); }
    void advance_ms(int64_t delta) { now_.fetch_add(delta); }
    void set_ms(int64_t t) { now_.store(t); }

  private:
    std::atomic<int64_t> now_;
};

}  // namespace yuzu
