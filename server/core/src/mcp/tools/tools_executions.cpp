// MCP tools over executions: execute_instruction, get_execution_status and
// list_executions. Twins of POST /api/v1/executions, GET
// /api/v1/executions/{id} and GET /api/v1/executions.
//
// execute_instruction's tier key is Execution:Execute: the operator tier
// runs it at once, the supervised tier through the approval gate. RBAC is
// per agent: it reaches only agents on which the caller holds
// Execution:Execute, and an explicit agent outside that view is refused as
// unknown.
#include <charconv>

#include "execution_tool_support.hpp"
#include "fleet_tool_support.hpp"
#include "yuzu/access/dispatch_gate.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/execution/execution_json.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/mcp/bridge/call_stream.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kExecute{Securable::kExecution, Operation::kExecute};
const Permission kExecutionRead{Securable::kExecution, Operation::kRead};

const json kNameSchema = {{"type", "string"}, {"pattern", "^[A-Za-z0-9_]{1,64}$"}};
const json kExecutionIdSchema = {{"type", "string"},
                                 {"pattern", "^[0-9a-f]{32}$"},
                                 {"description", "execution id (32 lowercase hex)"}};

// execute_instruction's arguments as a dispatch (no targets resolved yet).
struct DispatchArguments {
    execution::DispatchSpec spec;
    execution::TargetSelection selection;
};

DispatchArguments dispatch_arguments(const json& args) {
    DispatchArguments d;
    d.spec.plugin = lower_ascii(args.at("plugin").get<std::string>());
    d.spec.action = lower_ascii(args.at("action").get<std::string>());
    d.spec.params_json = dump_json(args.value("params", json::object()));
    d.selection.scope = args.value("scope", "");
    if (args.contains("agent_ids")) {
        d.selection.agent_ids = args["agent_ids"].get<std::vector<std::string>>();
    }
    return d;
}

ToolSpec execute_instruction_tool(const ExecutionToolDeps& deps) {
    ToolSpec spec;
    spec.name = "execute_instruction";
    spec.title = "Run an instruction on agents";
    spec.description =
        "Runs plugin.action (e.g. plugin os, action info) on agents and returns at once with "
        "execution_id and command_id; poll get_execution_status and query_responses for the "
        "results. Targets: agent_ids, or a scope expression (see preview_scope_targets), or "
        "neither for every agent the caller may run instructions on. params must match the "
        "definition's parameter_schema (get_definition). Offline agents are recorded as offline, "
        "not waited for. Reaching no agent is a normal result with status no_agents_reached. "
        "With _meta.progressToken, notifications/progress count agents settled of agents "
        "targeted; with Accept: text/event-stream as well, the response is a stream that ends "
        "with this result once the execution completes.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"plugin", kNameSchema},
          {"action", kNameSchema},
          {"params",
           {{"type", "object"},
            {"maxProperties", static_cast<int>(execution::kMaxParams)},
            {"description", "the instruction's parameters, typed as its parameter_schema says"}}},
          {"scope",
           {{"type", "string"},
            {"minLength", 1},
            {"maxLength", 4096},
            {"description", "__all__ or a scope expression, e.g. os = \"linux\""}}},
          {"agent_ids",
           {{"type", "array"}, {"items", kAgentIdSchema}, {"minItems", 1}, {"maxItems", 10000}}}}},
        {"required", {"plugin", "action"}},
        {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties",
         {{"execution_id", {{"type", "string"}}},
          {"command_id", {{"type", "string"}}},
          {"agents_reached", {{"type", "integer"}}},
          {"agents_targeted", {{"type", "integer"}}},
          {"plugin", {{"type", "string"}}},
          {"action", {{"type", "string"}}},
          {"status", {{"type", "string"}}}}},
        {"required", {"execution_id", "command_id", "agents_reached", "plugin", "action"}}};
    spec.annotations.read_only = false;
    spec.annotations.destructive = true;
    spec.annotations.idempotent = false;
    spec.reports_progress = true;
    spec.tier_key = kExecute;
    spec.access = ToolAccess{kExecute, AccessScope::kView, ""};
    // Before the approval gate (nothing is minted for a call that cannot
    // run): the definition and its parameter schema, then the seed's
    // pre-dispatch gates (dispatch authorization, destructive targeting).
    spec.precheck = [deps](const ToolCall& call) -> Status {
        const DispatchArguments d = dispatch_arguments(call.arguments);
        // The caller's reach first, so one who may act on no agent learns
        // nothing about the instruction.
        auto targets =
            access::authorize_dispatch(deps.identity, deps.fleet, deps.executions, call.principal,
                                       d.spec.plugin, d.spec.action, d.selection);
        if (!targets.ok()) return targets.status();
        return as_argument_error(deps.executions.tracker().check_dispatchable(d.spec));
    };
    spec.handler = [deps](const ToolCall& call) -> Result<json> {
        DispatchArguments d = dispatch_arguments(call.arguments);
        // The backstop: the same gates again, on the state as it is now.
        auto targets =
            access::authorize_dispatch(deps.identity, deps.fleet, deps.executions, call.principal,
                                       d.spec.plugin, d.spec.action, d.selection);
        if (!targets.ok()) return targets.status();
        execution::DispatchSpec dispatch = std::move(d.spec);
        dispatch.agent_ids = targets->agent_ids;
        dispatch.dispatched_by = call.principal.username;
        dispatch.scope_expression = targets->scope_expression;
        auto result = deps.executions.tracker().dispatch(dispatch);
        if (!result.ok()) return result.status();
        audit_dispatch(deps.audit, call, *result);
        if (call.stream) call.stream->follow({result->execution_id});
        return execution::to_json(*result);
    };
    return spec;
}

