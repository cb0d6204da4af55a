// Bundle REST routes: POST /api/v1/bundles (1–32 plugin actions on one
// agent, answered at once) and GET /api/v1/bundles/{id} (the collated
// result in request order). Twins of MCP execute_bundle and
// get_bundle_result. Each step writes its own audit row
// bundle.<plugin>.<action>; only the dispatcher or an administrator reads a
// bundle, anyone else gets the same 404 as for an unknown id.
#include <string>
#include <vector>

#include "execution_route_support.hpp"
#include "route_registry.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/execution/execution_json.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/fleet/agent_visibility.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kExecute{Securable::kExecution, Operation::kExecute};
const Permission kResponseRead{Securable::kResponse, Operation::kRead};

// The steps of a request body; writes 400 and answers nullopt when one is
// malformed (definitions and parameter schemas are the service's check).
std::optional<std::vector<execution::BundleStep>> steps_from_body(const json& body,
                                                                  httplib::Response& res) {
    auto it = body.find("steps");
    if (it == body.end() || !it->is_array() || it->empty() ||
        it->size() > execution::kMaxBundleSteps) {
        http::write_error(res, 400,
                          "field 'steps' must be an array of 1 to " +
                              std::to_string(execution::kMaxBundleSteps) +
                              " {plugin, action, params} objects");
        return std::nullopt;
    }
    std::vector<execution::BundleStep> steps;
    for (size_t i = 0; i < it->size(); ++i) {
        const json& step = (*it)[i];
        const std::string where = "steps[" + std::to_string(i) + "]";
        if (!step.is_object()) {
            http::write_error(res, 400, where + " must be an object");
            return std::nullopt;
        }
        execution::BundleStep s;
        if (!read_string(step, "plugin", s.plugin, true, res) ||
            !read_string(step, "action", s.action, true, res))
            return std::nullopt;
        s.plugin = lower_ascii(s.plugin);
        s.action = lower_ascii(s.action);
        json params = json::object();
        if (auto p = step.find("params"); p != step.end() && !p->is_null()) {
            if (!p->is_object()) {
                http::write_error(res, 400, where + ".params must be a JSON object");
                return std::nullopt;
            }
            params = *p;
        }
        s.params_json = dump_json(params);
        steps.push_back(std::move(s));
    }
    return steps;
}

void execute_bundle(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                    const auth::Principal& who) {
    auto body = parse_json_body(req, res);
    if (!body) return;
    std::string agent_id;
    if (!read_string(*body, "agent_id", agent_id, true, res)) return;
    if (!agent_permitted(ctx, req, res, who, kExecute, "bundle.dispatch", agent_id)) return;
    auto steps = steps_from_body(*body, res);
    if (!steps) return;
    execution::BundleRequest request;
    request.agent_id = agent_id;
    request.steps = std::move(*steps);
    request.requester = who.username;
    auto& bundles = executions_of(ctx).bundles();
    auto dispatched = bundles.execute(request);
    if (!dispatched.ok()) {
        audit_request(ctx, req, res, &who, "bundle.dispatch", "agent", agent_id,
                      audit_result_for(dispatched.status()), dispatched.status().message());
        write_status(res, dispatched.status());
        return;
    }
    // One audit row per step, with the execution it became.
    auto collated = bundles.get(dispatched->bundle_id, who.username, true);
    if (collated.ok()) {
        for (const auto& s : collated->steps) {
            const bool sent = s.state != "dispatch_failed";
            audit_request(ctx, req, res, &who, "bundle." + s.plugin + "." + s.action, "agent",
                          agent_id, sent ? "success" : "failure",
                          std::string(sent ? "dispatched" : "dispatch_failed") + " bundle_id=" +
                              dispatched->bundle_id + " step=" + std::to_string(s.index) +
                              " execution_id=" + s.execution_id +
                              (s.error.empty() ? "" : " error=" + s.error));
        }
    } else {
        audit_request(
            ctx, req, res, &who, "bundle.dispatch", "agent", agent_id, "error",
            "bundle_id=" + dispatched->bundle_id +
                " steps could not be read back for the audit: " + collated.status().message());
    }
    http::write_json(res, 201,
                     json{{"bundle_id", dispatched->bundle_id},
                          {"agent_id", dispatched->agent_id},
                          {"expected", dispatched->expected},
                          {"dispatched", dispatched->dispatched}});
}

void get_bundle(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!tier_permits(ctx, req, res, who, kResponseRead, "bundle.read", "bundle", id)) return;
    auto& bundles = executions_of(ctx).bundles();
    auto bundle = bundles.get(id, who.username, access::is_administrator(ctx.identity.rbac(), who));
    bool visible = bundle.ok();
    if (visible) {
        auto on_agent =
            fleet::agent_visible(ctx.identity.authorizer(), who, kResponseRead, bundle->agent_id);
        if (!on_agent.ok()) {
            write_status(res, on_agent.status());
            return;
        }
        visible = *on_agent;
    } else if (bundle.status().code() != StatusCode::kNotFound) {
        write_status(res, bundle.status());
        return;
    }
    if (!visible) {
        // Someone else's bundle answers like an unknown one; only the audit
        // trail says it exists.
        if (bundles.get(id, who.username, true).ok()) {
            audit_request(ctx, req, res, &who, "bundle.read", "bundle", id, "denied",
                          "not the bundle's owner");
        }
        write_status(res, Status::NotFound("bundle not found"));
        return;
    }
    json out = execution::to_json(*bundle);
    out["ready"] = bundle->complete;
    http::write_json(res, 200, out);
}

}  // namespace

void register_bundle_routes(http::HttpServer& server, const WebContext& ctx) {
    if (ctx.executions == nullptr || ctx.fleet == nullptr) return;
    server.post("/api/v1/bundles", "/api/v1/bundles", with_principal(ctx, execute_bundle));
    server.get("/api/v1/bundles/([A-Za-z0-9_-]{1,128})", "/api/v1/bundles/{id}",
               with_principal(ctx, get_bundle));
}

}  // namespace yuzu::web
