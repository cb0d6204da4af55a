#include "yuzu/common/periodic_task.hpp"

#include <utility>

#include "yuzu/common/thread_guard.hpp"

namespace yuzu {

PeriodicTask::PeriodicTask(std::string name, std::chrono::milliseconds period, Tick tick,
                           OnFailure on_failure)
    : name_(std::move(name)),
      period_(period),
      tick_(std::move(tick)),
      on_failure_(std::move(on_failure)) {}

PeriodicTask::~PeriodicTask() {
    stop();
}

void PeriodicTask::start() {
    if (thread_.joinable()) return;
    thread_ = std::thread([this]() noexcept { run(); });
}

void PeriodicTask::stop() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

uint64_t PeriodicTask::ticks() const {
    std::lock_guard<std::mutex> lock(mu_);
    return ticks_;
}

void PeriodicTask::run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
        if (wake_.wait_for(lock, period_, [this] { return stopping_; })) return;
        lock.unlock();
        Status result = Status::Ok();
        const bool completed = run_guarded(name_, [&] { result = tick_(); });
        if (!completed) result = Status::Internal("the tick threw");
        if (!result.ok() && on_failure_) (void)run_guarded(name_, [&] { on_failure_(result); });
        lock.lock();
        ++ticks_;
    }
}

}  // namespace yuzu
