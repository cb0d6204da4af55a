// Fleet REST routes: enrollment tokens, agents, device tokens, inventory,
// installed software, tags and scope previews. Reads are scoped by
// management group: an agent outside the caller's view answers exactly like
// an unknown one (404 "agent not found").
#include <string>

#include "execution_route_support.hpp"
#include "route_registry.hpp"
#include "yuzu/auth/authorizer.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/tier_policy.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/agent_visibility.hpp"
#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/fleet/fleet_json.hpp"
#include "yuzu/fleet/inventory_store.hpp"
#include "yuzu/fleet/scope_resolver.hpp"
#include "yuzu/fleet/tag_store.hpp"
#include "yuzu/scope/scope.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

constexpr char kAgentId[] = "([0-9a-f]{32})";
constexpr char kTagKey[] = "([A-Za-z0-9_.-]{1,64})";

// ---- enrollment tokens --------------------------------------------------

void create_enrollment_token(const WebContext& ctx, const httplib::Request& req,
                             httplib::Response& res, const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, {Securable::kDeviceToken, Operation::kWrite},
                   "enrollment_token.create", "enrollment_token", ""))
        return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    fleet::NewEnrollmentToken spec;
    int64_t ttl = spec.ttl_s;
    int64_t max_uses = 0;
    if (!read_int(*body, "ttl_s", ttl, false, res) ||
        !read_int(*body, "max_uses", max_uses, false, res) ||
        !read_string(*body, "note", spec.note, false, res))
        return;
    if (max_uses < 0 || max_uses > 100000) {
        http::write_error(res, 400, "max_uses must be from 0 (unlimited) to 100000");
        return;
    }
    spec.ttl_s = ttl;
    spec.max_uses = static_cast<int>(max_uses);
    spec.created_by = who.username;
    auto issued = ctx.fleet->enrollment().create_token(spec);
    const Status st = issued.ok() ? Status::Ok() : issued.status();
    audit_request(ctx, req, res, &who, "enrollment_token.create", "enrollment_token",
                  issued.ok() ? issued->info.id : "", audit_result_for(st),
                  issued.ok() ? "max_uses=" + std::to_string(spec.max_uses) +
                                    " ttl_s=" + std::to_string(spec.ttl_s)
                              : st.message());
    if (!issued.ok()) {
        write_status(res, st);
        return;
    }
    json out = fleet::to_json(issued->info);
    out["token"] = issued->token;
    http::write_json(res, 201, out);
}

void list_enrollment_tokens(const WebContext& ctx, const httplib::Request& req,
                            httplib::Response& res, const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, {Securable::kDeviceToken, Operation::kRead},
                   "enrollment_token.list", "enrollment_token", ""))
        return;
    auto tokens = ctx.fleet->enrollment().list_tokens();
    if (!tokens.ok()) {
        write_status(res, tokens.status());
        return;
    }
    json list = json::array();
    for (const auto& t : *tokens) list.push_back(fleet::to_json(t));
    http::write_json(res, 200, json{{"enrollment_tokens", list}});
}

