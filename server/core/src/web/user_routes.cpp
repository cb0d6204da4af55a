// Users: list, create, assign a global role, unlock (UserManagement).
#include <string>
#include <vector>

#include "route_registry.hpp"
#include "yuzu/auth/identity.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Securable;

constexpr char kUserPattern[] = "/api/v1/users/([a-z][a-z0-9._-]{1,63})";

void list_users(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, {Securable::kUserManagement, Operation::kRead}, "user.list",
                   "user", ""))
        return;
    auto users = ctx.identity.users().list_users();
    if (!users.ok()) {
        write_status(res, users.status());
        return;
    }
    nlohmann::json list = nlohmann::json::array();
    for (const auto& u : *users) {
        list.push_back({{"username", u.username},
                        {"roles", u.global_roles},
                        {"locked", u.locked},
                        {"created_at", u.created_at_ms / 1000}});
    }
    http::write_json(res, 200, nlohmann::json{{"users", list}});
}

void create_user(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, {Securable::kUserManagement, Operation::kWrite},
                   "user.create", "user", ""))
        return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    std::string username;
    std::string password;
    if (!read_string(*body, "username", username, true, res) ||
        !read_string(*body, "password", password, true, res))
        return;
    std::vector<std::string> roles;
    if (auto it = body->find("roles"); it != body->end() && !it->is_null()) {
        if (!it->is_array()) {
            http::write_error(res, 400, "field 'roles' must be an array of role names");
            return;
        }
        for (const auto& r : *it) {
            if (!r.is_string()) {
                http::write_error(res, 400, "field 'roles' must be an array of role names");
                return;
            }
            roles.push_back(r.get<std::string>());
        }
    }
    Status st = ctx.identity.users().create_user(username, password, roles);
    std::string role_list;
    for (const auto& r : roles) role_list += (role_list.empty() ? "" : ",") + r;
    audit_request(ctx, req, res, &who, "user.create", "user", username, audit_result_for(st),
                  st.ok() ? "roles=" + role_list : st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    http::write_json(res, 201, nlohmann::json{{"username", username}, {"roles", roles}});
}

void assign_role(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who) {
    const std::string username = req.matches[1];
    if (!permitted(ctx, req, res, who, {Securable::kUserManagement, Operation::kWrite},
                   "user.assign_role", "user", username))
        return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    std::string role;
    if (!read_string(*body, "role", role, true, res)) return;
    Status st = ctx.identity.rbac().assign_global_role(username, role);
    audit_request(ctx, req, res, &who, "user.assign_role", "user", username, audit_result_for(st),
                  st.ok() ? "role=" + role : st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

void revoke_role(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who) {
    const std::string username = req.matches[1];
    const std::string role = req.matches[2];
    if (!permitted(ctx, req, res, who, {Securable::kUserManagement, Operation::kWrite},
                   "user.revoke_role", "user", username))
        return;
    Status st = ctx.identity.rbac().revoke_global_role(username, role);
    audit_request(ctx, req, res, &who, "user.revoke_role", "user", username, audit_result_for(st),
                  st.ok() ? "role=" + role : st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

void unlock_user(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who) {
    const std::string username = req.matches[1];
    if (!permitted(ctx, req, res, who, {Securable::kUserManagement, Operation::kWrite},
                   "user.unlock", "user", username))
        return;
    Status st = ctx.identity.users().unlock(username);
    audit_request(ctx, req, res, &who, "user.unlock", "user", username, audit_result_for(st),
                  st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

}  // namespace

void register_user_routes(http::HttpServer& server, const WebContext& ctx) {
    const std::string one = kUserPattern;
    server.get("/api/v1/users", "/api/v1/users", with_principal(ctx, list_users));
    server.post("/api/v1/users", "/api/v1/users", with_principal(ctx, create_user));
    server.post(one + "/roles", "/api/v1/users/{name}/roles", with_principal(ctx, assign_role));
    server.del(one + "/roles/([A-Za-z0-9_-]{1,64})", "/api/v1/users/{name}/roles/{role}",
               with_principal(ctx, revoke_role));
    server.post(one + "/unlock", "/api/v1/users/{name}/unlock", with_principal(ctx, unlock_user));
}

}  // namespace yuzu::web
