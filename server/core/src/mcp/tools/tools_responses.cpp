// MCP tools over what agents answered: query_responses and
// aggregate_responses. Twins of GET /api/v1/responses and
// /api/v1/responses/aggregate. Rows of agents outside the caller's
// management groups (for Response:Read) are left out before the limit and
// before aggregation.
#include "execution_tool_support.hpp"
#include "fleet_tool_support.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/execution/execution_json.hpp"
#include "yuzu/execution/executions.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kResponseRead{Securable::kResponse, Operation::kRead};

const json kIdSchema = {{"type", "string"}, {"minLength", 1}, {"maxLength", 128}};
const json kStatusSchema = {{"type", "string"},
                            {"enum", {"success", "failure", "refused", "timeout"}}};
// execution_id or instruction_id (or both: execution_id wins).
const json kEitherId =
    json::array({{{"required", {"execution_id"}}}, {{"required", {"instruction_id"}}}});

struct Selection {
    std::string execution_id;
    std::string instruction_id;
    execution::AgentView view;
    // Whether what was asked for is settled: the execution is terminal, or
    // (by instruction id) no execution of that definition is still running.
    bool ready = true;
};

// Resolves the ids and the caller's view; NotFound for an execution the
// caller cannot see.
Result<Selection> select(const ExecutionToolDeps& deps, const ToolCall& call) {
    Selection s;
    s.execution_id = call.arguments.value("execution_id", "");
    s.instruction_id = call.arguments.value("instruction_id", "");
    if (!s.execution_id.empty()) {
        auto found = visible_execution(deps, call.principal, kResponseRead, s.execution_id);
        if (!found.ok()) return found.status();
        s.view = std::move(found->view);
        s.ready = execution::is_terminal_status(found->record.status);
        return s;
    }
    s.view = call.view;
    execution::ExecutionFilter running;
    running.definition_id = s.instruction_id;
    running.status = "running";
    running.limit = 1;
    auto page = deps.executions.tracker().list(running);
    if (!page.ok()) return page.status();
    s.ready = page->executions.empty();
    return s;
}

ToolSpec query_responses_tool(const ExecutionToolDeps& deps) {
    ToolSpec spec;
    spec.name = "query_responses";
    spec.title = "Query responses";
    spec.description =
        "What agents answered: one row per agent per execution with agent_id, execution_id, "
        "status (success, failure, refused, timeout), output (the plugin's structured result), "
        "error and timestamp. Select by execution_id (from execute_instruction) or "
        "instruction_id (a command_id or a definition id); execution_id wins when both are "
        "given. ready:false with retry_after_ms means more answers may still arrive.";
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"execution_id", kIdSchema},
                           {"instruction_id", kIdSchema},
                           {"agent_id", kAgentIdSchema},
                           {"status", kStatusSchema},
                           {"limit",
                            {{"type", "integer"},
                             {"minimum", 1},
                             {"maximum", execution::kMaxResponseLimit},
                             {"default", execution::kDefaultResponseLimit}}}}},
                         {"anyOf", kEitherId},
                         {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"rows", {{"type", "array"}}},
                            {"result_truncated_by_cap", {{"type", "boolean"}}},
                            {"ready", {{"type", "boolean"}}},
                            {"retry_after_ms", {{"type", "integer"}}}}},
                          {"required", {"rows", "result_truncated_by_cap", "ready"}}};
    spec.tier_key = kResponseRead;
    spec.access = ToolAccess{kResponseRead, AccessScope::kAgents, ""};
    spec.handler = [deps](const ToolCall& call) -> Result<json> {
        const json& args = call.arguments;
        auto selection = select(deps, call);
        if (!selection.ok()) {
            if (selection.status().code() == StatusCode::kNotFound) {
                deps.polls.count("query_responses", "not_found");
            }
            return selection.status();
        }
        execution::ResponseQuery q;
        q.execution_id = selection->execution_id;
        q.instruction_id = selection->instruction_id;
        q.agent_id = args.value("agent_id", "");
        q.status = args.value("status", "");
        q.only_agents = selection->view;
        q.limit = args.value("limit", execution::kDefaultResponseLimit);
        auto page = deps.executions.responses().query(q);
        if (!page.ok()) return page.status();
        json rows = json::array();
        for (const auto& row : page->rows) rows.push_back(execution::to_json(row));
        json out = {{"rows", std::move(rows)}, {"result_truncated_by_cap", page->truncated}};
        add_poll_verdict(out, deps.polls, "query_responses", selection->ready);
        return out;
    };
    return spec;
}

ToolSpec aggregate_responses_tool(const ExecutionToolDeps& deps) {
    ToolSpec spec;
    spec.name = "aggregate_responses";
    spec.title = "Aggregate responses";
    spec.description =
        "Groups agents' answers and counts or summarises them: group_by is agent_id, status or "
        "a top-level field of the output records (an output that is a list, such as "
        "process.list's, counts each element); aggregate is count, sum, avg, min or max over "
        "the numeric output field `field` (required unless count). Only agents in the caller's "
        "management groups are counted.";
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"execution_id", kIdSchema},
                           {"instruction_id", kIdSchema},
                           {"group_by", {{"type", "string"}, {"minLength", 1}, {"maxLength", 128}}},
                           {"aggregate",
                            {{"type", "string"},
                             {"enum", {"count", "sum", "avg", "min", "max"}},
                             {"default", "count"}}},
                           {"field", {{"type", "string"}, {"minLength", 1}, {"maxLength", 128}}},
                           {"status", kStatusSchema}}},
                         {"required", {"group_by"}},
                         {"anyOf", kEitherId},
                         {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"groups", {{"type", "array"}}},
                            {"responses_scanned", {{"type", "integer"}}},
                            {"records", {{"type", "integer"}}},
                            {"truncated", {{"type", "boolean"}}}}},
                          {"required", {"groups", "responses_scanned", "records", "truncated"}}};
    spec.tier_key = kResponseRead;
    spec.access = ToolAccess{kResponseRead, AccessScope::kAgents, ""};
    spec.handler = [deps](const ToolCall& call) -> Result<json> {
        const json& args = call.arguments;
        auto selection = select(deps, call);
        if (!selection.ok()) return selection.status();
        execution::AggregateQuery q;
        q.execution_id = selection->execution_id;
        q.instruction_id = selection->instruction_id;
        q.group_by = args.at("group_by").get<std::string>();
        const std::string fn = args.value("aggregate", "count");
        q.fn = execution::parse_aggregate_fn(fn).value_or(execution::AggregateFn::kCount);
        q.field = args.value("field", "");
        q.status = args.value("status", "");
        q.only_agents = selection->view;
        auto result = deps.executions.responses().aggregate(q);
        if (!result.ok()) return result.status();
        json groups = json::array();
        for (const auto& g : result->groups) groups.push_back(execution::to_json(g));
        json out = {{"groups", std::move(groups)},
                    {"group_by", q.group_by},
                    {"aggregate", fn},
                    {"responses_scanned", result->responses_scanned},
                    {"records", result->records},
                    {"truncated", result->truncated}};
        if (!q.field.empty()) out["field"] = q.field;
        return out;
    };
    return spec;
}

}  // namespace

Status register_response_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    auto d = execution_tool_deps(deps);
    if (!d) return Status::Ok();
    YUZU_RETURN_IF_ERROR(tools.add(query_responses_tool(*d)));
    return tools.add(aggregate_responses_tool(*d));
}

}  // namespace yuzu::mcp
