// Response REST routes: GET /api/v1/responses (rows per agent per
// execution) and GET /api/v1/responses/aggregate. Twins of MCP
// query_responses and aggregate_responses: rows of agents outside the
// caller's management groups (for Response:Read) are left out before the
// limit and before aggregation, and an execution the caller cannot see
// answers 404 like an unknown one.
#include <string>

#include "execution_route_support.hpp"
#include "route_registry.hpp"
#include "yuzu/execution/execution_json.hpp"
#include "yuzu/execution/executions.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kRead{Securable::kResponse, Operation::kRead};

struct Selection {
    std::string execution_id;
    std::string instruction_id;
    execution::AgentView view;
    bool ready = true;  // the execution is terminal (always true by instruction id)
};

// ?execution_id= or ?instruction_id=, and the caller's view; writes the
// error and answers nullopt on failure.
std::optional<Selection> select(const WebContext& ctx, const httplib::Request& req,
                                httplib::Response& res, const auth::Principal& who) {
    Selection s;
    s.execution_id = query_param(req, "execution_id").value_or("");
    s.instruction_id = query_param(req, "instruction_id").value_or("");
    if (s.execution_id.empty() && s.instruction_id.empty()) {
        http::write_error(res, 400, "give execution_id or instruction_id");
        return std::nullopt;
    }
    if (!s.execution_id.empty()) {
        auto found = visible_execution(ctx, who, kRead, s.execution_id);
        if (!found.ok()) {
            write_status(res, found.status());
            return std::nullopt;
        }
        s.view = std::move(found->view);
        s.ready = execution::is_terminal_status(found->record.status);
        return s;
    }
    auto view = view_or_error(ctx, res, who, kRead);
    if (!view) return std::nullopt;
    s.view = std::move(*view);
    return s;
}

void query_responses(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who) {
    if (!tier_permits(ctx, req, res, who, kRead, "response.query", "execution", "")) return;
    const int64_t limit =
        query_limit(req, res, execution::kDefaultResponseLimit, execution::kMaxResponseLimit);
    if (limit < 0) return;
    auto selection = select(ctx, req, res, who);
    if (!selection) return;
    execution::ResponseQuery q;
    q.execution_id = selection->execution_id;
    q.instruction_id = selection->instruction_id;
    q.agent_id = query_param(req, "agent_id").value_or("");
    q.status = query_param(req, "status").value_or("");
    q.only_agents = selection->view;
    q.limit = limit;
    auto page = executions_of(ctx).responses().query(q);
    if (!page.ok()) {
        write_status(res, page.status());
        return;
    }
    json rows = json::array();
    for (const auto& row : page->rows) rows.push_back(execution::to_json(row));
    http::write_json(
        res, 200,
        json{{"rows", rows}, {"truncated", page->truncated}, {"ready", selection->ready}});
}

void aggregate_responses(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                         const auth::Principal& who) {
    if (!tier_permits(ctx, req, res, who, kRead, "response.aggregate", "execution", "")) return;
    const std::string fn = query_param(req, "aggregate").value_or("count");
    auto parsed_fn = execution::parse_aggregate_fn(fn);
    if (!parsed_fn) {
        http::write_error(res, 400, "aggregate must be count, sum, avg, min or max");
        return;
    }
    auto selection = select(ctx, req, res, who);
    if (!selection) return;
    execution::AggregateQuery q;
    q.execution_id = selection->execution_id;
    q.instruction_id = selection->instruction_id;
    q.group_by = query_param(req, "group_by").value_or("");
    q.fn = *parsed_fn;
    q.field = query_param(req, "field").value_or("");
    q.status = query_param(req, "status").value_or("");
    q.only_agents = selection->view;
    auto result = executions_of(ctx).responses().aggregate(q);
    if (!result.ok()) {
        write_status(res, result.status());
        return;
    }
    json groups = json::array();
    for (const auto& g : result->groups) groups.push_back(execution::to_json(g));
    json out = {{"groups", groups},
                {"group_by", q.group_by},
                {"aggregate", fn},
                {"responses_scanned", result->responses_scanned},
                {"records", result->records},
                {"truncated", result->truncated}};
    if (!q.field.empty()) out["field"] = q.field;
    http::write_json(res, 200, out);
}

}  // namespace

void register_response_routes(http::HttpServer& server, const WebContext& ctx) {
    if (ctx.executions == nullptr || ctx.fleet == nullptr) return;
    server.get("/api/v1/responses", "/api/v1/responses", with_principal(ctx, query_responses));
    server.get("/api/v1/responses/aggregate", "/api/v1/responses/aggregate",
               with_principal(ctx, aggregate_responses));
}

}  // namespace yuzu::web
