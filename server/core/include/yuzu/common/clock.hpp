// Clock: the seam through which everything time-dependent (session expiry,
// approval lifetimes, TOTP windows, heartbeats) reads the time, so tests can
// move time instead of sleeping. Implementations are safe to call from any
// thread.
//
// Two readings: wall time (now_ms, for what is stored or shown) and steady
// time (steady_ms, for intervals: idle TTLs, ticks, deadlines), which never
// jumps when the system clock is set.
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
    // Monotonic milliseconds from an arbitrary origin.
    virtual int64_t steady_ms() const = 0;
};

class SystemClock final : public Clock {
  public:
    int64_t now_ms() const override {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    }
    int64_t steady_ms() const override {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
    // A process-wide instance for code that has no injected clock.
    static const Clock& instance() {
        static const SystemClock clock;
        return clock;
    }
};

// A clock tests move by hand. advance_ms moves both readings; set_ms moves
// only wall time (a system clock being set), as a real clock would.
class ManualClock final : public Clock {
  public:
    explicit ManualClock(int64_t start_ms = 1'700'000'000'000) : now_(start_ms) {}
    int64_t now_ms() const override { return now_.load(); }
    int64_t steady_ms() const override { return steady_.load(); }
    void advance_ms(int64_t delta) {
        now_.fetch_add(delta);
        steady_.fetch_add(delta);
    }
    void set_ms(int64_t t) { now_.store(t); }

  private:
    std::atomic<int64_t> now_;
    std::atomic<int64_t> steady_{0};
};

}  // namespace yuzu
