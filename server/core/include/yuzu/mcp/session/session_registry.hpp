// SessionRegistry: the MCP sessions of one server, in memory only (a
// restart drops them all; clients get 404 and re-initialize). Sessions do
// not gate /readyz.
//
// - open() mints an id of 128 random bits (32 lowercase hex characters)
//   bound to the principal and the negotiated protocol version. A full cap
//   (per principal, or global) refuses the new session; a live one is
//   never evicted to make room.
// - find() answers a session only to the principal that opened it, and
//   treats unknown, expired, deleted and another principal's ids alike, so
//   the answer is no oracle. It slides the idle TTL.
// - sweep() (the session_gc maintenance tick) closes sessions idle for the
//   TTL; one with an attached GET stream is in use, never idle.
// - shutdown() closes every session with session_terminated (waking their
//   streams at once) and refuses new ones.
//
// Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <variant>

#include "yuzu/mcp/session/session.hpp"

namespace yuzu {
class Clock;
}

namespace yuzu::mcp {

struct StreamMetrics;

struct SessionRegistryOptions {
    size_t max_per_principal = 8;
    size_t max_total = 1024;
    int64_t idle_ttl_ms = int64_t{30} * 60 * 1000;
    SessionLimits limits;
};

class SessionRegistry {
  public:
    enum class Refusal { kPerPrincipalCap, kGlobalCap, kShuttingDown, kNoRandomness };

    // `metrics` may be null (tests); it must outlive the registry.
    SessionRegistry(SessionRegistryOptions options, const Clock& clock,
                    const StreamMetrics* metrics);
    ~SessionRegistry();

    std::variant<std::shared_ptr<Session>, Refusal> open(const std::string& principal,
                                                         const std::string& protocol_version);
    // Null for an unknown, closed, idle-expired or another principal's id.
    std::shared_ptr<Session> find(const std::string& id, const std::string& principal);
    // Ends the session (DELETE): false when find() would not answer it.
    bool remove(const std::string& id, const std::string& principal);
    // Closes and forgets idle-expired and already-closed sessions; answers
    // how many idle ones it closed.
    size_t sweep();
    void shutdown();

    size_t active() const;
    size_t active_for(const std::string& principal) const;
    // Sessions with an attached GET stream.
    size_t streaming() const;
    const SessionRegistryOptions& options() const { return options_; }

  private:
    // Requires mu_. Erases `it`, keeping the per-principal counts.
    void erase_locked(std::map<std::string, std::shared_ptr<Session>>::iterator it);
    bool expired_locked(const Session& s, int64_t now) const;

    const SessionRegistryOptions options_;
    const Clock& clock_;
    const StreamMetrics* const metrics_;
    mutable std::mutex mu_;
    std::map<std::string, std::shared_ptr<Session>> sessions_;  // guarded by mu_
    std::map<std::string, size_t> per_principal_;               // guarded by mu_
    bool shutting_down_ = false;                                // guarded by mu_
};

}  // namespace yuzu::mcp
