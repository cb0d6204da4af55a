// The approval-gated identity write tools, twins of REST routes with the same
// services and permission checks:
//   create_api_token              POST   /api/v1/tokens ApiToken:Write
//   revoke_api_token              DELETE /api/v1/tokens/{id} ApiToken:Delete
//   unlock_account                POST   /api/v1/users/{name}/unlock
//   UserManagement:Write create_management_group       POST
//   /api/v1/management-groups      ManagementGroup:Write
//   update_management_group       POST   /api/v1/management-groups/{id}
//   ManagementGroup:Write add_management_group_member   POST   .../{id}/members
//   ManagementGroup:Write assign_management_group_role  POST   .../{id}/roles
//   ManagementGroup:Write
// At the supervised tier each needs a person's approval first (tier_policy);
// the pipeline's approval gate handles that before the RBAC step.
#include "yuzu/access/permission_check.hpp"
#include "yuzu/auth/auth_json.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const json kGroupIdSchema = {
    {"type", "string"}, {"pattern", "^[0-9a-f]{12}$"}, {"description", "management group id"}};
const json kGroupNameSchema = {{"type", "string"}, {"minLength", 1}, {"maxLength", 128}};
const json kDescriptionSchema = {{"type", "string"}, {"maxLength", 1024}};
const json kScopeSchema = {{"type", "string"}, {"maxLength", 4096}};
const json kParentSchema = {{"type", "string"},
                            {"pattern", "^([0-9a-f]{12})?$"},
                            {"description", "parent group id; \"\" or absent = the root"}};

ToolSpec write_tool(std::string name, std::string title, std::string description, Permission key,
                    bool destructive, bool idempotent) {
    ToolSpec spec;
    spec.name = std::move(name);
    spec.title = std::move(title);
    spec.description = std::move(description);
    spec.tier_key = key;
    spec.access = ToolAccess{key, AccessScope::kFleet, ""};
    spec.annotations.read_only = false;
    spec.annotations.destructive = destructive;
    spec.annotations.idempotent = idempotent;
    return spec;
}

ToolSpec create_api_token_tool(auth::Identity& identity) {
    ToolSpec spec = write_tool("create_api_token", "Create an API token",
                               "Creates an API or MCP token owned by the caller and returns "
                               "its secret once. An MCP "
                               "token (mcp_tier set) must expire within 90 days (expires_at, "
                               "Unix seconds).",
                               {Securable::kApiToken, Operation::kWrite}, false, false);
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"name", {{"type", "string"}, {"minLength", 1}, {"maxLength", 128}}},
          {"mcp_tier", {{"type", "string"}, {"enum", {"", "readonly", "operator", "supervised"}}}},
          {"expires_at", {{"type", "integer"}, {"minimum", 0}}}}},
        {"required", {"name"}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"id", {{"type", "string"}}},
                            {"token", {{"type", "string"}}},
                            {"name", {{"type", "string"}}},
                            {"mcp_tier", {{"type", "string"}}},
                            {"expires_at", {{"type", "integer"}}}}},
                          {"required", {"id", "token"}}};
    spec.handler = [&identity](const ToolCall& call) -> Result<json> {
        auto created = identity.tokens().create(
            call.principal.username, call.arguments.at("name").get<std::string>(),
            call.arguments.value("mcp_tier", ""), call.arguments.value("expires_at", int64_t{0}));
        if (!created.ok()) return created.status();
        return json{{"id", created->info.id},
                    {"token", created->secret},
                    {"name", created->info.name},
                    {"mcp_tier", created->info.mcp_tier},
                    {"expires_at", created->info.expires_at_s}};
    };
    return spec;
}

