// ResultStore: the latest evaluation of every (policy, agent) pair in
// compliance.db. Each evaluation of a policy replaces all of its rows, so an
// agent that left the policy's scope leaves its results too.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "yuzu/common/status.hpp"
#include "yuzu/compliance/rule_check.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::compliance {

inline constexpr int kMaxResultQueryLimit = 1000;

// The caller's management-group view: nullopt = every agent.
using AgentView = std::optional<std::set<std::string>>;

struct CheckResult {
    std::string policy_id;
    std::string agent_id;
    CheckStatus status = CheckStatus::kUnknown;
    std::string detail;
    int64_t evaluated_at_ms = 0;
};

struct ResultQuery {
    std::string policy_id;
    std::optional<CheckStatus> status;
    AgentView only_agents;
    int limit = 100;  // 1..kMaxResultQueryLimit
};

// How many results of one policy have one status (within a view).
struct StatusCount {
    std::string policy_id;
    CheckStatus status = CheckStatus::kUnknown;
    int64_t count = 0;
    int64_t last_evaluated_ms = 0;
};

class ResultStore {
  public:
    explicit ResultStore(store::Database& db);

    // All rows of the policy become `results`, in one transaction. NotFound
    // when the policy was deleted meanwhile.
    Status replace(const std::string& policy_id, const std::vector<CheckResult>& results);
    // Rows ordered by agent_id; the bool is true when `limit` cut them short.
    Result<std::pair<std::vector<CheckResult>, bool>> query(const ResultQuery& q) const;
    // Counts per (policy, status) over the agents in `view`.
    Result<std::vector<StatusCount>> counts(const AgentView& view) const;

  private:
    store::Database& db_;
};

}  // namespace yuzu::compliance
