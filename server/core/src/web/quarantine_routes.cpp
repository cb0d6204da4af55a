// Quarantine REST routes on one agent: POST puts it in quarantine (it then
// refuses every instruction), DELETE releases it, GET shows the state and
// its history. POST and DELETE need Security:Execute on the agent (an MCP
// token cannot use them below the supervised tier, and the supervised tier
// needs the MCP approval flow: quarantine_device); GET needs Security:Read.
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

const Permission kExecute{Securable::kSecurity, Operation::kExecute};
const Permission kRead{Securable::kSecurity, Operation::kRead};

void write_quarantine(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                      const auth::Principal& who, const std::string& id, const std::string& action,
                      const Result<execution::QuarantineStatus>& done) {
    const Status st = done.ok() ? Status::Ok() : done.status();
    audit_request(ctx, req, res, &who, action, "agent", id, audit_result_for(st),
                  done.ok() ? done->reason : st.message());
    if (!done.ok()) {
        write_status(res, st);
        return;
    }
    http::write_json(res, 200, execution::to_json(*done));
}

void quarantine_agent(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                      const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!agent_permitted(ctx, req, res, who, kExecute, "agent.quarantine", id)) return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    std::string reason;
    if (!read_string(*body, "reason", reason, false, res)) return;
    write_quarantine(ctx, req, res, who, id, "agent.quarantine",
                     executions_of(ctx).quarantine().quarantine(id, reason, who.username));
}

void release_agent(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                   const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!agent_permitted(ctx, req, res, who, kExecute, "agent.release", id)) return;
    write_quarantine(ctx, req, res, who, id, "agent.release",
                     executions_of(ctx).quarantine().release(id, who.username));
}

void quarantine_state(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                      const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!agent_permitted(ctx, req, res, who, kRead, "agent.quarantine.get", id)) return;
    auto& service = executions_of(ctx).quarantine();
    auto status = service.status(id);
    if (!status.ok()) {
        write_status(res, status.status());
        return;
    }
    auto history = service.history(id);
    if (!history.ok()) {
        write_status(res, history.status());
        return;
    }
    json out = execution::to_json(*status);
    json events = json::array();
    for (const auto& e : *history) events.push_back(execution::to_json(e));
    out["history"] = std::move(events);
    http::write_json(res, 200, out);
}

}  // namespace

void register_quarantine_routes(http::HttpServer& server, const WebContext& ctx) {
    if (ctx.executions == nullptr || ctx.fleet == nullptr) return;
    const std::string path = std::string("/api/v1/agents/") + kAgentIdPattern + "/quarantine";
    const std::string route = "/api/v1/agents/{id}/quarantine";
    server.post(path, route, with_principal(ctx, quarantine_agent));
    server.del(path, route, with_principal(ctx, release_agent));
    server.get(path, route, with_principal(ctx, quarantine_state));
}

}  // namespace yuzu::web