ToolSpec revoke_api_token_tool(auth::Identity& identity) {
    ToolSpec spec =
        write_tool("revoke_api_token", "Revoke an API token",
                   "Revokes one of the caller's API or MCP tokens for good. A caller the "
                   "REST API would "
                   "treat as a user administrator may revoke other users' tokens too.",
                   {Securable::kApiToken, Operation::kDelete}, true, true);
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"token_id",
                            {{"type", "string"},
                             {"pattern", "^[0-9a-f]{24}$"},
                             {"description", "the token's id from list_api_tokens"}}}}},
                         {"required", {"token_id"}},
                         {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties", {{"revoked", {{"type", "boolean"}}}, {"token_id", {{"type", "string"}}}}},
        {"required", {"revoked", "token_id"}}};
    spec.handler = [&identity](const ToolCall& call) -> Result<json> {
        const std::string id = call.arguments.at("token_id").get<std::string>();
        // An administrator may revoke another user's token, as over REST.
        const Status admin = access::require_permission(
            identity.authorizer(), call.principal, {Securable::kUserManagement, Operation::kWrite});
        if (!admin.ok() && admin.code() != StatusCode::kPermissionDenied) return admin;
        YUZU_RETURN_IF_ERROR(identity.tokens().revoke(id, call.principal.username, admin.ok()));
        return json{{"revoked", true}, {"token_id", id}};
    };
    return spec;
}

ToolSpec unlock_account_tool(auth::Identity& identity) {
    ToolSpec spec = write_tool("unlock_account", "Unlock a user account",
                               "Unlocks a user account locked by failed logins.",
                               {Securable::kUserManagement, Operation::kWrite}, false, true);
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"username", {{"type", "string"}, {"pattern", "^[a-z][a-z0-9._-]{1,63}$"}}}}},
        {"required", {"username"}},
        {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties", {{"unlocked", {{"type", "boolean"}}}, {"username", {{"type", "string"}}}}},
        {"required", {"unlocked", "username"}}};
    spec.handler = [&identity](const ToolCall& call) -> Result<json> {
        const std::string username = call.arguments.at("username").get<std::string>();
        YUZU_RETURN_IF_ERROR(identity.users().unlock(username));
        return json{{"unlocked", true}, {"username", username}};
    };
    return spec;
}

const json kGroupOutput = {
    {"type", "object"}, {"properties", {{"group", {{"type", "object"}}}}}, {"required", {"group"}}};

ToolSpec create_group_tool(auth::Identity& identity) {
    ToolSpec spec = write_tool("create_management_group", "Create a management group",
                               "Creates a management group under a parent (the root by default). A "
                               "dynamic "
                               "group takes its members from scope_expression.",
                               {Securable::kManagementGroup, Operation::kWrite}, false, false);
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"name", kGroupNameSchema},
          {"description", kDescriptionSchema},
          {"parent_id", kParentSchema},
          {"membership_type", {{"type", "string"}, {"enum", {"static", "dynamic"}}}},
          {"scope_expression", kScopeSchema}}},
        {"required", {"name"}},
        {"additionalProperties", false}};
    spec.output_schema = kGroupOutput;
    spec.handler = [&identity](const ToolCall& call) -> Result<json> {
        auth::NewManagementGroup group;
        group.name = call.arguments.at("name").get<std::string>();
        group.description = call.arguments.value("description", "");
        group.parent_id = call.arguments.value("parent_id", group.parent_id);
        group.membership_type = call.arguments.value("membership_type", group.membership_type);
        group.scope_expression = call.arguments.value("scope_expression", "");
        group.created_by = call.principal.username;
        auto created = identity.groups().create(group);
        if (!created.ok()) return created.status();
        return json{{"group", auth::to_json(*created)}};
    };
    return spec;
}

ToolSpec update_group_tool(auth::Identity& identity) {
    ToolSpec spec = write_tool("update_management_group", "Update a management group",
                               "Changes a management group's name, description, parent or "
                               "scope expression; fields "
                               "left out stay as they are.",
                               {Securable::kManagementGroup, Operation::kWrite}, false, true);
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"group_id", kGroupIdSchema},
                           {"name", kGroupNameSchema},
                           {"description", kDescriptionSchema},
                           {"parent_id", kParentSchema},
                           {"scope_expression", kScopeSchema}}},
                         {"required", {"group_id"}},
                         {"additionalProperties", false}};
    spec.output_schema = kGroupOutput;
    spec.handler = [&identity](const ToolCall& call) -> Result<json> {
        const auto& a = call.arguments;
        auth::ManagementGroupUpdate change;
        if (a.contains("name")) change.name = a.at("name").get<std::string>();
        if (a.contains("description")) change.description = a.at("description").get<std::string>();
        if (a.contains("parent_id")) change.parent_id = a.at("parent_id").get<std::string>();
        if (a.contains("scope_expression")) {
            change.scope_expression = a.at("scope_expression").get<std::string>();
        }
        auto updated = identity.groups().update(a.at("group_id").get<std::string>(), change);
        if (!updated.ok()) return updated.status();
        return json{{"group", auth::to_json(*updated)}};
    };
    return spec;
}

