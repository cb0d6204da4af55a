// Evaluator: applies policies to the fleet's inventory and stores the
// results. Every agent in a policy's scope is judged on its last inventory,
// online or not; a report older than the staleness bound is unknown.
//
// Thread-safety: safe to call from any thread; evaluations run one at a
// time (a second caller waits), so results are never interleaved.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/compliance/policy_store.hpp"
#include "yuzu/compliance/result_store.hpp"
#include "yuzu/fleet/inventory_store.hpp"

namespace yuzu::auth {
class ManagementGroupStore;
}
namespace yuzu::fleet {
class Fleet;
}

namespace yuzu::compliance {

struct EvaluationReport {
    int64_t evaluated_at_ms = 0;
    int64_t policies = 0;  // policies evaluated
    int64_t checks = 0;    // (policy, agent) results written
    int64_t compliant = 0;
    int64_t non_compliant = 0;
    int64_t unknown = 0;
    bool cancelled = false;  // evaluate_all stopped early on request
};

class Evaluator {
  public:
    // `groups` resolves `group = ...` in scope expressions (may be null:
    // such a predicate then matches nothing).
    Evaluator(PolicyStore& policies, ResultStore& results, fleet::Fleet& fleet,
              const auth::ManagementGroupStore* groups, const Clock& clock, int64_t stale_after_ms);

    // Every enabled policy, judged as of `now_ms`. A policy that fails to
    // evaluate is logged and skipped; the others still run. `cancel`, when
    // set, is checked between policies.
    Result<EvaluationReport> evaluate_all(int64_t now_ms,
                                          const std::atomic<bool>* cancel = nullptr);
    // One policy, now. NotFound; FailedPrecondition when it is disabled.
    Result<EvaluationReport> evaluate_policy(const std::string& policy_id);

    int64_t stale_after_ms() const { return stale_after_ms_; }

  private:
    using SourceRows = std::map<std::string, fleet::InventoryItem>;  // agent_id -> row
    Result<std::vector<std::string>> all_agents() const;
    Result<std::vector<std::string>> agents_in_scope(const Policy& policy,
                                                     const std::vector<std::string>& all) const;
    Result<SourceRows> load_source(const std::string& source,
                                   const std::vector<std::string>& agents) const;
    // Caller holds mu_. `cache` keeps each source's rows for one pass.
    Status evaluate_locked(const Policy& policy, int64_t now_ms,
                           const std::vector<std::string>& all,
                           std::map<std::string, SourceRows>& cache, EvaluationReport& report);

    PolicyStore& policies_;
    ResultStore& results_;
    fleet::Fleet& fleet_;
    const auth::ManagementGroupStore* groups_;
    const Clock& clock_;
    const int64_t stale_after_ms_;
    std::mutex mu_;  // held for a whole evaluation
};

}  // namespace yuzu::compliance
