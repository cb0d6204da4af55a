// MCP tools over identity: permission self-check, the caller's own API
// tokens, and management groups. Twins of POST /api/v1/rbac/check,
// GET /api/v1/tokens and the GET management-group routes.
#include "yuzu/access/permission_json.hpp"
#include "yuzu/auth/auth_json.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/roles.hpp"
#include "yuzu/auth/tier_policy.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;

const nlohmann::json kGroupIdSchema = {
    {"type", "string"}, {"pattern", "^[0-9a-f]{12}$"}, {"description", "management group id"}};

ToolSpec check_permission_tool(auth::Identity& identity) {
    ToolSpec spec;
    spec.name = "check_permission";
    spec.title = "Check my permission";
    spec.description =
        "Reports whether the caller may perform Type:Op (e.g. 'Execution:Execute'), optionally on "
        "one agent, by role, and what the caller's MCP tier says about it. A self-check: it "
        "changes nothing and needs no permission of its own.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"permission",
           {{"type", "string"},
            {"pattern", "^[A-Za-z]+:[A-Za-z]+$"},
            {"description", "Securable:Operation, e.g. Tag:Write"}}},
          {"agent_id", {{"type", "string"}, {"minLength", 1}, {"maxLength", 128}}}}},
        {"required", {"permission"}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"permission", {{"type", "string"}}},
                            {"allowed", {{"type", "boolean"}}},
                            {"allowed_by_role", {{"type", "boolean"}}},
                            {"allowed_by_tier", {{"type", "boolean"}}},
                            {"requires_approval", {{"type", "boolean"}}}}},
                          {"required", {"permission", "allowed"}}};
    // Readable at every tier; the RBAC step is deliberately empty (a
    // self-check reveals only the caller's own rights).
    spec.tier_key = Permission{Securable::kInfrastructure, Operation::kRead};
    spec.access = ToolAccess{Permission{Securable::kInfrastructure, Operation::kRead},
                             AccessScope::kSelf, ""};
    spec.handler = [&identity](const ToolCall& call) -> Result<nlohmann::json> {
        const std::string text = call.arguments.at("permission").get<std::string>();
        auto p = auth::parse_permission(text);
        if (!p) return Status::InvalidArgument("unknown permission '" + text + "'");
        auto answer = access::answer_permission(identity.authorizer(), call.principal, *p,
                                                call.arguments.value("agent_id", ""));
        if (!answer.ok()) return answer.status();
        return access::to_json(*answer, call.principal.username);
    };
    return spec;
}

