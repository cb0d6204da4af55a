// POST /api/v1/rbac/check: "may I?" for the caller itself. It has no gate of
// its own because it only reports; the answer is access::answer_permission(),
// the same one check_permission gives over MCP.
#include <optional>
#include <string>

#include "route_registry.hpp"
#include "yuzu/access/permission_json.hpp"
#include "yuzu/auth/identity.hpp"

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
    auto answer = access::answer_permission(ctx.identity.authorizer(), who, *p, agent_id);
    if (!answer.ok()) {
        audit_request(ctx, req, res, &who, "rbac.check", "permission", permission,
                      audit_result_for(answer.status()), answer.status().message());
        write_status(res, answer.status());
        return;
    }
    audit_request(ctx, req, res, &who, "rbac.check", "permission", answer->permission, "success",
                  std::string("allowed=") + (answer->allowed ? "true" : "false") +
                      (answer->requires_approval ? " requires_approval=true" : "") +
                      (agent_id.empty() ? "" : " agent_id=" + agent_id));
    http::write_json(res, 200, access::to_json(*answer, who.username));
}

}  // namespace

void register_rbac_routes(http::HttpServer& server, const WebContext& ctx) {
    server.post("/api/v1/rbac/check", "/api/v1/rbac/check", with_principal(ctx, check));
}

}  // namespace yuzu::web
