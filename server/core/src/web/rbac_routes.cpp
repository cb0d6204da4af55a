// POST /api/v1/rbac/check: "may I?" for the caller itself. It has no gate of
// its own because it only reports; the answer applies the same tier rules as
// require_permission(), so an MCP token learns what its tier really allows.
#include <optional>
#include <string>

#include "route_registry.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/tier_policy.hpp"

namespace yuzu::web {
namespace {

void check(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
           const auth::Principal& who) {
    auto body = parse_json_body(req, res);
    if (!body) return;
    std::string permission;
    std::string securable;
    std::string operation;
    std::string agent_id;
    if (!read_string(*body, "permission", permission, false, res) ||
        !read_string(*body, "securable", securable, false, res) ||
        !read_string(*body, "operation", operation, false, res) ||
        !read_string(*body, "agent_id", agent_id, false, res))
        return;
    if (permission.empty()) permission = securable + ":" + operation;
    const std::optional<auth::Permission> p = auth::parse_permission(permission);
    if (!p) {
        http::write_error(res, 400,
                          "unknown permission '" + permission +
                              "': give \"permission\":\"Type:Op\" or \"securable\" and "
                              "\"operation\"");
        return;
    }
    const bool tier_ok = auth::tier_allows(who.mcp_tier, p->type, p->op) &&
                         !auth::requires_approval(who.mcp_tier, p->type, p->op);
    Result<bool> rbac_ok = agent_id.empty()
                               ? ctx.identity.authorizer().allowed(who, *p)
                               : ctx.identity.authorizer().allowed_on_agent(who, *p, agent_id);
    if (!rbac_ok.ok()) {
        audit_request(ctx, req, res, &who, "rbac.check", "permission", permission, "error",
                      rbac_ok.status().message());
        write_status(res, rbac_ok.status());
        return;
    }
    const bool allowed = tier_ok && *rbac_ok;
    const std::string name = auth::permission_name(*p);
    audit_request(ctx, req, res, &who, "rbac.check", "permission", name, "success",
                  std::string("allowed=") + (allowed ? "true" : "false") +
                      (agent_id.empty() ? "" : " agent_id=" + agent_id));
    http::write_json(res, 200, nlohmann::json{{"allowed", allowed}, {"permission", name}}.dump());
}

}  // namespace

void register_rbac_routes(http::HttpServer& server, const WebContext& ctx) {
    server.post("/api/v1/rbac/check", "/api/v1/rbac/check", with_principal(ctx, check));
}

}  // namespace yuzu::web
