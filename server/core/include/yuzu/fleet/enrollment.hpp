// Enrollment tokens (created by an administrator, traded by agents) and
// device tokens (one per agent, presented on every agent-plane request).
// Both are "yuzu_" + 32 base62 characters; only their SHA-256 is stored.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::fleet {

inline constexpr int64_t kDefaultEnrollmentTtlS = 24 * 3600;
inline constexpr int64_t kMaxEnrollmentTtlS = 30 * 24 * 3600;

struct EnrollmentToken {
    std::string id;  // 24 hex, safe to show and log
    std::string created_by;
    std::string note;
    int64_t created_at_ms = 0;
    int64_t expires_at_ms = 0;
    int max_uses = 0;  // 0 = unlimited until expiry
    int uses = 0;
    bool revoked = false;
};

struct NewEnrollmentToken {
    std::string created_by;
    std::string note;                        // ≤ 256 bytes
    int64_t ttl_s = kDefaultEnrollmentTtlS;  // 1 .. kMaxEnrollmentTtlS
    int max_uses = 0;                        // 0 .. 100000
};

struct IssuedEnrollmentToken {
    EnrollmentToken info;
    std::string token;  // the secret, shown once
};

struct EnrollRequest {
    std::string enrollment_token;
    std::string hostname;  // 1..253 bytes, printable
    std::string os;        // e.g. "linux"; 1..64
    std::string os_version;
    std::string arch;  // e.g. "x86_64"; 1..64
    std::string agent_version;
    std::string source_ip;
};

struct EnrolledAgent {
    std::string agent_id;  // 32 lowercase hex
    std::string device_token;
};

class EnrollmentService {
  public:
    // Device-token lookups read through `reader` when given (see AgentRegistry).
    EnrollmentService(store::Database& db, const Clock& clock, store::Database* reader = nullptr);

    Result<IssuedEnrollmentToken> create_token(const NewEnrollmentToken& spec);
    Result<std::vector<EnrollmentToken>> list_tokens() const;
    Status revoke_token(const std::string& id);  // NotFound

    // Trades an enrollment token for a new agent identity: registers the
    // agent (first seen now, online) and issues its device token, in one
    // transaction. Unauthenticated — with one message for unknown, expired,
    // revoked or used-up tokens — or InvalidArgument naming a bad field.
    Result<EnrolledAgent> enroll(const EnrollRequest& request);

    // The agent a device token belongs to; Unauthenticated when unknown or
    // revoked. Cached briefly; revoke_device() invalidates the cache.
    Result<std::string> authenticate_device(const std::string& device_token) const;
    Status revoke_device(const std::string& agent_id);  // NotFound

  private:
    struct CachedDevice {
        std::string agent_id;
        int64_t valid_until_ms = 0;
    };
    void forget_cached_agent(const std::string& agent_id);

    store::Database& db_;
    store::Database& reader_;
    const Clock& clock_;
    // A device token's hash -> its agent, so heartbeats need not read
    // SQLite. cache_generation_ moves on every revocation: a lookup that
    // started before one does not fill the cache.
    mutable std::mutex cache_mu_;
    mutable std::unordered_map<std::string, CachedDevice> cache_;  // guarded by cache_mu_
    mutable uint64_t cache_generation_ = 0;                        // guarded by cache_mu_
};

}  // namespace yuzu::fleet
