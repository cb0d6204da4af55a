// EvaluationScheduler: runs Evaluator::evaluate_all on a background thread,
// once at start and then every interval, until stop().
//
// Thread-safety: start() and stop() may be called from any thread; stop()
// returns promptly (a running pass stops between policies). No exception
// leaves the thread: a failed pass is logged and counted.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::compliance {

class Evaluator;

class EvaluationScheduler {
  public:
    EvaluationScheduler(Evaluator& evaluator, const Clock& clock);
    ~EvaluationScheduler();  // stop()
    EvaluationScheduler(const EvaluationScheduler&) = delete;
    EvaluationScheduler& operator=(const EvaluationScheduler&) = delete;

    // InvalidArgument for a non-positive interval; FailedPrecondition when
    // already running.
    Status start(std::chrono::milliseconds interval);
    // Idempotent.
    void stop();
    bool running() const;

    uint64_t passes() const { return passes_.load(); }         // completed passes
    uint64_t failed_passes() const { return failed_.load(); }  // logged failures
    int64_t last_pass_at_ms() const { return last_pass_ms_.load(); }

  private:
    void loop(std::chrono::milliseconds interval) noexcept;
    void run_pass();  // may throw: loop() guards it

    Evaluator& evaluator_;
    const Clock& clock_;
    mutable std::mutex mu_;
    std::condition_variable wake_;
    bool stopping_ = false;  // guarded by mu_
    std::thread thread_;     // guarded by mu_ (start/stop)
    std::atomic<bool> cancel_{false};
    std::atomic<uint64_t> passes_{0};
    std::atomic<uint64_t> failed_{0};
    std::atomic<int64_t> last_pass_ms_{0};
};

}  // namespace yuzu::compliance
