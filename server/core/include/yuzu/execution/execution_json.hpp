// JSON shapes of executions, definitions, responses, bundles, quarantine and
// execution events, shared by the REST routes and the MCP tools so both
// surfaces answer with the same fields. Timestamps are Unix seconds unless
// the name ends in _ms; stored JSON text (schemas, params, agent output) is
// embedded parsed, never as a string.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "yuzu/execution/bundle_service.hpp"
#include "yuzu/execution/definition_store.hpp"
#include "yuzu/execution/event_bus.hpp"
#include "yuzu/execution/execution_tracker.hpp"
#include "yuzu/execution/quarantine_service.hpp"
#include "yuzu/execution/response_store.hpp"

namespace yuzu::execution {

// What a dispatch answers, on REST and MCP alike: {execution_id, command_id,
// definition_id, plugin, action, agents_targeted, agents_reached,
// agents_offline, agents_dispatch_failed, status}. Reaching no agent is
// still a result: status "no_agents_reached", with execution_status (the
// execution's own, "cancelled") and a message.
nlohmann::json to_json(const DispatchResult& result);

// {id, name, version, type, plugin, action, description, approval_mode,
// destructive, enabled, builtin, created_at, updated_at}.
nlohmann::json to_json(const InstructionDefinition& definition);
// to_json() plus parameter_schema and result_columns.
nlohmann::json definition_details_json(const InstructionDefinition& definition);

// {execution_id, command_id, definition_id, plugin, action, params,
// scope_expression, dispatched_by, dispatched_at, timeout_ms, deadline_at,
// completed_at (null while running), status, agents_targeted,
// agents_responded, agents_success, agents_failure, agents_outstanding,
// progress_pct}.
nlohmann::json to_json(const ExecutionRecord& record);
// {agent_id, state, error, updated_at}.
nlohmann::json to_json(const AgentExecutionState& state);
// {agent_id, execution_id, status, output, error, duration_ms, timestamp}.
nlohmann::json to_json(const ResponseRow& row);
// {group_value, count, aggregate_value (null when the group has no value)}.
nlohmann::json to_json(const AggregateGroup& group);
// {bundle_id, agent_id, owner, created_at, expected, received, succeeded,
// complete, steps: [{index, plugin, action, execution_id, state, status,
// output, error}]}; steps in request order.
nlohmann::json to_json(const BundleResult& bundle);
// {agent_id, quarantined, status ("active" | "released"), reason,
// quarantined_by, quarantined_at (null when not quarantined)}.
nlohmann::json to_json(const QuarantineStatus& status);
// {id, agent_id, action, reason, actor, at}.
nlohmann::json to_json(const QuarantineEvent& event);
// {seq, type, execution_id, agent_id?, agent_state?, error?, status,
// counts: {targeted, responded, success, failure, outstanding, progress_pct},
// at_ms}.
nlohmann::json to_json(const ExecutionEvent& event);

}  // namespace yuzu::execution
