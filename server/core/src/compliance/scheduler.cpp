#include "yuzu/compliance/scheduler.hpp"

#include <spdlog/spdlog.h>

#include "yuzu/common/thread_guard.hpp"
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
    thread_ = std::thread([this, interval]() noexcept { loop(interval); });
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

void EvaluationScheduler::loop(std::chrono::milliseconds interval) noexcept {
    constexpr std::string_view kThread = "compliance.scheduler";
    for (;;) {
        bool stop = false;
        // A pass that throws is counted as failed and logged; the wait below
        // still comes before the next one.
        if (!run_guarded(kThread, [this, &stop] {
                {
                    std::lock_guard<std::mutex> lock(mu_);
                    stop = stopping_;
                }
                if (!stop) run_pass();
            })) {
            failed_.fetch_add(1);
        }
        if (stop) return;
        (void)run_guarded(kThread, [this, interval, &stop] {
            std::unique_lock<std::mutex> lock(mu_);
            stop = wake_.wait_for(lock, interval, [this] { return stopping_; });
        });
        if (stop) return;
    }
}

void EvaluationScheduler::run_pass() {
    const int64_t now_ms = clock_.now_ms();
    auto report = evaluator_.evaluate_all(now_ms, &cancel_);
    if (!report.ok()) {
        failed_.fetch_add(1);
        spdlog::warn("compliance: scheduled evaluation failed: {}", report.status().to_string());
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
}

}  // namespace yuzu::compliance