ToolSpec add_member_tool(auth::Identity& identity) {
    ToolSpec spec = write_tool("add_management_group_member", "Add an agent to a group",
                               "Adds an agent to a static management group.",
                               {Securable::kManagementGroup, Operation::kWrite}, false, false);
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"group_id", kGroupIdSchema},
          {"agent_id", {{"type", "string"}, {"minLength", 1}, {"maxLength", 128}}}}},
        {"required", {"group_id", "agent_id"}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"added", {{"type", "boolean"}}},
                            {"group_id", {{"type", "string"}}},
                            {"agent_id", {{"type", "string"}}}}},
                          {"required", {"added", "group_id", "agent_id"}}};
    spec.handler = [&identity](const ToolCall& call) -> Result<json> {
        const std::string group = call.arguments.at("group_id").get<std::string>();
        const std::string agent = call.arguments.at("agent_id").get<std::string>();
        YUZU_RETURN_IF_ERROR(identity.groups().add_member(group, agent));
        return json{{"added", true}, {"group_id", group}, {"agent_id", agent}};
    };
    return spec;
}

ToolSpec assign_role_tool(auth::Identity& identity) {
    ToolSpec spec = write_tool("assign_management_group_role", "Assign a role on a group",
                               "Grants a user a built-in role on a management group and everything "
                               "below it.",
                               {Securable::kManagementGroup, Operation::kWrite}, false, false);
    // The compound gate, as over REST: fleet-wide ManagementGroup:Write, or
    // ITServiceOwner on the group (or one above it).
    spec.access = ToolAccess{Permission{Securable::kManagementGroup, Operation::kWrite},
                             AccessScope::kGroup, "group_id"};
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"group_id", kGroupIdSchema},
          {"principal_type", {{"type", "string"}, {"enum", {"user"}}}},
          {"principal_id", {{"type", "string"}, {"minLength", 1}, {"maxLength", 64}}},
          {"role", {{"type", "string"}, {"minLength", 1}, {"maxLength", 64}}}}},
        {"required", {"group_id", "principal_id", "role"}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"assigned", {{"type", "boolean"}}},
                            {"group_id", {{"type", "string"}}},
                            {"principal_id", {{"type", "string"}}},
                            {"role", {{"type", "string"}}}}},
                          {"required", {"assigned", "group_id", "principal_id", "role"}}};
    spec.handler = [&identity](const ToolCall& call) -> Result<json> {
        const auto& a = call.arguments;
        const std::string group = a.at("group_id").get<std::string>();
        const std::string type = a.value("principal_type", std::string(auth::kPrincipalUser));
        const std::string principal = a.at("principal_id").get<std::string>();
        const std::string role = a.at("role").get<std::string>();
        YUZU_RETURN_IF_ERROR(identity.groups().assign_role(group, type, principal, role));
        return json{
            {"assigned", true}, {"group_id", group}, {"principal_id", principal}, {"role", role}};
    };
    return spec;
}

}  // namespace

Status register_identity_write_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    YUZU_RETURN_IF_ERROR(tools.add(create_api_token_tool(deps.identity)));
    YUZU_RETURN_IF_ERROR(tools.add(revoke_api_token_tool(deps.identity)));
    YUZU_RETURN_IF_ERROR(tools.add(unlock_account_tool(deps.identity)));
    YUZU_RETURN_IF_ERROR(tools.add(create_group_tool(deps.identity)));
    YUZU_RETURN_IF_ERROR(tools.add(update_group_tool(deps.identity)));
    YUZU_RETURN_IF_ERROR(tools.add(add_member_tool(deps.identity)));
    YUZU_RETURN_IF_ERROR(tools.add(assign_role_tool(deps.identity)));
    return Status::Ok();
}

}  // namespace yuzu::mcp
