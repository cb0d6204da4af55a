#include "yuzu/http/stream_budget.hpp"

#include <cassert>
#include <utility>

namespace yuzu::http {

StreamBudget::Lease::Lease(Lease&& other) noexcept
    : budget_(std::exchange(other.budget_, nullptr)), principal_(std::move(other.principal_)) {}

StreamBudget::Lease& StreamBudget::Lease::operator=(Lease&& other) noexcept {
    if (this != &other) {
        release();
        budget_ = std::exchange(other.budget_, nullptr);
        principal_ = std::move(other.principal_);
    }
    return *this;
}

StreamBudget::Lease::~Lease() {
    release();
}

void StreamBudget::Lease::release() {
    if (budget_ == nullptr) return;
    std::exchange(budget_, nullptr)->give_back(principal_);
}

StreamBudget::StreamBudget(size_t global_cap, size_t per_principal_cap)
    : global_cap_(global_cap), per_principal_cap_(per_principal_cap) {}

StreamBudget::Admission StreamBudget::acquire(const std::string& principal,
                                              bool apply_per_principal) {
    std::lock_guard<std::mutex> lock(mu_);
    Admission out;
    if (active_ >= global_cap_) {
        out.refusal = Refusal::kGlobalCap;
        return out;
    }
    size_t& mine = by_principal_[principal];
    if (apply_per_principal && per_principal_cap_ > 0 && mine >= per_principal_cap_) {
        out.refusal = Refusal::kPerPrincipalCap;
        return out;
    }
    ++mine;
    ++active_;
    out.lease = Lease(this, principal);
    return out;
}

void StreamBudget::give_back(const std::string& principal) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_principal_.find(principal);
    assert(it != by_principal_.end() && it->second > 0 && active_ > 0);
    if (it == by_principal_.end()) return;
    if (--it->second == 0) by_principal_.erase(it);
    --active_;
}

size_t StreamBudget::active() const {
    std::lock_guard<std::mutex> lock(mu_);
    return active_;
}

size_t StreamBudget::active_for(const std::string& principal) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_principal_.find(principal);
    return it == by_principal_.end() ? 0 : it->second;
}

}  // namespace yuzu::http
