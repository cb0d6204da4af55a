// InventoryStore: what agents reported about their hosts, one row per
// (agent, source) with its collected-at time, replaced on every report.
// The "packages" source is also indexed as installed-software rows so
// "which agents have openssl 3.0.x" does not scan JSON blobs.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::fleet {

inline constexpr size_t kMaxInventorySourceBytes = size_t{8} * 1024 * 1024;
inline constexpr int kMaxInventoryQueryLimit = 1000;

struct InventoryItem {
    std::string agent_id;
    std::string source;     // [a-z0-9_]{1,64}
    std::string status;     // "ok" | "unavailable"
    std::string reason;     // why unavailable
    std::string data_json;  // the source's JSON ("null" when unavailable)
    int64_t collected_at_ms = 0;
    int64_t received_at_ms = 0;
};

struct InventoryTable {
    std::string source;
    int64_t agent_count = 0;
    int64_t last_collected_ms = 0;
};

// A condition read from one inventory source across agents: how many agents'
// latest report of the source had data (and how many said it was
// unavailable), how many of those with data show the condition, and the
// first of them (by agent_id) with what was seen.
enum class InventoryCondition {
    kRebootPending,  // source reboot_pending: "pending" is true
    kFailedService,  // source systemd_units: a unit whose "active" is "failed"
};

inline constexpr int kMaxConditionUnits = 8;        // failed units named per agent
inline constexpr int kMaxConditionUnitChars = 128;  // characters kept of a unit name

struct ConditionAgent {
    std::string agent_id;
    std::vector<std::string> units;  // failed units (none for a reboot)
};

struct ConditionCount {
    int64_t reporting = 0;    // the source had data
    int64_t unavailable = 0;  // the agent reported the source as unavailable
    int64_t affected = 0;
    std::vector<ConditionAgent> first_affected;  // at most the sample asked for
};

struct InstalledSoftware {
    std::string agent_id;
    std::string name;
    std::string version;
    std::string arch;
};

// `only_agents`, when set, restricts every query to those agents (the
// caller's management-group view); an agent outside it is never returned.
struct InventoryQuery {
    std::optional<std::string> agent_id;
    std::optional<std::string> source;
    std::optional<std::set<std::string>> only_agents;
    int limit = 100;  // 1..kMaxInventoryQueryLimit
};

struct SoftwareQuery {
    std::optional<std::string> name;  // exact match
    std::optional<std::string> agent_id;
    std::optional<std::set<std::string>> only_agents;
    int limit = 100;
};

class InventoryStore {
  public:
    // Reads go through `reader` when given (see AgentRegistry).
    InventoryStore(store::Database& db, const Clock& clock, store::Database* reader = nullptr);

    // Replaces the given sources of one agent in one transaction (sources
    // not in `items` keep their previous rows). InvalidArgument for a bad
    // source name, status or JSON; PayloadTooLarge over the per-source cap.
    // `sources_sha256`, when not empty, is the report's digest as the agent
    // computed it (64 lowercase hex), kept for confirm_unchanged().
    Status replace(const std::string& agent_id, const std::vector<InventoryItem>& items,
                   const std::string& sources_sha256 = "");
    // A report whose sources the agent says are unchanged: when the digest
    // equals the one kept from the agent's last full report, the stored
    // sources are stamped as collected at `collected_at_ms` (never later than
    // now) and received now, and the answer is true. False when the digest
    // differs or none is kept: the agent must send the sources.
    Result<bool> confirm_unchanged(const std::string& agent_id, const std::string& sources_sha256,
                                   int64_t collected_at_ms);

    Result<std::vector<InventoryItem>> for_agent(const std::string& agent_id) const;
    // Rows ordered by agent_id, source. The bool is true when `limit` cut
    // the answer short.
    Result<std::pair<std::vector<InventoryItem>, bool>> query(const InventoryQuery& q) const;
    Result<std::vector<InventoryTable>> tables(
        const std::optional<std::set<std::string>>& only_agents = std::nullopt) const;
    Result<std::pair<std::vector<InstalledSoftware>, bool>> software(const SoftwareQuery& q) const;
    // Counted in SQLite over the stored JSON (one query, no blob leaves the
    // store); `sample` (0..100) bounds first_affected.
    Result<ConditionCount> count_condition(
        InventoryCondition condition,
        const std::optional<std::set<std::string>>& only_agents = std::nullopt,
        int sample = 10) const;

  private:
    store::Database& db_;
    store::Database& reader_;
    const Clock& clock_;
};

}  // namespace yuzu::fleet