ToolSpec list_api_tokens_tool(auth::Identity& identity) {
    ToolSpec spec;
    spec.name = "list_api_tokens";
    spec.title = "List my API tokens";
    spec.description =
        "The caller's own API and MCP tokens (never anyone else's): id, name, tier, expiry, last "
        "use, revoked. Secrets are never shown.";
    spec.input_schema = {{"type", "object"}, {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties", {{"tokens", {{"type", "array"}}}}},
                          {"required", {"tokens"}}};
    spec.tier_key = Permission{Securable::kApiToken, Operation::kRead};
    spec.access =
        ToolAccess{Permission{Securable::kApiToken, Operation::kRead}, AccessScope::kFleet, ""};
    spec.handler = [&identity](const ToolCall& call) -> Result<nlohmann::json> {
        auto tokens = identity.tokens().list(call.principal.username);
        if (!tokens.ok()) return tokens.status();
        nlohmann::json out = nlohmann::json::array();
        for (const auto& t : *tokens) out.push_back(auth::to_json(t));
        return nlohmann::json{{"tokens", std::move(out)}};
    };
    return spec;
}

ToolSpec list_groups_tool(auth::Identity& identity) {
    ToolSpec spec;
    spec.name = "list_management_groups";
    spec.title = "List management groups";
    spec.description = "Every management group: id, name, parent, membership type.";
    spec.input_schema = {{"type", "object"}, {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties", {{"groups", {{"type", "array"}}}}},
                          {"required", {"groups"}}};
    spec.tier_key = Permission{Securable::kManagementGroup, Operation::kRead};
    spec.access = ToolAccess{Permission{Securable::kManagementGroup, Operation::kRead},
                             AccessScope::kFleet, ""};
    spec.handler = [&identity](const ToolCall&) -> Result<nlohmann::json> {
        auto groups = identity.groups().list();
        if (!groups.ok()) return groups.status();
        nlohmann::json out = nlohmann::json::array();
        for (const auto& g : *groups) out.push_back(auth::to_json(g));
        return nlohmann::json{{"groups", std::move(out)}};
    };
    return spec;
}

ToolSpec get_group_tool(auth::Identity& identity) {
    ToolSpec spec;
    spec.name = "get_management_group";
    spec.title = "Get a management group";
    spec.description = "One management group with its member agents.";
    spec.input_schema = {{"type", "object"},
                         {"properties", {{"group_id", kGroupIdSchema}}},
                         {"required", {"group_id"}},
                         {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties", {{"group", {{"type", "object"}}}, {"members", {{"type", "array"}}}}},
        {"required", {"group", "members"}}};
    spec.tier_key = Permission{Securable::kManagementGroup, Operation::kRead};
    spec.access = ToolAccess{Permission{Securable::kManagementGroup, Operation::kRead},
                             AccessScope::kFleet, ""};
    spec.handler = [&identity](const ToolCall& call) -> Result<nlohmann::json> {
        const std::string id = call.arguments.at("group_id").get<std::string>();
        auto group = identity.groups().get(id);
        if (!group.ok()) return group.status();
        auto members = identity.groups().members(id);
        if (!members.ok()) return members.status();
        nlohmann::json m = nlohmann::json::array();
        for (const auto& member : *members) m.push_back(auth::to_json(member));
        return nlohmann::json{{"group", auth::to_json(*group)}, {"members", std::move(m)}};
    };
    return spec;
}

ToolSpec list_group_roles_tool(auth::Identity& identity) {
    ToolSpec spec;
    spec.name = "list_management_group_roles";
    spec.title = "List a group's role assignments";
    spec.description =
        "Who holds which role on one management group. Needs ManagementGroup:Read fleet-wide, "
        "or the ITServiceOwner role on that group.";
    spec.input_schema = {{"type", "object"},
                         {"properties", {{"group_id", kGroupIdSchema}}},
                         {"required", {"group_id"}},
                         {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties", {{"group_id", {{"type", "string"}}}, {"roles", {{"type", "array"}}}}},
        {"required", {"group_id", "roles"}}};
    spec.tier_key = Permission{Securable::kManagementGroup, Operation::kRead};
    // The compound gate of the REST twin: fleet-wide ManagementGroup:Read, or
    // ITServiceOwner held on this group or one above it.
    spec.access = ToolAccess{Permission{Securable::kManagementGroup, Operation::kRead},
                             AccessScope::kGroup, "group_id"};
    spec.handler = [&identity](const ToolCall& call) -> Result<nlohmann::json> {
        const std::string id = call.arguments.at("group_id").get<std::string>();
        auto group = identity.groups().get(id);
        if (!group.ok()) return group.status();
        auto roles = identity.groups().list_roles(id);
        if (!roles.ok()) return roles.status();
        nlohmann::json out = nlohmann::json::array();
        for (const auto& r : *roles) out.push_back(auth::to_json(r));
        return nlohmann::json{{"group_id", id}, {"roles", std::move(out)}};
    };
    return spec;
}

}  // namespace

Status register_identity_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    YUZU_RETURN_IF_ERROR(tools.add(check_permission_tool(deps.identity)));
    YUZU_RETURN_IF_ERROR(tools.add(list_api_tokens_tool(deps.identity)));
    YUZU_RETURN_IF_ERROR(tools.add(list_groups_tool(deps.identity)));
    YUZU_RETURN_IF_ERROR(tools.add(get_group_tool(deps.identity)));
    YUZU_RETURN_IF_ERROR(tools.add(list_group_roles_tool(deps.identity)));
    return Status::Ok();
}

}  // namespace yuzu::mcp
