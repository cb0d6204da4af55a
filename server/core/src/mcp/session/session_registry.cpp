#include "yuzu/mcp/session/session_registry.hpp"

#include <utility>

#include "yuzu/auth/random.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/mcp/session/stream_metrics.hpp"
#include "yuzu/metrics/counter.hpp"
#include "yuzu/metrics/gauge.hpp"

namespace yuzu::mcp {
namespace {

constexpr size_t kSessionIdBytes = 16;  // 128 bits

}  // namespace

SessionRegistry::SessionRegistry(SessionRegistryOptions options, const Clock& clock,
                                 const StreamMetrics* metrics)
    : options_(std::move(options)), clock_(clock), metrics_(metrics) {}

SessionRegistry::~SessionRegistry() {
    shutdown();
}

bool SessionRegistry::expired_locked(const Session& s, int64_t now) const {
    if (s.closed()) return true;
    if (s.has_connection()) return false;
    return now - s.last_used_ms() >= options_.idle_ttl_ms;
}

void SessionRegistry::erase_locked(std::map<std::string, std::shared_ptr<Session>>::iterator it) {
    auto count = per_principal_.find(it->second->principal());
    if (count != per_principal_.end() && --count->second == 0) per_principal_.erase(count);
    sessions_.erase(it);
    if (metrics_) metrics_->sessions_active.Decrement();
}

std::variant<std::shared_ptr<Session>, SessionRegistry::Refusal> SessionRegistry::open(
    const std::string& principal, const std::string& protocol_version) {
    auto id = auth::random_hex(kSessionIdBytes);
    if (!id.ok()) return Refusal::kNoRandomness;
    const int64_t now = clock_.steady_ms();
    std::lock_guard<std::mutex> lock(mu_);
    if (shutting_down_) return Refusal::kShuttingDown;
    // Expired sessions do not hold a place against the caps until the
    // next tick: they are gone already as far as find() is concerned.
    for (auto it = sessions_.begin(); it != sessions_.end();) {
        auto next = std::next(it);
        if (expired_locked(*it->second, now)) {
            it->second->close(CloseReason::kSessionTerminated);
            erase_locked(it);
        }
        it = next;
    }
    if (sessions_.size() >= options_.max_total) return Refusal::kGlobalCap;
    auto count = per_principal_.find(principal);
    if (count != per_principal_.end() && count->second >= options_.max_per_principal) {
        return Refusal::kPerPrincipalCap;
    }
    auto session =
        std::make_shared<Session>(*id, principal, protocol_version, options_.limits, metrics_, now);
    sessions_.emplace(*id, session);
    ++per_principal_[principal];
    if (metrics_) {
        metrics_->sessions_active.Increment();
        metrics_->sessions_opened.Increment();
    }
    return session;
}

std::shared_ptr<Session> SessionRegistry::find(const std::string& id,
                                               const std::string& principal) {
    const int64_t now = clock_.steady_ms();
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return nullptr;
    if (expired_locked(*it->second, now)) {
        it->second->close(CloseReason::kSessionTerminated);
        erase_locked(it);
        return nullptr;
    }
    if (it->second->principal() != principal) return nullptr;
    it->second->touch(now);
    return it->second;
}

bool SessionRegistry::remove(const std::string& id, const std::string& principal) {
    auto session = find(id, principal);
    if (!session) return false;
    session->close(CloseReason::kSessionTerminated);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(id);
    if (it != sessions_.end() && it->second == session) erase_locked(it);
    return true;
}

size_t SessionRegistry::sweep() {
    const int64_t now = clock_.steady_ms();
    size_t idle = 0;
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
        auto next = std::next(it);
        if (expired_locked(*it->second, now)) {
            if (!it->second->closed()) ++idle;
            it->second->close(CloseReason::kSessionTerminated);
            erase_locked(it);
        }
        it = next;
    }
    return idle;
}

void SessionRegistry::shutdown() {
    std::lock_guard<std::mutex> lock(mu_);
    shutting_down_ = true;
    for (auto it = sessions_.begin(); it != sessions_.end();) {
        auto next = std::next(it);
        it->second->close(CloseReason::kSessionTerminated);
        erase_locked(it);
        it = next;
    }
}

size_t SessionRegistry::active() const {
    std::lock_guard<std::mutex> lock(mu_);
    return sessions_.size();
}

size_t SessionRegistry::active_for(const std::string& principal) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = per_principal_.find(principal);
    return it == per_principal_.end() ? 0 : it->second;
}

size_t SessionRegistry::streaming() const {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (const auto& [id, session] : sessions_) n += session->has_connection() ? 1 : 0;
    return n;
}

}  // namespace yuzu::mcp