// get_execution_status lists this many agents unless asked for another
// page size: an answer for 10,000 agents would be 1.5 MB on every poll.
constexpr int kDefaultAgentsListed = 100;
constexpr int kMaxAgentsListed = 1000;

// agents_cursor: how many of the agents the caller can see came before the
// next page (what agents_next_cursor said).
Result<size_t> parse_agents_cursor(const json& arguments) {
    if (!arguments.contains("agents_cursor")) return size_t{0};
    const std::string& text = arguments.at("agents_cursor").get_ref<const std::string&>();
    size_t skip = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), skip);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
        return Status::InvalidArgument(
            "agents_cursor is malformed; pass agents_next_cursor as returned");
    }
    return skip;
}

ToolSpec get_execution_status_tool(const ExecutionToolDeps& deps) {
    ToolSpec spec;
    spec.name = "get_execution_status";
    spec.title = "Execution status";
    spec.description =
        "Progress of one execution: status (running, succeeded, completed_with_errors, failed, "
        "cancelled), how many agents were targeted, responded, succeeded and failed, and the "
        "states of its agents in dispatch order (dispatched, responded, failed, refused, "
        "timed_out, offline, dispatch_failed), agents_limit at a time (default 100); pass "
        "agents_next_cursor back as agents_cursor for the next ones. While it runs the answer "
        "has ready:false and retry_after_ms: call again after that long.";
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"execution_id", kExecutionIdSchema},
                           {"agents_limit",
                            {{"type", "integer"},
                             {"minimum", 0},
                             {"maximum", kMaxAgentsListed},
                             {"default", kDefaultAgentsListed},
                             {"description", "how many agent states to list (0: counts only)"}}},
                           {"agents_cursor", {{"type", "string"}, {"pattern", "^[0-9]{1,9}$"}}}}},
                         {"required", {"execution_id"}},
                         {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties",
         {{"execution_id", {{"type", "string"}}},
          {"status", {{"type", "string"}}},
          {"agents_targeted", {{"type", "integer"}}},
          {"agents_responded", {{"type", "integer"}}},
          {"agents_success", {{"type", "integer"}}},
          {"agents_failure", {{"type", "integer"}}},
          {"progress_pct", {{"type", "integer"}}},
          {"agents", {{"type", "array"}}},
          {"agents_next_cursor", {{"type", "string"}}},
          {"ready", {{"type", "boolean"}}},
          {"retry_after_ms", {{"type", "integer"}}}}},
        {"required",
         {"execution_id", "status", "agents_targeted", "agents_responded", "agents_success",
          "agents_failure", "progress_pct", "agents", "ready"}}};
    spec.tier_key = kExecutionRead;
    spec.access = ToolAccess{kExecutionRead, AccessScope::kAgents, ""};
    spec.handler = [deps](const ToolCall& call) -> Result<json> {
        const std::string id = call.arguments.at("execution_id").get<std::string>();
        auto skip = parse_agents_cursor(call.arguments);
        if (!skip.ok()) return skip.status();
        const access::AgentPage page{
            *skip, static_cast<size_t>(call.arguments.value("agents_limit", kDefaultAgentsListed))};
        auto found = visible_execution(deps, call.principal, kExecutionRead, id, page);
        if (!found.ok()) {
            if (found.status().code() == StatusCode::kNotFound) {
                deps.polls.count("get_execution_status", "not_found");
            }
            return found.status();
        }
        json out = execution::to_json(found->record);
        json agents = json::array();
        for (const auto& s : found->agents) agents.push_back(execution::to_json(s));
        out["agents"] = std::move(agents);
        if (found->more_agents && !found->agents.empty()) {
            out["agents_next_cursor"] = std::to_string(page.skip + found->agents.size());
        }
        add_poll_verdict(out, deps.polls, "get_execution_status",
                         execution::is_terminal_status(found->record.status));
        return out;
    };
    return spec;
}

