#include "agentapi/background_worker.hpp"

#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "yuzu/common/thread_guard.hpp"

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
    // On Linux the nice value is per thread: this one only.
    const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
    errno = 0;
    const int current = ::getpriority(PRIO_PROCESS, tid);
    if (errno == 0 && ::setpriority(PRIO_PROCESS, tid, current + niceness_) != 0) {
        spdlog::warn("{}: cannot lower the thread's priority: {}", name_, std::strerror(errno));
    }
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
