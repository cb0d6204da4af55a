#include "yuzu/auth/login_throttle.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <thread>

namespace yuzu::auth {
namespace {

constexpr int64_t kBusyAuditIntervalMs = 1'000;

int default_max_hashes() {
    const unsigned cores = std::thread::hardware_concurrency();  // 0 when unknown
    return std::max(1, static_cast<int>(cores / 2));
}

}  // namespace

std::string_view login_refusal_name(LoginRefusal refusal) {
    switch (refusal) {
        case LoginRefusal::kNone:
            return "none";
        case LoginRefusal::kRateLimited:
            return "rate_limited";
        case LoginRefusal::kBusy:
            return "busy";
    }
    return "unknown";
}

LoginAdmission::LoginAdmission(LoginAdmission&& other) noexcept
    : slot_(other.slot_),
      refusal_(other.refusal_),
      retry_after_s_(other.retry_after_s_),
      worth_auditing_(other.worth_auditing_) {
    other.slot_ = nullptr;
}

LoginAdmission::~LoginAdmission() {
    if (slot_ != nullptr) slot_->fetch_sub(1);
}

LoginThrottle::LoginThrottle(const Clock& clock, LoginThrottleOptions options)
    : clock_(clock),
      burst_(std::max(1, options.burst)),
      refill_interval_ms_(std::max<int64_t>(1, options.refill_interval_ms)),
      max_sources_(std::max<size_t>(1, options.max_sources)),
      max_hashes_(options.max_concurrent_hashes > 0 ? options.max_concurrent_hashes
                                                    : default_max_hashes()),
      // Far enough back that the first busy refusal is audited, near enough
      // that now minus it cannot overflow.
      last_busy_audit_ms_(std::numeric_limits<int64_t>::min() / 2) {}

LoginAdmission LoginThrottle::admit(const std::string& source) {
    const int64_t now = clock_.now_ms();
    {
        std::lock_guard<std::mutex> lock(mu_);
        Bucket& bucket = bucket_for(source, now);
        refill(bucket, now);
        if (bucket.tokens == 0) {
            rate_limited_.fetch_add(1);
            const int64_t wait_ms = bucket.refilled_at_ms + refill_interval_ms_ - now;
            const int retry_after_s =
                static_cast<int>(std::max<int64_t>(1, (wait_ms + 999) / 1000));
            const bool first = !bucket.refusal_audited;
            bucket.refusal_audited = true;
            return LoginAdmission(nullptr, LoginRefusal::kRateLimited, retry_after_s, first);
        }
        // Spent even if no slot is free below: a flood from one address then
        // runs dry within its burst and is refused here, before the slots,
        // instead of contending for them with everybody else's logins.
        --bucket.tokens;
        bucket.refusal_audited = false;
    }
    if (!take_slot()) {
        busy_.fetch_add(1);
        return LoginAdmission(nullptr, LoginRefusal::kBusy, kLoginBusyRetryAfterS,
                              busy_worth_auditing(now));
    }
    admitted_.fetch_add(1);
    return LoginAdmission(&in_flight_, LoginRefusal::kNone, 0, false);
}

size_t LoginThrottle::tracked_sources() const {
    std::lock_guard<std::mutex> lock(mu_);
    return buckets_.size();
}

uint64_t LoginThrottle::count(LoginRefusal outcome) const {
    switch (outcome) {
        case LoginRefusal::kNone:
            return admitted_.load();
        case LoginRefusal::kRateLimited:
            return rate_limited_.load();
        case LoginRefusal::kBusy:
            return busy_.load();
    }
    return 0;
}

bool LoginThrottle::take_slot() {
    int taken = in_flight_.load();
    while (taken < max_hashes_) {
        if (in_flight_.compare_exchange_weak(taken, taken + 1)) return true;
    }
    return false;
}

bool LoginThrottle::busy_worth_auditing(int64_t now_ms) {
    int64_t last = last_busy_audit_ms_.load();
    if (now_ms - last < kBusyAuditIntervalMs) return false;
    // Of several threads seeing the same stale time, one wins the row.
    return last_busy_audit_ms_.compare_exchange_strong(last, now_ms);
}

void LoginThrottle::refill(Bucket& bucket, int64_t now_ms) const {
    if (bucket.tokens >= burst_ || now_ms < bucket.refilled_at_ms) {
        // Full buckets earn nothing; a wall clock set back must not leave a
        // source waiting until the old time comes round again.
        bucket.refilled_at_ms = now_ms;
        return;
    }
    const int64_t earned = (now_ms - bucket.refilled_at_ms) / refill_interval_ms_;
    if (earned >= burst_ - bucket.tokens) {
        bucket.tokens = burst_;
        bucket.refilled_at_ms = now_ms;
        return;
    }
    bucket.tokens += static_cast<int>(earned);
    bucket.refilled_at_ms += earned * refill_interval_ms_;
}

LoginThrottle::Bucket& LoginThrottle::bucket_for(const std::string& source, int64_t now_ms) {
    auto it = buckets_.find(source);
    if (it != buckets_.end()) {
        by_age_.splice(by_age_.end(), by_age_, it->second.age);  // now the most recent
        return it->second;
    }
    while (buckets_.size() >= max_sources_) {
        buckets_.erase(by_age_.front());
        by_age_.pop_front();
    }
    by_age_.push_back(source);
    Bucket fresh;
    fresh.tokens = burst_;
    fresh.refilled_at_ms = now_ms;
    fresh.age = std::prev(by_age_.end());
    return buckets_.emplace(source, fresh).first->second;
}

}  // namespace yuzu::auth