ToolSpec list_executions_tool(const ExecutionToolDeps& deps) {
    ToolSpec spec;
    spec.name = "list_executions";
    spec.title = "List executions";
    spec.description =
        "Executions newest first, optionally by definition, status or dispatcher; only those the "
        "caller can see (it dispatched them, or they touched agents in its management groups). "
        "Pass next_cursor back as cursor for the next page.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"definition_id", {{"type", "string"}, {"minLength", 1}, {"maxLength", 128}}},
          {"status",
           {{"type", "string"},
            {"enum", {"running", "succeeded", "completed_with_errors", "failed", "cancelled"}}}},
          {"dispatched_by", {{"type", "string"}, {"minLength", 1}, {"maxLength", 256}}},
          {"limit",
           {{"type", "integer"},
            {"minimum", 1},
            {"maximum", execution::kMaxListLimit},
            {"default", execution::kDefaultListLimit}}},
          {"cursor", {{"type", "string"}, {"maxLength", 256}}}}},
        {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties",
         {{"executions", {{"type", "array"}}}, {"next_cursor", {{"type", "string"}}}}},
        {"required", {"executions", "next_cursor"}}};
    spec.tier_key = kExecutionRead;
    spec.access = ToolAccess{kExecutionRead, AccessScope::kAgents, ""};
    spec.handler = [deps](const ToolCall& call) -> Result<json> {
        const json& args = call.arguments;
        execution::ExecutionFilter filter;
        filter.definition_id = args.value("definition_id", "");
        filter.status = args.value("status", "");
        filter.dispatched_by = args.value("dispatched_by", "");
        filter.limit = args.value("limit", execution::kDefaultListLimit);
        filter.cursor = args.value("cursor", "");
        const auto* view = &call.view;
        auto page = deps.executions.tracker().list(filter);
        if (!page.ok()) return page.status();
        json list = json::array();
        for (const auto& record : page->executions) {
            if (*view && record.dispatched_by != call.principal.username) {
                auto agents = deps.executions.tracker().agent_states(record.execution_id);
                if (!agents.ok()) return agents.status();
                if (!execution::execution_visible(record, *agents, call.principal, *view)) {
                    continue;
                }
            }
            list.push_back(execution::to_json(record));
        }
        return json{{"executions", std::move(list)}, {"next_cursor", page->next_cursor}};
    };
    return spec;
}

}  // namespace

Status register_execution_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    auto d = execution_tool_deps(deps);
    if (!d) return Status::Ok();
    YUZU_RETURN_IF_ERROR(tools.add(execute_instruction_tool(*d)));
    YUZU_RETURN_IF_ERROR(tools.add(get_execution_status_tool(*d)));
    return tools.add(list_executions_tool(*d));
}

}  // namespace yuzu::mcp
