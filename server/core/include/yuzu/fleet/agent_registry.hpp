// AgentRegistry: every enrolled agent, with what it last said about itself
// and whether it is online (seen within the offline timeout and not signed
// off since). Heartbeats and last-seen times are persisted so a restarted
// server knows its fleet; "online" is computed at read time from the clock.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::fleet {

// What the agent measured at its last heartbeat; a field it could not
// measure is absent, never zero.
struct PerfSample {
    std::optional<double> cpu_pct;
    std::optional<double> mem_used_pct;
    std::optional<double> disk_used_pct;
    std::optional<double> load1;
    int64_t at_ms = 0;
};

struct AgentRecord {
    std::string agent_id;
    std::string hostname;
    std::string os;
    std::string os_version;
    std::string arch;
    std::string version;
    int64_t enrolled_at_ms = 0;
    int64_t first_seen_ms = 0;
    int64_t last_seen_ms = 0;
    int64_t uptime_s = -1;  // -1 when never reported
    bool online = false;
    bool device_revoked = false;
    bool quarantined = false;
    std::string quarantine_reason;
    std::string quarantined_by;
    int64_t quarantined_at_ms = 0;
    std::optional<PerfSample> perf;
};

struct Heartbeat {
    std::string hostname;
    std::string os;
    std::string os_version;
    std::string arch;
    std::string agent_version;
    int64_t uptime_s = -1;
    std::optional<PerfSample> perf;
};

class AgentRegistry {
  public:
    AgentRegistry(store::Database& db, const Clock& clock, int64_t offline_timeout_ms);
    // Writes last-seen times that touch() has not flushed yet.
    ~AgentRegistry();
    AgentRegistry(const AgentRegistry&) = delete;
    AgentRegistry& operator=(const AgentRegistry&) = delete;

    // Updates the agent's self-description and last-seen time.
    // InvalidArgument for malformed fields, NotFound for an unknown agent.
    Status record_heartbeat(const std::string& agent_id, const Heartbeat& beat);
    // Any authenticated agent-plane request: last seen = now. Cheap; may
    // batch its writes, but a heartbeat is always persisted before it returns.
    void touch(const std::string& agent_id);
    // A clean shutdown ("goodbye"): offline at once, until seen again.
    Status sign_off(const std::string& agent_id);

    Result<AgentRecord> get(const std::string& agent_id) const;  // NotFound
    // Every agent, ordered by agent_id.
    Result<std::vector<AgentRecord>> list() const;
    size_t online_count() const;
    size_t total_count() const;

    // Quarantine flag (set by the quarantine service; shown in the registry
    // and returned to the agent on its heartbeat). NotFound for unknown ids.
    Status set_quarantine(const std::string& agent_id, bool quarantined, const std::string& reason,
                          const std::string& by);

    int64_t offline_timeout_ms() const { return offline_timeout_ms_; }

  private:
    // What this process knows about an agent's presence since it started.
    // It is always at least as fresh as the agents row, so reads prefer it.
    struct Presence {
        int64_t last_seen_ms = 0;
        bool signed_off = false;
        bool dirty = false;  // last_seen_ms not yet written to the store
    };
    // Writes every dirty entry in one transaction. Caller holds presence_mu_
    // (lock order: presence_mu_, then the database).
    Status flush_locked();
    // Folds the in-memory presence of `agent_id` into what the store said
    // (last_seen_ms is updated in place) and answers whether the agent is
    // online at now_ms. Caller holds presence_mu_.
    bool resolve_presence_locked(const std::string& agent_id, int64_t& last_seen_ms,
                                 bool stored_signed_off, int64_t now_ms) const;

    store::Database& db_;
    const Clock& clock_;
    int64_t offline_timeout_ms_;
    mutable std::mutex presence_mu_;
    std::unordered_map<std::string, Presence> presence_;  // guarded by presence_mu_
    int64_t last_flush_ms_ = 0;                           // guarded by presence_mu_
};

}  // namespace yuzu::fleet
