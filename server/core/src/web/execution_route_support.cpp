#include "execution_route_support.hpp"

#include <algorithm>
#include <cstdlib>

#include "route_registry.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/rbac.hpp"
#include "yuzu/auth/roles.hpp"
#include "yuzu/auth/tier_policy.hpp"
#include "yuzu/execution/definition_store.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/agent_visibility.hpp"
#include "yuzu/fleet/fleet.hpp"

namespace yuzu::web {

bool tier_permits(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const auth::Principal& who, auth::Permission what, const std::string& action,
                  const std::string& target_type, const std::string& target_id) {
    const std::string name = auth::permission_name(what);
    Status st = Status::Ok();
    if (!auth::tier_allows(who.mcp_tier, what.type, what.op)) {
        st = Status::PermissionDenied("permission denied: the '" + who.mcp_tier +
                                      "' MCP tier does not allow " + name);
    } else if (auth::requires_approval(who.mcp_tier, what.type, what.op)) {
        st = Status::PermissionDenied("permission denied: " + name +
                                      " needs human approval at the '" + who.mcp_tier +
                                      "' MCP tier; use the MCP approval flow");
    }
    if (st.ok()) return true;
    audit_request(ctx, req, res, &who, action, target_type, target_id, "denied", st.message());
    write_status(res, st);
    return false;
}

std::optional<execution::AgentView> view_or_error(const WebContext& ctx, httplib::Response& res,
                                                  const auth::Principal& who,
                                                  auth::Permission what) {
    auto view = execution::agent_view(ctx.identity.authorizer(), *ctx.fleet, who, what);
    if (!view.ok()) {
        write_status(res, view.status());
        return std::nullopt;
    }
    return std::move(view).value();
}

bool agent_permitted(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who, auth::Permission what, const std::string& action,
                     const std::string& agent_id) {
    if (!tier_permits(ctx, req, res, who, what, action, "agent", agent_id)) return false;
    const Status missing = Status::NotFound("agent not found: " + agent_id);
    auto visible = fleet::agent_visible(ctx.identity.authorizer(), who, what, agent_id);
    Status st = visible.ok() ? Status::Ok() : visible.status();
    if (st.ok() && !*visible) st = missing;
    if (st.ok()) {
        auto record = ctx.fleet->registry().get(agent_id);
        if (!record.ok()) {
            st = record.status().code() == StatusCode::kNotFound ? missing : record.status();
        }
    }
    if (st.ok()) return true;
    audit_request(ctx, req, res, &who, action, "agent", agent_id,
                  st.code() == StatusCode::kNotFound ? "failure" : audit_result_for(st),
                  st.message());
    write_status(res, st);
    return false;
}

Result<VisibleExecution> visible_execution(const WebContext& ctx, const auth::Principal& who,
                                           auth::Permission what, const std::string& execution_id) {
    const Status missing = Status::NotFound("execution not found: " + execution_id);
    auto& tracker = executions_of(ctx).tracker();
    auto record = tracker.get(execution_id);
    if (!record.ok()) {
        return record.status().code() == StatusCode::kNotFound ? missing : record.status();
    }
    auto agents = tracker.agent_states(execution_id);
    if (!agents.ok()) return agents.status();
    auto view = execution::agent_view(ctx.identity.authorizer(), *ctx.fleet, who, what);
    if (!view.ok()) return view.status();
    if (!execution::execution_visible(*record, *agents, who, *view)) return missing;
    VisibleExecution out;
    out.record = std::move(record).value();
    out.agents = execution::states_in_view(std::move(agents).value(), *view);
    out.view = std::move(view).value();
    return out;
}

Status check_definition_params(const WebContext& ctx, const std::string& plugin,
                               const std::string& action, const nlohmann::json& params,
                               std::string_view what) {
    auto definition = executions_of(ctx).definitions().find(plugin, action);
    if (!definition.ok()) {
        return definition.status().code() == StatusCode::kNotFound ? Status::Ok()
                                                                   : definition.status();
    }
    return ctx.executions->check_parameters(definition->parameter_schema_json, params, what);
}

std::optional<std::string> query_param(const httplib::Request& req, const char* name) {
    if (!req.has_param(name)) return std::nullopt;
    return req.get_param_value(name);
}

int64_t query_limit(const httplib::Request& req, httplib::Response& res, int64_t fallback,
                    int64_t max) {
    if (!req.has_param("limit")) return fallback;
    const std::string raw = req.get_param_value("limit");
    char* end = nullptr;
    const long long v = std::strtoll(raw.c_str(), &end, 10);
    if (raw.empty() || *end != '\0' || v < 1 || v > max) {
        http::write_error(res, 400, "limit must be an integer from 1 to " + std::to_string(max));
        return -1;
    }
    return v;
}

std::string lower_ascii(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) {
        return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    });
    return text;
}

bool is_administrator(const WebContext& ctx, const auth::Principal& who) {
    auto roles = ctx.identity.rbac().roles_of(who.username);
    if (!roles.ok()) return false;
    return std::find(roles->begin(), roles->end(), auth::kRoleAdministrator) != roles->end();
}

}  // namespace yuzu::web
