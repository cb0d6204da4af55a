#include "agentapi/background_worker.hpp"

#include <spdlog/spdlog.h>

#include <utility>

#include "yuzu/common/thread_guard.hpp"
#include "yuzu/common/thread_priority.hpp"

namespace yuzu::agentapi {

BackgroundWorker::BackgroundWorker(std::string name, size_t capacity, int niceness)
    : name_(std::move(name)), capacity_(capacity), niceness_(niceness) {
    thread_ = std::thread([this]() noexcept { run(); });
}

BackgroundWorker::~BackgroundWorker() {
    stop();
}

bool BackgroundWorker::submit(std::function<void()> job) {
    {
        std::lock_guard lock(mu_);
        if (stopping_ || jobs_.size() >= capacity_) return false;
        jobs_.push_back(std::move(job));
    }
    ready_.notify_one();
    return true;
}

void BackgroundWorker::stop() {
    {
        std::lock_guard lock(mu_);
        if (stopping_) return;
        stopping_ = true;
    }
    ready_.notify_one();
    if (thread_.joinable()) thread_.join();
}

void BackgroundWorker::run() noexcept {
    if (Status s = lower_thread_priority(niceness_); !s.ok())
        spdlog::warn("{}: {}", name_, s.message());
    for (;;) {
        std::function<void()> job;
        {
            std::unique_lock lock(mu_);
            ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
            if (jobs_.empty()) return;  // stopping and drained
            job = std::move(jobs_.front());
            jobs_.pop_front();
        }
        // A job that throws is logged and counted; the next one runs.
        (void)run_guarded(name_, job);
    }
}

}  // namespace yuzu::agentapi
