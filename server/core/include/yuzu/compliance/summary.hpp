// Compliance counts: per policy, and fleet-wide over every enabled policy.
// Both are computed over the agents of a view (the caller's management
// groups), so a scoped reader never sees counts for agents it cannot see.
//
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "yuzu/compliance/policy_store.hpp"
#include "yuzu/compliance/result_store.hpp"

namespace yuzu::compliance {

struct PolicySummary {
    std::string policy_id;
    std::string name;
    bool enabled = true;
    int64_t compliant = 0;
    int64_t non_compliant = 0;
    int64_t unknown = 0;
    int64_t total = 0;
    int64_t last_evaluated_ms = 0;  // 0 = no results (never evaluated, or none in view)
};

struct FleetCompliance {
    int64_t policies = 0;  // enabled policies counted
    int64_t total_checks = 0;
    int64_t compliant = 0;
    int64_t non_compliant = 0;
    int64_t unknown = 0;
    // compliant / (total_checks - unknown) in percent, one decimal; null
    // when nothing could be judged (never 0 for "no data").
    std::optional<double> compliance_pct;
};

// One summary per policy, in the order of `policies`.
std::vector<PolicySummary> summarize(const std::vector<Policy>& policies,
                                     const std::vector<StatusCount>& counts);
// Over the enabled policies among `summaries`.
FleetCompliance fleet_compliance_of(const std::vector<PolicySummary>& summaries);

}  // namespace yuzu::compliance
