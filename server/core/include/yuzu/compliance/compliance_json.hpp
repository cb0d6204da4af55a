// JSON shapes of compliance and DEX objects, shared by the REST routes and
// their MCP twins so both surfaces answer with the same fields. Times are
// epoch seconds, as in the rest of the API.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "yuzu/compliance/dex_perf.hpp"
#include "yuzu/compliance/evaluator.hpp"
#include "yuzu/compliance/policy_store.hpp"
#include "yuzu/compliance/result_store.hpp"
#include "yuzu/compliance/summary.hpp"

namespace yuzu::compliance {

// {id, name, description, enabled, scope_expression, rule, created_by,
//  created_at, updated_at}
nlohmann::json to_json(const Policy& policy);
// {policy_id, agent_id, status, detail, evaluated_at}
nlohmann::json to_json(const CheckResult& result);
// {policy_id, name, enabled, compliant, non_compliant, unknown, total,
//  last_evaluated (null when none)}
nlohmann::json to_json(const PolicySummary& summary);
// {total_checks, compliant, non_compliant, unknown, compliance_pct (null
//  when nothing could be judged), policies}
nlohmann::json to_json(const FleetCompliance& fleet);
// {evaluated_at, policies, checks, compliant, non_compliant, unknown}
nlohmann::json to_json(const EvaluationReport& report);
// {cpu_pct, mem_used_pct, disk_used_pct, load1: each {avg, p50, p90, max, n}
//  or null, reporting, online}
nlohmann::json to_json(const PerfFleetStats& stats);
// {agent_id, hostname, online, cpu_pct?, mem_used_pct?, disk_used_pct?,
//  load1?, sample_at, fleet_pctile}
nlohmann::json to_json(const PerfDevice& device);
// {agent_id, hostname, last_seen}
nlohmann::json to_json(const SilentDevice& device);

// Parses a policy body's "rule" and other fields into the structs the store
// takes. InvalidArgument names the field.
Result<NewPolicy> new_policy_from_json(const nlohmann::json& body, const std::string& created_by);
Result<PolicyUpdate> policy_update_from_json(const nlohmann::json& body);

}  // namespace yuzu::compliance
