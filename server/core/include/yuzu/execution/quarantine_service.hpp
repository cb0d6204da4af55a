// QuarantineService: puts an agent in (and out of) quarantine. The flag
// lives in the fleet registry, which shows it and tells the agent on every
// heartbeat and command answer; the agent then refuses every instruction.
// Each change is also recorded in executions.db (quarantine_history), so
// who quarantined what, why and when survives a release.
//
// Thread-safety: safe to call from any thread; changes are serialised so the
// history is in the order the registry saw them.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}
namespace yuzu::fleet {
class AgentRegistry;
}

namespace yuzu::execution {

inline constexpr size_t kQuarantineReasonMaxBytes = 1024;

struct QuarantineStatus {
    std::string agent_id;
    bool quarantined = false;
    std::string reason;
    std::string quarantined_by;
    int64_t quarantined_at_ms = 0;
};

struct QuarantineEvent {
    int64_t id = 0;
    std::string agent_id;
    std::string action;  // "quarantine" | "release"
    std::string reason;
    std::string actor;
    int64_t at_ms = 0;
};

class QuarantineService {
  public:
    QuarantineService(store::Database& db, fleet::AgentRegistry& registry, const Clock& clock);

    // NotFound (unknown agent), InvalidArgument (empty actor, reason over
    // 1 KiB or with control characters), FailedPrecondition (already
    // quarantined).
    Result<QuarantineStatus> quarantine(const std::string& agent_id, const std::string& reason,
                                        const std::string& by);
    // NotFound, InvalidArgument, FailedPrecondition (not quarantined).
    Result<QuarantineStatus> release(const std::string& agent_id, const std::string& by);
    Result<QuarantineStatus> status(const std::string& agent_id) const;  // NotFound
    // The agent's changes, newest first; limit clamped to 1..1000.
    Result<std::vector<QuarantineEvent>> history(const std::string& agent_id,
                                                 int limit = 100) const;

  private:
    Status record(const std::string& agent_id, const std::string& action, const std::string& reason,
                  const std::string& actor, int64_t at_ms);

    store::Database& db_;
    fleet::AgentRegistry& registry_;
    const Clock& clock_;
    std::mutex change_mu_;  // one quarantine/release at a time
};

}  // namespace yuzu::execution