void revoke_enrollment_token(const WebContext& ctx, const httplib::Request& req,
                             httplib::Response& res, const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, {Securable::kDeviceToken, Operation::kDelete},
                   "enrollment_token.revoke", "enrollment_token", id))
        return;
    const Status st = ctx.fleet->enrollment().revoke_token(id);
    audit_request(ctx, req, res, &who, "enrollment_token.revoke", "enrollment_token", id,
                  audit_result_for(st), st.ok() ? "" : st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

// ---- agents ---------------------------------------------------------------

void list_agents(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who) {
    const Permission what{Securable::kInfrastructure, Operation::kRead};
    if (!tier_permits(ctx, req, res, who, what, "agent.list", "agent", "")) return;
    auto view = execution::agent_view(ctx.identity.authorizer(), *ctx.fleet, who, what);
    if (!view.ok()) {
        write_status(res, view.status());
        return;
    }
    std::optional<std::set<std::string>> selected;
    if (auto scope = query_param(req, "scope"); scope && !scope->empty()) {
        auto match = fleet::resolve_scope(*ctx.fleet, &ctx.identity.groups(), *scope, *view);
        if (!match.ok()) {
            write_status(res, match.status());
            return;
        }
        selected = std::set<std::string>(match->agent_ids.begin(), match->agent_ids.end());
    }
    const auto online = query_param(req, "online");
    auto agents = ctx.fleet->registry().list();
    if (!agents.ok()) {
        write_status(res, agents.status());
        return;
    }
    json list = json::array();
    for (const auto& a : *agents) {
        if (!execution::in_view(*view, a.agent_id) || (selected && !selected->count(a.agent_id)))
            continue;
        if (online && (*online == "true") != a.online) continue;
        list.push_back(fleet::to_json(a));
    }
    http::write_json(res, 200, json{{"agents", list}});
}

void get_agent(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
               const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!agent_permitted(ctx, req, res, who, {Securable::kInfrastructure, Operation::kRead},
                         "agent.get", id))
        return;
    auto agent = ctx.fleet->registry().get(id);
    if (!agent.ok()) {
        write_status(res, agent.status().code() == StatusCode::kNotFound
                              ? Status::NotFound("agent not found: " + id)
                              : agent.status());
        return;
    }
    json out = fleet::to_json(*agent);
    json tags = json::array();
    if (auto t = ctx.fleet->tags().of_agent(id); t.ok()) {
        for (const auto& tag : *t) tags.push_back(fleet::to_json(tag));
    }
    out["tags"] = std::move(tags);
    json groups = json::array();
    if (auto g = ctx.identity.groups().groups_of_agent(id); g.ok()) {
        for (const auto& gid : *g) groups.push_back(gid);
    }
    out["management_groups"] = std::move(groups);
    http::write_json(res, 200, out);
}

void revoke_device_token(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                         const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!agent_permitted(ctx, req, res, who, {Securable::kDeviceToken, Operation::kDelete},
                         "agent.device_token.revoke", id))
        return;
    const Status st = ctx.fleet->enrollment().revoke_device(id);
    audit_request(ctx, req, res, &who, "agent.device_token.revoke", "agent", id,
                  audit_result_for(st), st.ok() ? "" : st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

// ---- inventory ------------------------------------------------------------

void agent_inventory(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!agent_permitted(ctx, req, res, who, {Securable::kInfrastructure, Operation::kRead},
                         "inventory.get", id))
        return;
    auto items = ctx.fleet->inventory().for_agent(id);
    if (!items.ok()) {
        write_status(res, items.status());
        return;
    }
    json list = json::array();
    for (const auto& item : *items) list.push_back(fleet::to_json(item));
    http::write_json(res, 200, json{{"agent_id", id}, {"sources", list}});
}

void query_inventory(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who) {
    const Permission what{Securable::kInfrastructure, Operation::kRead};
    if (!tier_permits(ctx, req, res, who, what, "inventory.query", "agent", "")) return;
    const int limit = query_limit(req, res, 100, fleet::kMaxInventoryQueryLimit);
    if (limit < 0) return;
    auto view = execution::agent_view(ctx.identity.authorizer(), *ctx.fleet, who, what);
    if (!view.ok()) {
        write_status(res, view.status());
        return;
    }
    fleet::InventoryQuery q;
    q.agent_id = query_param(req, "agent_id");
    q.source = query_param(req, "source");
    q.only_agents = *view;
    q.limit = limit;
    auto rows = ctx.fleet->inventory().query(q);
    if (!rows.ok()) {
        write_status(res, rows.status());
        return;
    }
    json list = json::array();
    for (const auto& item : rows->first) list.push_back(fleet::to_json(item));
    http::write_json(res, 200, json{{"rows", list}, {"truncated", rows->second}});
}

