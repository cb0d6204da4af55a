// AgentRegistry: every enrolled agent, with what it last said about itself
// and whether it is online (seen within the offline timeout and not signed
// off since). Heartbeats and last-seen times are persisted so a restarted
// server knows its fleet; "online" is computed at read time from the clock.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
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
    // Reads go through `reader` when given (a second, read-only connection
    // to the same file), so they never wait behind a write.
    AgentRegistry(store::Database& db, const Clock& clock, int64_t offline_timeout_ms,
                  store::Database* reader = nullptr);
    // Writes what is still waiting (heartbeats, last-seen times).
    ~AgentRegistry();
    AgentRegistry(const AgentRegistry&) = delete;
    AgentRegistry& operator=(const AgentRegistry&) = delete;

    // Updates the agent's self-description and last-seen time. Reads see it
    // at once; the row is written by the next group commit (one transaction
    // a second for every heartbeat and touch waiting), so a crash loses at
    // most that second. InvalidArgument for malformed fields, NotFound for
    // an unknown agent.
    Status record_heartbeat(const std::string& agent_id, const Heartbeat& beat);
    // Any authenticated agent-plane request: last seen = now. In memory
    // only; written with the next group commit. Never waits on the store.
    void touch(const std::string& agent_id);
    // Writes what is waiting now (the group commit's own thread does this
    // every second).
    Status flush();
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

    // Whether the agent is quarantined, from memory: set_quarantine() is the
    // only writer and keeps it in step, so every poll and heartbeat answer
    // can say it without a read of the store.
    bool quarantined(const std::string& agent_id) const;

    int64_t offline_timeout_ms() const { return offline_timeout_ms_; }

  private:
    // What this process knows about an agent's presence since it started.
    // It is always at least as fresh as the agents row, so reads prefer it.
    struct Presence {
        int64_t last_seen_ms = 0;
        bool signed_off = false;
        bool dirty = false;  // last_seen_ms not yet written to the store
    };
    struct PendingBeat {
        Heartbeat beat;
        int64_t at_ms = 0;
    };
    static constexpr std::chrono::milliseconds kFlushInterval{1000};
    void flush_loop() noexcept;
    Status write_presence(const std::unordered_map<std::string, PendingBeat>& beats,
                          const std::vector<std::pair<std::string, int64_t>>& seen);
    Status require_registered(const std::string& agent_id) const;
    void load_quarantined();
    // A heartbeat not yet written, laid over what the store said. Caller
    // holds presence_mu_.
    void overlay_locked(AgentRecord& r) const;
    // Folds the in-memory presence of `agent_id` into what the store said
    // (last_seen_ms is updated in place) and answers whether the agent is
    // online at now_ms. Caller holds presence_mu_.
    bool resolve_presence_locked(const std::string& agent_id, int64_t& last_seen_ms,
                                 bool stored_signed_off, int64_t now_ms) const;

    store::Database& db_;
    store::Database& reader_;
    const Clock& clock_;
    int64_t offline_timeout_ms_;
    mutable std::mutex presence_mu_;
    std::unordered_map<std::string, Presence> presence_;  // guarded by presence_mu_
    std::unordered_map<std::string, PendingBeat> beats_;  // guarded by presence_mu_
    // Heartbeats being written by a flush right now; guarded by presence_mu_.
    std::unordered_map<std::string, PendingBeat> inflight_;
    bool stopping_ = false;                        // guarded by presence_mu_
    std::unordered_set<std::string> quarantined_;  // guarded by presence_mu_
    bool quarantine_loaded_ = false;               // guarded by presence_mu_
    std::mutex quarantine_mu_;  // one set_quarantine at a time; before the database
    std::condition_variable flush_wake_;
    std::mutex flush_mu_;  // one flush at a time; taken before presence_mu_
    std::thread flusher_;
};

}  // namespace yuzu::fleet
