#include "yuzu/compliance/scheduler.hpp"

#include <spdlog/spdlog.h>

#include <exception>

#include "yuzu/compliance/evaluator.hpp"

namespace yuzu::compliance {

EvaluationScheduler::EvaluationScheduler(Evaluator& evaluator, const Clock& clock)
    : evaluator_(evaluator), clock_(clock) {}

EvaluationScheduler::~EvaluationScheduler() {
    stop();
}

Status EvaluationScheduler::start(std::chrono::milliseconds interval) {
    if (interval.count() <= 0) {
        return Status::InvalidArgument("compliance evaluation interval must be positive");
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (thread_.joinable()) return Status::FailedPrecondition("compliance scheduler is running");
    stopping_ = false;
    cancel_ = false;
    thread_ = std::thread([this, interval] { loop(interval); });
    return Status::Ok();
}

void EvaluationScheduler::stop() {
    std::thread worker;
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
        cancel_ = true;
        worker = std::move(thread_);
    }
    wake_.notify_all();
    if (worker.joinable()) worker.join();
}

bool EvaluationScheduler::running() const {
    std::lock_guard<std::mutex> lock(mu_);
    return thread_.joinable();
}

void EvaluationScheduler::loop(std::chrono::milliseconds interval) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
        lock.unlock();
        run_pass();
        lock.lock();
        wake_.wait_for(lock, interval, [this] { return stopping_; });
    }
}

void EvaluationScheduler::run_pass() noexcept {
    try {
        const int64_t now_ms = clock_.now_ms();
        auto report = evaluator_.evaluate_all(now_ms, &cancel_);
        if (!report.ok()) {
            failed_.fetch_add(1);
            spdlog::warn("compliance: scheduled evaluation failed: {}",
                         report.status().to_string());
            return;
        }
        if (report->cancelled) return;
        passes_.fetch_add(1);
        last_pass_ms_ = now_ms;
        spdlog::debug(
            "compliance: evaluated {} policies, {} checks ({} compliant, "
            "{} non-compliant, {} "
            "unknown)",
            report->policies, report->checks, report->compliant, report->non_compliant,
            report->unknown);
    } catch (const std::exception& e) {
        failed_.fetch_add(1);
        spdlog::error("compliance: scheduled evaluation threw: {}", e.what());
    } catch (...) {
        failed_.fetch_add(1);
        spdlog::error("compliance: scheduled evaluation threw a non-standard exception");
    }
}

}  // namespace yuzu::compliance