void inventory_tables(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                      const auth::Principal& who) {
    const Permission what{Securable::kInfrastructure, Operation::kRead};
    if (!tier_permits(ctx, req, res, who, what, "inventory.tables", "agent", "")) return;
    auto view = execution::agent_view(ctx.identity.authorizer(), *ctx.fleet, who, what);
    if (!view.ok()) {
        write_status(res, view.status());
        return;
    }
    auto tables = ctx.fleet->inventory().tables(*view);
    if (!tables.ok()) {
        write_status(res, tables.status());
        return;
    }
    json list = json::array();
    for (const auto& t : *tables) list.push_back(fleet::to_json(t));
    http::write_json(res, 200, json{{"tables", list}});
}

void installed_software(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                        const auth::Principal& who) {
    const Permission what{Securable::kInventory, Operation::kRead};
    if (!tier_permits(ctx, req, res, who, what, "inventory.software", "agent", "")) return;
    const int limit = query_limit(req, res, 100, fleet::kMaxInventoryQueryLimit);
    if (limit < 0) return;
    auto view = execution::agent_view(ctx.identity.authorizer(), *ctx.fleet, who, what);
    if (!view.ok()) {
        write_status(res, view.status());
        return;
    }
    fleet::SoftwareQuery q;
    q.name = query_param(req, "name");
    q.agent_id = query_param(req, "agent_id");
    q.only_agents = *view;
    q.limit = limit;
    auto rows = ctx.fleet->inventory().software(q);
    if (!rows.ok()) {
        write_status(res, rows.status());
        return;
    }
    json list = json::array();
    for (const auto& s : rows->first) list.push_back(fleet::to_json(s));
    http::write_json(res, 200, json{{"software", list}, {"truncated", rows->second}});
}

// ---- tags -------------------------------------------------------------------

void get_tags(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
              const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!agent_permitted(ctx, req, res, who, {Securable::kTag, Operation::kRead}, "tag.list", id))
        return;
    auto tags = ctx.fleet->tags().of_agent(id);
    if (!tags.ok()) {
        write_status(res, tags.status());
        return;
    }
    json list = json::array();
    for (const auto& t : *tags) list.push_back(fleet::to_json(t));
    http::write_json(res, 200, json{{"agent_id", id}, {"tags", list}});
}

