// MCP tools over agent tags: get_tags, search_agents_by_tag, set_tag and
// delete_tag. Twins of the /api/v1/agents/{id}/tags routes and
// /api/v1/tags/search. delete_tag is approval-gated at the operator and
// supervised tiers (tier_policy), which the pipeline enforces.
#include "fleet_tool_support.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/fleet/fleet_json.hpp"
#include "yuzu/fleet/tag_store.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kTagRead{Securable::kTag, Operation::kRead};
const Permission kTagWrite{Securable::kTag, Operation::kWrite};
const Permission kTagDelete{Securable::kTag, Operation::kDelete};

const json kKeySchema = {{"type", "string"},
                         {"pattern", "^[A-Za-z0-9_.-]{1,64}$"},
                         {"description", "tag key, e.g. env"}};
const json kValueSchema = {{"type", "string"}, {"maxLength", 256}};

ToolSpec get_tags_tool(auth::Identity& identity, fleet::Fleet& fleet) {
    ToolSpec spec;
    spec.name = "get_tags";
    spec.title = "Agent tags";
    spec.description =
        "The key/value tags of one agent, with who set them (api, "
        "mcp, agent) and when.";
    spec.input_schema = {{"type", "object"},
                         {"properties", {{"agent_id", kAgentIdSchema}}},
                         {"required", {"agent_id"}},
                         {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties", {{"agent_id", {{"type", "string"}}}, {"tags", {{"type", "array"}}}}},
        {"required", {"agent_id", "tags"}}};
    spec.tier_key = kTagRead;
    spec.access = ToolAccess{kTagRead, AccessScope::kAgents, "agent_id"};
    spec.handler = [&identity, &fleet](const ToolCall& call) -> Result<json> {
        const std::string id = call.arguments.at("agent_id").get<std::string>();
        auto tags = fleet.tags().of_agent(id);
        if (!tags.ok()) return tags.status();
        json list = json::array();
        for (const auto& t : *tags) list.push_back(fleet::to_json(t));
        return json{{"agent_id", id}, {"tags", std::move(list)}};
    };
    return spec;
}

ToolSpec search_agents_by_tag_tool(auth::Identity& identity, fleet::Fleet& fleet) {
    ToolSpec spec;
    spec.name = "search_agents_by_tag";
    spec.title = "Find agents by tag";
    spec.description =
        "Ids of the agents carrying tag `key` (with `value`, when "
        "given), among the agents in "
        "the caller's management groups.";
    spec.input_schema = {{"type", "object"},
                         {"properties", {{"key", kKeySchema}, {"value", kValueSchema}}},
                         {"required", {"key"}},
                         {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties", {{"agent_ids", {{"type", "array"}}}}},
                          {"required", {"agent_ids"}}};
    spec.tier_key = kTagRead;
    spec.access = ToolAccess{kTagRead, AccessScope::kAgents, ""};
    spec.handler = [&identity, &fleet](const ToolCall& call) -> Result<json> {
        const json& args = call.arguments;
        const auto* view = &call.view;
        std::optional<std::string> value;
        if (args.contains("value")) value = args["value"].get<std::string>();
        auto agents = fleet.tags().agents_with(args.at("key").get<std::string>(), value);
        if (!agents.ok()) return agents.status();
        json ids = json::array();
        for (const auto& id : *agents) {
            if (!*view || (*view)->count(id)) ids.push_back(id);
        }
        return json{{"agent_ids", std::move(ids)}};
    };
    return spec;
}

ToolSpec set_tag_tool(auth::Identity& identity, fleet::Fleet& fleet) {
    ToolSpec spec;
    spec.name = "set_tag";
    spec.title = "Set an agent tag";
    spec.description =
        "Creates or replaces tag key=value on one agent (usable "
        "in scope expressions as "
        "tag:<key>). Audited.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"agent_id", kAgentIdSchema}, {"key", kKeySchema}, {"value", kValueSchema}}},
        {"required", {"agent_id", "key", "value"}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"set", {{"type", "boolean"}}},
                            {"agent_id", {{"type", "string"}}},
                            {"key", {{"type", "string"}}},
                            {"value", {{"type", "string"}}}}},
                          {"required", {"set", "agent_id", "key"}}};
    spec.annotations.read_only = false;
    spec.annotations.idempotent = true;
    spec.tier_key = kTagWrite;
    spec.access = ToolAccess{kTagWrite, AccessScope::kAgents, "agent_id"};
    spec.handler = [&identity, &fleet](const ToolCall& call) -> Result<json> {
        const std::string id = call.arguments.at("agent_id").get<std::string>();
        const std::string key = call.arguments.at("key").get<std::string>();
        const std::string value = call.arguments.at("value").get<std::string>();
        YUZU_RETURN_IF_ERROR(fleet.tags().set(id, key, value, "mcp"));
        return json{{"set", true}, {"agent_id", id}, {"key", key}, {"value", value}};
    };
    return spec;
}

ToolSpec delete_tag_tool(auth::Identity& identity, fleet::Fleet& fleet) {
    ToolSpec spec;
    spec.name = "delete_tag";
    spec.title = "Delete an agent tag";
    spec.description =
        "Removes tag `key` from one agent. Needs a human's "
        "approval at the operator and "
        "supervised tiers: the first call returns an approval "
        "ticket; call again with the same "
        "arguments plus approval_id once it is approved.";
    spec.input_schema = {{"type", "object"},
                         {"properties", {{"agent_id", kAgentIdSchema}, {"key", kKeySchema}}},
                         {"required", {"agent_id", "key"}},
                         {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"deleted", {{"type", "boolean"}}},
                            {"agent_id", {{"type", "string"}}},
                            {"key", {{"type", "string"}}}}},
                          {"required", {"deleted", "agent_id", "key"}}};
    spec.annotations.read_only = false;
    spec.annotations.destructive = true;
    spec.annotations.idempotent = false;
    spec.tier_key = kTagDelete;
    spec.access = ToolAccess{kTagDelete, AccessScope::kAgents, "agent_id"};
    spec.handler = [&identity, &fleet](const ToolCall& call) -> Result<json> {
        const std::string id = call.arguments.at("agent_id").get<std::string>();
        const std::string key = call.arguments.at("key").get<std::string>();
        Status removed = fleet.tags().remove(id, key);
        if (removed.code() == StatusCode::kNotFound)
            return Status::NotFound("tag not found: " + key);
        YUZU_RETURN_IF_ERROR(removed);
        return json{{"deleted", true}, {"agent_id", id}, {"key", key}};
    };
    return spec;
}

}  // namespace

Status register_tag_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    if (deps.fleet == nullptr) return Status::Ok();
    YUZU_RETURN_IF_ERROR(tools.add(get_tags_tool(deps.identity, *deps.fleet)));
    YUZU_RETURN_IF_ERROR(tools.add(search_agents_by_tag_tool(deps.identity, *deps.fleet)));
    YUZU_RETURN_IF_ERROR(tools.add(set_tag_tool(deps.identity, *deps.fleet)));
    return tools.add(delete_tag_tool(deps.identity, *deps.fleet));
}

}  // namespace yuzu::mcp
