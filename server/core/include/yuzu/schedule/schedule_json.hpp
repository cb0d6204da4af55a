// The JSON of schedules, shared by the REST routes and the MCP tools so the
// two surfaces read and write one shape.
//
// A schedule reads:
//   {id, name, definition_id, scope, agent_ids (array or null), params,
//    frequency_type, run_at | interval_seconds | time_of_day [, day_of_week],
//    enabled, owner, created_at, updated_at, next_execution_at, last_run_at,
//    last_execution_id, run_count, last_error}
// Times are Unix seconds; only the frequency fields of its type are present.
//
// Bodies are strict: an unknown field, or a field of the wrong JSON type, is
// an InvalidArgument naming it, so a misspelt "interval" is never ignored.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "yuzu/common/status.hpp"
#include "yuzu/schedule/schedule.hpp"

namespace yuzu::schedule {

nlohmann::json to_json(const Schedule& s);

// A create body: name, definition_id and frequency_type required; scope,
// agent_ids, params, the frequency fields and enabled optional.
Result<ScheduleSpec> spec_from_json(const nlohmann::json& body);

// An update body: the create fields, all optional, at least one given.
Result<ScheduleChange> change_from_json(const nlohmann::json& body);

}  // namespace yuzu::schedule
