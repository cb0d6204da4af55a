#include "yuzu/execution/execution_json.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include "execution/json_text.hpp"

namespace yuzu::execution {
namespace {

using nlohmann::json;

json seconds_or_null(int64_t ms) {
    return ms > 0 ? json(ms / 1000) : json(nullptr);
}

json counts_json(const ExecutionCounts& c) {
    return {{"targeted", c.targeted},       {"responded", c.responded},
            {"success", c.success},         {"failure", c.failure},
            {"outstanding", c.outstanding}, {"progress_pct", c.progress_pct}};
}

}  // namespace

json to_json(const DispatchResult& r) {
    json out = {{"execution_id", r.execution_id},
                {"command_id", r.command_id},
                {"definition_id", r.definition_id},
                {"plugin", r.plugin},
                {"action", r.action},
                {"agents_targeted", r.agents_targeted},
                {"agents_reached", r.agents_reached},
                {"agents_offline", r.agents_offline},
                {"agents_dispatch_failed", r.agents_dispatch_failed},
                {"status", r.status}};
    if (r.agents_reached == 0) {
        out["status"] = "no_agents_reached";
        out["execution_status"] = r.status;
        out["message"] = r.agents_targeted == 0
                             ? "no agent matched the request among those the caller may run "
                               "instructions on"
                             : "none of the targeted agents was online and reachable";
    }
    return out;
}

json to_json(const InstructionDefinition& d) {
    return {{"id", d.id},
            {"name", d.name},
            {"version", d.version},
            {"type", d.type},
            {"plugin", d.plugin},
            {"action", d.action},
            {"description", d.description},
            {"approval_mode", d.approval_mode},
            {"destructive", d.destructive},
            {"enabled", d.enabled},
            {"builtin", d.builtin},
            {"created_at", d.created_at_ms / 1000},
            {"updated_at", d.updated_at_ms / 1000}};
}

json definition_details_json(const InstructionDefinition& d) {
    json out = to_json(d);
    out["parameter_schema"] = parse_stored(d.parameter_schema_json);
    out["result_columns"] = parse_stored(d.result_columns_json);
    return out;
}

json to_json(const ExecutionRecord& r) {
    return {{"execution_id", r.execution_id},
            {"command_id", r.command_id},
            {"definition_id", r.definition_id},
            {"plugin", r.plugin},
            {"action", r.action},
            {"params", parse_stored(r.params_json)},
            {"scope_expression", r.scope_expression},
            {"dispatched_by", r.dispatched_by},
            {"dispatched_at", r.dispatched_at_ms / 1000},
            {"timeout_ms", r.timeout_ms},
            {"deadline_at", r.deadline_ms / 1000},
            {"completed_at", seconds_or_null(r.completed_at_ms)},
            {"status", r.status},
            {"agents_targeted", r.counts.targeted},
            {"agents_responded", r.counts.responded},
            {"agents_success", r.counts.success},
            {"agents_failure", r.counts.failure},
            {"agents_outstanding", r.counts.outstanding},
            {"progress_pct", r.counts.progress_pct}};
}

json to_json(const AgentExecutionState& s) {
    return {{"agent_id", s.agent_id},
            {"state", s.state},
            {"error", s.error},
            {"updated_at", s.updated_at_ms / 1000}};
}

json to_json(const ResponseRow& r) {
    return {{"agent_id", r.agent_id},
            {"execution_id", r.execution_id},
            {"status", r.status},
            {"output", parse_stored(r.output_json)},
            {"error", r.error},
            {"duration_ms", r.duration_ms},
            {"timestamp", r.timestamp_ms / 1000}};
}

json to_json(const AggregateGroup& g) {
    return {{"group_value", g.group_value},
            {"count", g.count},
            {"aggregate_value", g.value ? json(*g.value) : json(nullptr)}};
}

json to_json(const BundleResult& b) {
    json steps = json::array();
    for (const auto& s : b.steps) {
        steps.push_back({{"index", s.index},
                         {"plugin", s.plugin},
                         {"action", s.action},
                         {"execution_id", s.execution_id},
                         {"state", s.state},
                         {"status", s.status},
                         {"output", parse_stored(s.output_json)},
                         {"error", s.error}});
    }
    return {{"bundle_id", b.bundle_id}, {"agent_id", b.agent_id},
            {"owner", b.owner},         {"created_at", b.created_at_ms / 1000},
            {"expected", b.expected},   {"received", b.received},
            {"succeeded", b.succeeded}, {"complete", b.complete},
            {"steps", std::move(steps)}};
}

json to_json(const QuarantineStatus& q) {
    return {{"agent_id", q.agent_id},
            {"quarantined", q.quarantined},
            {"status", q.quarantined ? "active" : "released"},
            {"reason", q.reason},
            {"quarantined_by", q.quarantined_by},
            {"quarantined_at", q.quarantined ? seconds_or_null(q.quarantined_at_ms) : json()}};
}

json to_json(const QuarantineEvent& e) {
    return {{"id", e.id},         {"agent_id", e.agent_id}, {"action", e.action},
            {"reason", e.reason}, {"actor", e.actor},       {"at", e.at_ms / 1000}};
}

json to_json(const ExecutionEvent& e) {
    json out = {{"seq", e.seq},
                {"type", std::string(event_type_name(e.type))},
                {"execution_id", e.execution_id},
                {"status", e.status},
                {"counts", counts_json(e.counts)},
                {"at_ms", e.at_ms}};
    if (!e.agent_id.empty()) out["agent_id"] = e.agent_id;
    if (!e.agent_state.empty()) out["agent_state"] = e.agent_state;
    if (!e.error.empty()) out["error"] = e.error;
    return out;
}

}  // namespace yuzu::execution
