// MCP tools over the agent registry: list_agents and get_agent_details.
// Twins of GET /api/v1/agents and GET /api/v1/agents/{id}.
#include "fleet_tool_support.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/fleet/fleet_json.hpp"
#include "yuzu/fleet/inventory_store.hpp"
#include "yuzu/fleet/scope_resolver.hpp"
#include "yuzu/fleet/tag_store.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

constexpr int kDefaultListLimit = 500;
constexpr int kMaxListLimit = 1000;

const Permission kInfraRead{Securable::kInfrastructure, Operation::kRead};

// The fields list_agents shows; get_agent_details shows everything.
json agent_summary(const fleet::AgentRecord& a) {
    return {{"agent_id", a.agent_id},
            {"hostname", a.hostname},
            {"os", a.os},
            {"os_version", a.os_version},
            {"arch", a.arch},
            {"version", a.version},
            {"online", a.online},
            {"last_seen", a.last_seen_ms / 1000},
            {"quarantined", a.quarantined}};
}

ToolSpec list_agents_tool(auth::Identity& identity, fleet::Fleet& fleet) {
    ToolSpec spec;
    spec.name = "list_agents";
    spec.title = "List agents";
    spec.description =
        "Agents the caller may see (management-group scoping "
        "applies), ordered by agent_id: "
        "hostname, OS, architecture, agent version, online state "
        "and last contact. Filter with "
        "online and a scope expression (see validate_scope); page "
        "with limit and next_cursor.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"online", {{"type", "boolean"}, {"description", "only online (true) or offline"}}},
          {"scope",
           {{"type", "string"},
            {"maxLength", 4096},
            {"description", "scope expression, e.g. os = \"linux\" AND tag:env = \"prod\""}}},
          {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", kMaxListLimit}}},
          {"cursor", {{"type", "string"}, {"pattern", "^[0-9a-f]{32}$"}}}}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"agents", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                            {"next_cursor", {{"type", {"string", "null"}}}}}},
                          {"required", {"agents", "next_cursor"}}};
    spec.tier_key = kInfraRead;
    spec.access = ToolAccess{kInfraRead, AccessScope::kAgents, ""};
    spec.handler = [&identity, &fleet](const ToolCall& call) -> Result<json> {
        const json& args = call.arguments;
        const auto* view = &call.view;
        std::optional<std::set<std::string>> selected;
        if (args.contains("scope")) {
            auto match = fleet::resolve_scope(fleet, &identity.groups(),
                                              args["scope"].get<std::string>(), *view);
            if (!match.ok()) return match.status();
            selected = std::set<std::string>(match->agent_ids.begin(), match->agent_ids.end());
        }
        const int limit = args.value("limit", kDefaultListLimit);
        const std::string cursor = args.value("cursor", "");
        auto agents = fleet.registry().list();
        if (!agents.ok()) return agents.status();
        json list = json::array();
        json next = nullptr;
        for (const auto& a : *agents) {
            if (!cursor.empty() && a.agent_id <= cursor) continue;
            if (*view && !(*view)->count(a.agent_id)) continue;
            if (selected && !selected->count(a.agent_id)) continue;
            if (args.contains("online") && args["online"].get<bool>() != a.online) continue;
            if (static_cast<int>(list.size()) == limit) {
                next = list.back()["agent_id"];
                break;
            }
            list.push_back(agent_summary(a));
        }
        return json{{"agents", std::move(list)}, {"next_cursor", std::move(next)}};
    };
    return spec;
}

ToolSpec get_agent_details_tool(auth::Identity& identity, fleet::Fleet& fleet) {
    ToolSpec spec;
    spec.name = "get_agent_details";
    spec.title = "Agent details";
    spec.description =
        "One agent: what it reports about itself (hostname, OS "
        "and version, architecture, agent "
        "version, uptime, last performance sample), online state, "
        "quarantine, tags, management "
        "groups and which inventory sources it has reported. An "
        "agent outside the caller's "
        "management groups is reported as not found.";
    spec.input_schema = {{"type", "object"},
                         {"properties", {{"agent_id", kAgentIdSchema}}},
                         {"required", {"agent_id"}},
                         {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"agent_id", {{"type", "string"}}},
                            {"hostname", {{"type", "string"}}},
                            {"online", {{"type", "boolean"}}},
                            {"tags", {{"type", "array"}}},
                            {"management_groups", {{"type", "array"}}},
                            {"inventory_sources", {{"type", "array"}}}}},
                          {"required", {"agent_id", "hostname", "online"}}};
    spec.tier_key = kInfraRead;
    spec.access = ToolAccess{kInfraRead, AccessScope::kAgents, "agent_id"};
    spec.handler = [&identity, &fleet](const ToolCall& call) -> Result<json> {
        const std::string id = call.arguments.at("agent_id").get<std::string>();
        auto agent = fleet.registry().get(id);
        if (!agent.ok()) return agent.status();
        json out = fleet::to_json(*agent);
        json tags = json::array();
        auto t = fleet.tags().of_agent(id);
        if (!t.ok()) return t.status();
        for (const auto& tag : *t) tags.push_back(fleet::to_json(tag));
        out["tags"] = std::move(tags);
        auto groups = identity.groups().groups_of_agent(id);
        if (!groups.ok()) return groups.status();
        out["management_groups"] = *groups;
        auto items = fleet.inventory().for_agent(id);
        if (!items.ok()) return items.status();
        json sources = json::array();
        for (const auto& item : *items) {
            sources.push_back({{"source", item.source},
                               {"status", item.status},
                               {"collected_at", item.collected_at_ms / 1000}});
        }
        out["inventory_sources"] = std::move(sources);
        return out;
    };
    return spec;
}

}  // namespace

Status register_agent_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    if (deps.fleet == nullptr) return Status::Ok();
    YUZU_RETURN_IF_ERROR(tools.add(list_agents_tool(deps.identity, *deps.fleet)));
    return tools.add(get_agent_details_tool(deps.identity, *deps.fleet));
}

}  // namespace yuzu::mcp
