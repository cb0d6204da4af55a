// Management groups: create, list, get, update, add a member, list and
// assign group-scoped roles (ManagementGroup).
#include <string>

#include "route_registry.hpp"
#include "yuzu/access/group_authority.hpp"
#include "yuzu/access/permission_check.hpp"
#include "yuzu/auth/auth_json.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/tier_policy.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Securable;

constexpr char kGroupPattern[] = "/api/v1/management-groups/([0-9a-f]{12})";
constexpr char kTarget[] = "management_group";

void create_group(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, {Securable::kManagementGroup, Operation::kWrite},
                   "mgmt_group.create", kTarget, ""))
        return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    auth::NewManagementGroup spec;
    if (!read_string(*body, "name", spec.name, true, res) ||
        !read_string(*body, "description", spec.description, false, res) ||
        !read_string(*body, "parent_id", spec.parent_id, false, res) ||
        !read_string(*body, "membership_type", spec.membership_type, false, res) ||
        !read_string(*body, "scope_expression", spec.scope_expression, false, res))
        return;
    spec.created_by = who.username;
    auto group = ctx.identity.groups().create(spec);
    const Status st = group.ok() ? Status::Ok() : group.status();
    audit_request(ctx, req, res, &who, "mgmt_group.create", kTarget, group.ok() ? group->id : "",
                  audit_result_for(st), group.ok() ? "name=" + spec.name : st.message());
    if (!group.ok()) {
        write_status(res, st);
        return;
    }
    http::write_json(res, 201, auth::to_json(*group));
}

void list_groups(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, {Securable::kManagementGroup, Operation::kRead},
                   "mgmt_group.list", kTarget, ""))
        return;
    auto groups = ctx.identity.groups().list();
    if (!groups.ok()) {
        write_status(res, groups.status());
        return;
    }
    nlohmann::json list = nlohmann::json::array();
    for (const auto& g : *groups) list.push_back(auth::to_json(g));
    http::write_json(res, 200, nlohmann::json{{"groups", list}});
}

void get_group(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
               const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, {Securable::kManagementGroup, Operation::kRead},
                   "mgmt_group.get", kTarget, id))
        return;
    auto group = ctx.identity.groups().get(id);
    if (!group.ok()) {
        write_status(res, group.status());
        return;
    }
    http::write_json(res, 200, auth::to_json(*group));
}

void update_group(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, {Securable::kManagementGroup, Operation::kWrite},
                   "mgmt_group.update", kTarget, id))
        return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    auth::ManagementGroupUpdate change;
    for (const char* key : {"name", "description", "parent_id", "scope_expression"}) {
        if (!body->contains(key) || (*body)[key].is_null()) continue;
        std::string value;
        if (!read_string(*body, key, value, true, res)) return;
        const std::string k = key;
        if (k == "name") change.name = value;
        if (k == "description") change.description = value;
        if (k == "parent_id") change.parent_id = value;
        if (k == "scope_expression") change.scope_expression = value;
    }
    auto group = ctx.identity.groups().update(id, change);
    const Status st = group.ok() ? Status::Ok() : group.status();
    audit_request(ctx, req, res, &who, "mgmt_group.update", kTarget, id, audit_result_for(st),
                  st.message());
    if (!group.ok()) {
        write_status(res, st);
        return;
    }
    http::write_json(res, 200, auth::to_json(*group));
}

void add_member(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, {Securable::kManagementGroup, Operation::kWrite},
                   "mgmt_group.add_member", kTarget, id))
        return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    std::string agent_id;
    if (!read_string(*body, "agent_id", agent_id, true, res)) return;
    Status st = ctx.identity.groups().add_member(id, agent_id);
    audit_request(ctx, req, res, &who, "mgmt_group.add_member", kTarget, id, audit_result_for(st),
                  st.ok() ? "agent_id=" + agent_id : st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

// The compound gate of the per-group role routes: the tier, then `what`
// fleet-wide or ITServiceOwner on the group (access/group_authority.hpp).
bool group_authority(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who, auth::Permission what, const std::string& action,
                     const std::string& id) {
    Status st = access::check_direct_tier(who, what);
    if (st.ok()) st = access::require_group_authority(ctx.identity, who, what, id);
    if (st.ok()) return true;
    audit_request(ctx, req, res, &who, action, kTarget, id, audit_result_for(st), st.message());
    write_status(res, st);
    return false;
}

void list_roles(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!group_authority(ctx, req, res, who, {Securable::kManagementGroup, Operation::kRead},
                         "mgmt_group.list_roles", id))
        return;
    auto roles = ctx.identity.groups().list_roles(id);
    if (!roles.ok()) {
        write_status(res, roles.status());
        return;
    }
    nlohmann::json list = nlohmann::json::array();
    for (const auto& r : *roles) list.push_back(auth::to_json(r));
    http::write_json(res, 200, nlohmann::json{{"roles", list}});
}

void assign_role(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!group_authority(ctx, req, res, who, {Securable::kManagementGroup, Operation::kWrite},
                         "mgmt_group.assign_role", id))
        return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    std::string principal_type(auth::kPrincipalUser);
    std::string principal_id;
    std::string role;
    if (!read_string(*body, "principal_type", principal_type, false, res) ||
        !read_string(*body, "principal_id", principal_id, true, res) ||
        !read_string(*body, "role", role, true, res))
        return;
    Status st = ctx.identity.groups().assign_role(id, principal_type, principal_id, role);
    audit_request(ctx, req, res, &who, "mgmt_group.assign_role", kTarget, id, audit_result_for(st),
                  st.ok() ? principal_type + ":" + principal_id + " role=" + role : st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

}  // namespace

void register_group_routes(http::HttpServer& server, const WebContext& ctx) {
    const std::string one = kGroupPattern;
    const std::string tmpl = "/api/v1/management-groups/{id}";
    server.post("/api/v1/management-groups", "/api/v1/management-groups",
                with_principal(ctx, create_group));
    server.get("/api/v1/management-groups", "/api/v1/management-groups",
               with_principal(ctx, list_groups));
    server.get(one, tmpl, with_principal(ctx, get_group));
    // httplib's wrapper has no PATCH; POST and PUT both update.
    server.post(one, tmpl, with_principal(ctx, update_group));
    server.put(one, tmpl, with_principal(ctx, update_group));
    server.post(one + "/members", tmpl + "/members", with_principal(ctx, add_member));
    server.get(one + "/roles", tmpl + "/roles", with_principal(ctx, list_roles));
    server.post(one + "/roles", tmpl + "/roles", with_principal(ctx, assign_role));
}

}  // namespace yuzu::web