void set_tag(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
             const auth::Principal& who) {
    const std::string id = req.matches[1];
    const std::string key = req.matches[2];
    if (!agent_permitted(ctx, req, res, who, {Securable::kTag, Operation::kWrite}, "tag.set", id))
        return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    std::string value;
    if (!read_string(*body, "value", value, true, res)) return;
    const Status st = ctx.fleet->tags().set(id, key, value, "api");
    audit_request(ctx, req, res, &who, "tag.set", "agent", id, audit_result_for(st),
                  st.ok() ? "key=" + key : st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    http::write_json(res, 200, json{{"agent_id", id}, {"key", key}, {"value", value}});
}

void delete_tag(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                const auth::Principal& who) {
    const std::string id = req.matches[1];
    const std::string key = req.matches[2];
    if (!agent_permitted(ctx, req, res, who, {Securable::kTag, Operation::kDelete}, "tag.delete",
                         id))
        return;
    const Status st = ctx.fleet->tags().remove(id, key);
    audit_request(ctx, req, res, &who, "tag.delete", "agent", id, audit_result_for(st),
                  st.ok() ? "key=" + key : st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

void search_tags(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who) {
    const Permission what{Securable::kTag, Operation::kRead};
    if (!tier_permits(ctx, req, res, who, what, "tag.search", "agent", "")) return;
    const auto key = query_param(req, "key");
    if (!key || key->empty()) {
        http::write_error(res, 400, "query parameter 'key' is required");
        return;
    }
    auto view = execution::agent_view(ctx.identity.authorizer(), *ctx.fleet, who, what);
    if (!view.ok()) {
        write_status(res, view.status());
        return;
    }
    auto agents = ctx.fleet->tags().agents_with(*key, query_param(req, "value"));
    if (!agents.ok()) {
        write_status(res, agents.status());
        return;
    }
    json list = json::array();
    for (const auto& id : *agents) {
        if (execution::in_view(*view, id)) list.push_back(id);
    }
    http::write_json(res, 200, json{{"agent_ids", list}});
}

// ---- scope ------------------------------------------------------------------

void validate_scope(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                    const auth::Principal& who) {
    if (!tier_permits(ctx, req, res, who, {Securable::kInfrastructure, Operation::kRead},
                      "scope.validate", "agent", ""))
        return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    std::string expression;
    if (!read_string(*body, "expression", expression, true, res)) return;
    scope::ParseError error;
    auto parsed = scope::parse(expression, &error);
    json out = {{"expression", expression}, {"valid", parsed.ok()}};
    if (parsed.ok()) {
        out["canonical"] = parsed->canonical();
    } else {
        out["error"] = error.message;
        out["position"] = error.position;
    }
    http::write_json(res, 200, out);
}

void preview_scope(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                   const auth::Principal& who) {
    const Permission what{Securable::kInfrastructure, Operation::kRead};
    if (!tier_permits(ctx, req, res, who, what, "scope.preview", "agent", "")) return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    std::string expression;
    if (!read_string(*body, "expression", expression, true, res)) return;
    auto view = execution::agent_view(ctx.identity.authorizer(), *ctx.fleet, who, what);
    if (!view.ok()) {
        write_status(res, view.status());
        return;
    }
    auto match = fleet::resolve_scope(*ctx.fleet, &ctx.identity.groups(), expression, *view);
    if (!match.ok()) {
        write_status(res, match.status());
        return;
    }
    http::write_json(res, 200,
                     json{{"expression", match->canonical},
                          {"matched_count", match->agent_ids.size()},
                          {"matched_agents", match->agent_ids}});
}

}  // namespace

void register_fleet_routes(http::HttpServer& server, const WebContext& ctx) {
    if (ctx.fleet == nullptr) return;
    const std::string agent = std::string("/api/v1/agents/") + kAgentId;
    server.post("/api/v1/enrollment-tokens", "/api/v1/enrollment-tokens",
                with_principal(ctx, create_enrollment_token));
    server.get("/api/v1/enrollment-tokens", "/api/v1/enrollment-tokens",
               with_principal(ctx, list_enrollment_tokens));
    server.del("/api/v1/enrollment-tokens/([0-9a-f]{24})", "/api/v1/enrollment-tokens/{id}",
               with_principal(ctx, revoke_enrollment_token));
    server.get("/api/v1/agents", "/api/v1/agents", with_principal(ctx, list_agents));
    server.get(agent, "/api/v1/agents/{id}", with_principal(ctx, get_agent));
    server.del(agent + "/device-token", "/api/v1/agents/{id}/device-token",
               with_principal(ctx, revoke_device_token));
    server.get(agent + "/inventory", "/api/v1/agents/{id}/inventory",
               with_principal(ctx, agent_inventory));
    server.get("/api/v1/inventory", "/api/v1/inventory", with_principal(ctx, query_inventory));
    server.get("/api/v1/inventory/tables", "/api/v1/inventory/tables",
               with_principal(ctx, inventory_tables));
    server.get("/api/v1/software", "/api/v1/software", with_principal(ctx, installed_software));
    server.get(agent + "/tags", "/api/v1/agents/{id}/tags", with_principal(ctx, get_tags));
    server.put(agent + "/tags/" + kTagKey, "/api/v1/agents/{id}/tags/{key}",
               with_principal(ctx, set_tag));
    server.del(agent + "/tags/" + kTagKey, "/api/v1/agents/{id}/tags/{key}",
               with_principal(ctx, delete_tag));
    server.get("/api/v1/tags/search", "/api/v1/tags/search", with_principal(ctx, search_tags));
    server.post("/api/v1/scope/validate", "/api/v1/scope/validate",
                with_principal(ctx, validate_scope));
    server.post("/api/v1/scope/preview", "/api/v1/scope/preview",
                with_principal(ctx, preview_scope));
}

}  // namespace yuzu::web
