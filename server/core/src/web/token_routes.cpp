// API and MCP tokens: list, create, revoke, rotate, confirm rotation. A
// caller sees and changes only their own tokens; a principal holding
// UserManagement:Write may also revoke other users' tokens.
#include <string>

#include "route_registry.hpp"
#include "yuzu/access/permission_check.hpp"
#include "yuzu/auth/auth_json.hpp"
#include "yuzu/auth/identity.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;

constexpr char kTokenIdPattern[] = "([0-9a-f]{24})";

void list_tokens(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, {Securable::kApiToken, Operation::kRead}, "token.list",
                   "api_token", ""))
        return;
    auto tokens = ctx.identity.tokens().list(who.username);
    if (!tokens.ok()) {
        write_status(res, tokens.status());
        return;
    }
    nlohmann::json list = nlohmann::json::array();
    for (const auto& t : *tokens) list.push_back(auth::to_json(t));
    http::write_json(res, 200, nlohmann::json{{"tokens", list}});
}

void create_token(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, {Securable::kApiToken, Operation::kWrite}, "token.create",
                   "api_token", ""))
        return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    std::string name;
    std::string tier;
    int64_t expires_at = 0;
    if (!read_string(*body, "name", name, true, res) ||
        !read_string(*body, "mcp_tier", tier, false, res) ||
        !read_int(*body, "expires_at", expires_at, false, res))
        return;
    auto created = ctx.identity.tokens().create(who.username, name, tier, expires_at);
    if (!created.ok()) {
        audit_request(ctx, req, res, &who, "token.create", "api_token", "",
                      audit_result_for(created.status()), created.status().message());
        write_status(res, created.status());
        return;
    }
    audit_request(ctx, req, res, &who, "token.create", "api_token", created->info.id, "success",
                  "name=" + name + " mcp_tier=" + tier);
    nlohmann::json out = {{"id", created->info.id},
                          {"token", created->secret},
                          {"name", created->info.name},
                          {"mcp_tier", created->info.mcp_tier},
                          {"expires_at", created->info.expires_at_s}};
    http::write_json(res, 201, out);
}

void revoke_token(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, {Securable::kApiToken, Operation::kDelete}, "token.revoke",
                   "api_token", id))
        return;
    const bool admin =
        require_permission(ctx, who, {Securable::kUserManagement, Operation::kWrite}).ok();
    Status st = ctx.identity.tokens().revoke(id, who.username, admin);
    audit_request(ctx, req, res, &who, "token.revoke", "api_token", id, audit_result_for(st),
                  st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

void rotate_token(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, {Securable::kApiToken, Operation::kRotate}, "token.rotate",
                   "api_token", id))
        return;
    if (Status own = access::require_mcp_token_acts_on_itself(who, id); !own.ok()) {
        audit_request(ctx, req, res, &who, "token.rotate", "api_token", id, "denied",
                      own.message());
        write_status(res, own);
        return;
    }
    auto rotated = ctx.identity.tokens().rotate(id, who.username);
    audit_request(ctx, req, res, &who, "token.rotate", "api_token", id,
                  audit_result_for(rotated.ok() ? Status::Ok() : rotated.status()),
                  rotated.ok() ? "" : rotated.status().message());
    if (!rotated.ok()) {
        write_status(res, rotated.status());
        return;
    }
    http::write_json(res, 200,
                     nlohmann::json{{"id", rotated->info.id}, {"token", rotated->secret}});
}

void confirm_rotation(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                      const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, {Securable::kApiToken, Operation::kRotate},
                   "token.confirm_rotation", "api_token", id))
        return;
    if (Status own = access::require_mcp_token_acts_on_itself(who, id); !own.ok()) {
        audit_request(ctx, req, res, &who, "token.confirm_rotation", "api_token", id, "denied",
                      own.message());
        write_status(res, own);
        return;
    }
    Status st = ctx.identity.tokens().confirm_rotation(id, who.username);
    audit_request(ctx, req, res, &who, "token.confirm_rotation", "api_token", id,
                  audit_result_for(st), st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

}  // namespace

void register_token_routes(http::HttpServer& server, const WebContext& ctx) {
    const std::string one = std::string("/api/v1/tokens/") + kTokenIdPattern;
    server.get("/api/v1/tokens", "/api/v1/tokens", with_principal(ctx, list_tokens));
    server.post("/api/v1/tokens", "/api/v1/tokens", with_principal(ctx, create_token));
    server.del(one, "/api/v1/tokens/{id}", with_principal(ctx, revoke_token));
    server.post(one + "/rotate", "/api/v1/tokens/{id}/rotate", with_principal(ctx, rotate_token));
    server.post(one + "/confirm-rotation", "/api/v1/tokens/{id}/confirm-rotation",
                with_principal(ctx, confirm_rotation));
}

}  // namespace yuzu::web
