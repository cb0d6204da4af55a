// Execution REST routes: POST /api/v1/executions (the twin of MCP
// execute_instruction, same body), GET /api/v1/executions and
// GET /api/v1/executions/{id} with per-agent states.
//
// Dispatch reaches only agents on which the caller holds
// Execution:Execute; an explicit agent outside that view is refused as
// unknown. Each dispatch writes one audit row, execution.dispatch.
#include <string>
#include <vector>

#include "execution_route_support.hpp"
#include "route_registry.hpp"
#include "yuzu/access/dispatch_gate.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/execution/execution_json.hpp"
#include "yuzu/execution/executions.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kExecute{Securable::kExecution, Operation::kExecute};
const Permission kRead{Securable::kExecution, Operation::kRead};

// The body's target selection; writes 400 and answers nullopt when malformed.
std::optional<execution::TargetSelection> selection_from_body(const json& body,
                                                              httplib::Response& res) {
    execution::TargetSelection selection;
    if (!read_string(body, "scope", selection.scope, false, res)) return std::nullopt;
    auto it = body.find("agent_ids");
    if (it == body.end() || it->is_null()) return selection;
    if (!it->is_array() || it->empty()) {
        http::write_error(res, 400, "field 'agent_ids' must be a non-empty array of agent ids");
        return std::nullopt;
    }
    std::vector<std::string> ids;
    for (const auto& id : *it) {
        if (!id.is_string()) {
            http::write_error(res, 400, "field 'agent_ids' must list strings");
            return std::nullopt;
        }
        ids.push_back(id.get<std::string>());
    }
    selection.agent_ids = std::move(ids);
    return selection;
}

void dispatch_execution(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                        const auth::Principal& who) {
    const std::string action_name = "execution.dispatch";
    if (!tier_permits(ctx, req, res, who, kExecute, action_name, "execution", "")) return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    std::string plugin;
    std::string action;
    if (!read_string(*body, "plugin", plugin, true, res) ||
        !read_string(*body, "action", action, true, res))
        return;
    plugin = lower_ascii(plugin);
    action = lower_ascii(action);
    json params = json::object();
    if (auto it = body->find("params"); it != body->end() && !it->is_null()) {
        if (!it->is_object()) {
            http::write_error(res, 400, "field 'params' must be a JSON object");
            return;
        }
        params = *it;
    }
    auto selection = selection_from_body(*body, res);
    if (!selection) return;
    auto refuse = [&](const Status& st) {
        audit_request(ctx, req, res, &who, action_name, "execution", "", audit_result_for(st),
                      plugin + "." + action + ": " + st.message());
        write_status(res, st);
    };
    execution::DispatchSpec spec;
    spec.plugin = plugin;
    spec.action = action;
    spec.params_json = dump_json(params);
    auto targets = access::authorize_dispatch(ctx.identity, *ctx.fleet, executions_of(ctx), who,
                                              plugin, action, *selection);
    if (!targets.ok()) return refuse(targets.status());
    if (Status st = executions_of(ctx).tracker().check_dispatchable(spec); !st.ok()) {
        return refuse(st);
    }
    spec.agent_ids = targets->agent_ids;
    spec.dispatched_by = who.username;
    spec.scope_expression = targets->scope_expression;
    auto result = executions_of(ctx).tracker().dispatch(spec);
    if (!result.ok()) return refuse(result.status());
    audit_request(ctx, req, res, &who, action_name, "execution", result->execution_id,
                  result->agents_reached > 0 ? "success" : "failure",
                  result->plugin + "." + result->action + " command_id=" + result->command_id +
                      " execution_id=" + result->execution_id +
                      " agents_targeted=" + std::to_string(result->agents_targeted) +
                      " agents_reached=" + std::to_string(result->agents_reached) + " via=rest");
    http::write_json(res, 201, execution::to_json(*result));
}

void list_executions(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who) {
    if (!tier_permits(ctx, req, res, who, kRead, "execution.list", "execution", "")) return;
    const int64_t limit =
        query_limit(req, res, execution::kDefaultListLimit, execution::kMaxListLimit);
    if (limit < 0) return;
    execution::ExecutionFilter filter;
    filter.definition_id = query_param(req, "definition_id").value_or("");
    filter.status = query_param(req, "status").value_or("");
    filter.dispatched_by = query_param(req, "dispatched_by").value_or("");
    filter.cursor = query_param(req, "cursor").value_or("");
    filter.limit = static_cast<int>(limit);
    auto view = view_or_error(ctx, res, who, kRead);
    if (!view) return;
    auto& tracker = executions_of(ctx).tracker();
    auto page = tracker.list(filter);
    if (!page.ok()) {
        write_status(res, page.status());
        return;
    }
    json list = json::array();
    for (const auto& record : page->executions) {
        if (*view && record.dispatched_by != who.username) {
            auto agents = tracker.agent_states(record.execution_id);
            if (!agents.ok()) {
                write_status(res, agents.status());
                return;
            }
            if (!execution::execution_visible(record, *agents, who, *view)) continue;
        }
        list.push_back(execution::to_json(record));
    }
    http::write_json(res, 200, json{{"executions", list}, {"next_cursor", page->next_cursor}});
}

void get_execution(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                   const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!tier_permits(ctx, req, res, who, kRead, "execution.get", "execution", id)) return;
    auto found = visible_execution(ctx, who, kRead, id);
    if (!found.ok()) {
        write_status(res, found.status());
        return;
    }
    json out = execution::to_json(found->record);
    json agents = json::array();
    for (const auto& s : found->agents) agents.push_back(execution::to_json(s));
    out["agents"] = std::move(agents);
    http::write_json(res, 200, out);
}

}  // namespace

void register_execution_routes(http::HttpServer& server, const WebContext& ctx) {
    if (ctx.executions == nullptr || ctx.fleet == nullptr) return;
    server.post("/api/v1/executions", "/api/v1/executions",
                with_principal(ctx, dispatch_execution));
    server.get("/api/v1/executions", "/api/v1/executions", with_principal(ctx, list_executions));
    server.get(std::string("/api/v1/executions/") + kExecutionIdPattern, "/api/v1/executions/{id}",
               with_principal(ctx, get_execution));
}

}  // namespace yuzu::web
