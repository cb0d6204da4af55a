// Compliance: policies over inventory, their evaluation (on a schedule and
// on demand), compliance counts, and device-performance (DEX) stats from
// heartbeats. Owns compliance.db (WAL, numbered migrations; the built-in
// policies are seeded the first time it is created). REST routes and MCP
// tools go through this service; none of them reaches into SQL.
//
// Thread-safety: every service is safe to call from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/compliance/dex_perf.hpp"
#include "yuzu/compliance/evaluator.hpp"
#include "yuzu/compliance/policy_store.hpp"
#include "yuzu/compliance/result_store.hpp"
#include "yuzu/compliance/scheduler.hpp"
#include "yuzu/compliance/summary.hpp"

namespace yuzu::store {
class Database;
}
namespace yuzu::auth {
class ManagementGroupStore;
}
namespace yuzu::fleet {
class Fleet;
}

namespace yuzu::compliance {

struct ComplianceOptions {
    std::string data_dir;  // compliance.db lives here (created 0700 when missing)
    // Inventory received longer ago than this is "unknown". 0 = three
    // inventory intervals of the fleet (an agent may miss two reports).
    int64_t stale_after_ms = 0;
    // Heartbeat samples of offline agents count while younger than this.
    int64_t perf_sample_max_age_ms = kDefaultPerfSampleMaxAgeMs;
};

class Compliance {
  public:
    // `fleet` and `groups` (may be null) must outlive the service.
    static Result<std::unique_ptr<Compliance>> open(const ComplianceOptions& options,
                                                    fleet::Fleet& fleet,
                                                    const auth::ManagementGroupStore* groups,
                                                    const Clock& clock = SystemClock::instance());
    ~Compliance();  // stops the scheduler first
    Compliance(const Compliance&) = delete;
    Compliance& operator=(const Compliance&) = delete;

    PolicyStore& policies() { return *policies_; }
    ResultStore& results() { return *results_; }
    Evaluator& evaluator() { return *evaluator_; }
    EvaluationScheduler& scheduler() { return *scheduler_; }
    const DexPerf& dex() const { return *dex_; }

    // Counts over the agents in `view` (nullopt = every agent).
    Result<PolicySummary> summary(const std::string& policy_id, const AgentView& view) const;
    Result<std::vector<PolicySummary>> summaries(const AgentView& view) const;
    Result<FleetCompliance> fleet_compliance(const AgentView& view) const;

    const std::string& db_path() const;
    // For /readyz: the store answers a trivial query.
    Status ready() const;

  private:
    Compliance() = default;
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<PolicyStore> policies_;
    std::unique_ptr<ResultStore> results_;
    std::unique_ptr<Evaluator> evaluator_;
    std::unique_ptr<EvaluationScheduler> scheduler_;
    std::unique_ptr<DexPerf> dex_;
};

}  // namespace yuzu::compliance
