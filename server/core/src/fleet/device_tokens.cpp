// EnrollmentService: device-token checks on every agent-plane request, with
// a short-lived cache so heartbeats and polls do not each read SQLite.
#include <algorithm>

#include "fleet/field_rules.hpp"
#include "yuzu/auth/token_codec.hpp"
#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::fleet {
namespace {

constexpr int64_t kDeviceCacheTtlMs = 60'000;
// A bound on memory, far above any fleet this server is sized for.
constexpr size_t kMaxCachedDevices = 100'000;

Status refused() {
    return Status::Unauthenticated("device token is unknown or revoked");
}

}  // namespace

Result<std::string> EnrollmentService::authenticate_device(const std::string& device_token) const {
    if (!auth::looks_like_api_token(device_token)) return refused();
    const std::string hash = auth::sha256_hex(device_token);
    const int64_t now_ms = clock_.now_ms();
    uint64_t generation = 0;
    {
        std::lock_guard lock(cache_mu_);
        auto it = cache_.find(hash);
        if (it != cache_.end()) {
            if (now_ms < it->second.valid_until_ms) return it->second.agent_id;
            cache_.erase(it);
        }
        generation = cache_generation_;
    }

    std::string agent_id;
    {
        auto conn = reader_.lock();
        auto find = conn.prepare(
            "SELECT agent_id FROM device_tokens WHERE "
            "token_hash = ?1 AND revoked_at_ms = 0");
        if (!find.ok()) return find.status();
        auto row = find->bind(1, hash).step();
        if (!row.ok()) return row.status();
        if (!*row) return refused();
        agent_id = find->column_text(0);
    }

    std::lock_guard lock(cache_mu_);
    // A revocation since the read above may have made this answer stale for
    // later calls; this call was concurrent with it, so it may still pass.
    if (generation == cache_generation_) {
        if (cache_.size() >= kMaxCachedDevices) {
            std::erase_if(cache_,
                          [now_ms](const auto& kv) { return now_ms >= kv.second.valid_until_ms; });
            if (cache_.size() >= kMaxCachedDevices) cache_.clear();
        }
        cache_.insert_or_assign(hash, CachedDevice{agent_id, now_ms + kDeviceCacheTtlMs});
    }
    return agent_id;
}

Status EnrollmentService::revoke_device(const std::string& agent_id) {
    {
        auto conn = db_.lock();
        auto exists = conn.prepare("SELECT 1 FROM agents WHERE agent_id = ?1");
        if (!exists.ok()) return exists.status();
        auto row = exists->bind(1, agent_id).step();
        if (!row.ok()) return row.status();
        if (!*row) return Status::NotFound("agent '" + agent_id + "' is not registered");
        exists->reset();
        auto update = conn.prepare(
            "UPDATE device_tokens SET revoked_at_ms = ?1 "
            "WHERE agent_id = ?2 AND revoked_at_ms = 0");
        if (!update.ok()) return update.status();
        YUZU_RETURN_IF_ERROR(update->bind(1, clock_.now_ms()).bind(2, agent_id).run());
    }
    forget_cached_agent(agent_id);
    return Status::Ok();
}

void EnrollmentService::forget_cached_agent(const std::string& agent_id) {
    std::lock_guard lock(cache_mu_);
    std::erase_if(cache_, [&agent_id](const auto& kv) { return kv.second.agent_id == agent_id; });
    ++cache_generation_;
}

}  // namespace yuzu::fleet
