// MCP tools over inventory reported by agents: query_inventory,
// list_inventory_tables, get_agent_inventory, query_installed_software.
// Twins of GET /api/v1/inventory, /inventory/tables,
// /agents/{id}/inventory and /software.
#include "fleet_tool_support.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/fleet/fleet_json.hpp"
#include "yuzu/fleet/inventory_store.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kInfraRead{Securable::kInfrastructure, Operation::kRead};
const Permission kInventoryRead{Securable::kInventory, Operation::kRead};

const json kSourceSchema = {{"type", "string"},
                            {"pattern", "^[a-z0-9_]{1,64}$"},
                            {"description", "inventory source, e.g. kernel, packages, disks"}};
const json kLimitSchema = {{"type", "integer"},
                           {"minimum", 1},
                           {"maximum", fleet::kMaxInventoryQueryLimit},
                           {"default", 100}};

// How many registered agents the caller's view hides (0 with a fleet-wide
// grant), so a scoped answer never passes for the whole fleet.
Result<int64_t> devices_omitted(fleet::Fleet& fleet,
                                const std::optional<std::set<std::string>>& view) {
    if (!view) return int64_t{0};
    const int64_t total = static_cast<int64_t>(fleet.registry().total_count());
    return std::max<int64_t>(0, total - static_cast<int64_t>(view->size()));
}

ToolSpec query_inventory_tool(auth::Identity& identity, fleet::Fleet& fleet) {
    ToolSpec spec;
    spec.name = "query_inventory";
    spec.title = "Query inventory";
    spec.description =
        "Inventory rows reported by agents, optionally for one "
        "agent and/or one source (kernel, "
        "os_release, host, cpu, memory, disks, network, packages, "
        "listening_sockets, processes, "
        "reboot_pending, systemd_units). Each row: agent_id, "
        "source, status (ok or unavailable, "
        "with a reason), data and collected_at. Only agents in "
        "the caller's management groups.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"agent_id", kAgentIdSchema}, {"source", kSourceSchema}, {"limit", kLimitSchema}}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"rows", {{"type", "array"}}},
                            {"result_truncated_by_cap", {{"type", "boolean"}}},
                            {"devices_omitted", {{"type", "integer"}}}}},
                          {"required", {"rows", "result_truncated_by_cap"}}};
    spec.tier_key = kInfraRead;
    spec.access = ToolAccess{kInfraRead, AccessScope::kAgents, ""};
    spec.handler = [&identity, &fleet](const ToolCall& call) -> Result<json> {
        const json& args = call.arguments;
        const auto* view = &call.view;
        fleet::InventoryQuery q;
        if (args.contains("agent_id")) q.agent_id = args["agent_id"].get<std::string>();
        if (args.contains("source")) q.source = args["source"].get<std::string>();
        q.only_agents = *view;
        q.limit = args.value("limit", 100);
        auto rows = fleet.inventory().query(q);
        if (!rows.ok()) return rows.status();
        auto omitted = devices_omitted(fleet, *view);
        if (!omitted.ok()) return omitted.status();
        json list = json::array();
        for (const auto& item : rows->first) list.push_back(fleet::to_json(item));
        return json{{"rows", std::move(list)},
                    {"result_truncated_by_cap", rows->second},
                    {"devices_omitted", *omitted}};
    };
    return spec;
}

ToolSpec list_inventory_tables_tool(auth::Identity& identity, fleet::Fleet& fleet) {
    ToolSpec spec;
    spec.name = "list_inventory_tables";
    spec.title = "List inventory sources";
    spec.description =
        "Which inventory sources agents have reported, with how "
        "many agents reported each and "
        "when the newest report was collected (over the caller's "
        "management groups).";
    spec.input_schema = {{"type", "object"}, {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties", {{"tables", {{"type", "array"}}}}},
                          {"required", {"tables"}}};
    spec.tier_key = kInfraRead;
    spec.access = ToolAccess{kInfraRead, AccessScope::kAgents, ""};
    spec.handler = [&identity, &fleet](const ToolCall& call) -> Result<json> {
        const auto* view = &call.view;
        auto tables = fleet.inventory().tables(*view);
        if (!tables.ok()) return tables.status();
        json list = json::array();
        for (const auto& t : *tables) list.push_back(fleet::to_json(t));
        return json{{"tables", std::move(list)}};
    };
    return spec;
}

ToolSpec get_agent_inventory_tool(auth::Identity& identity, fleet::Fleet& fleet) {
    ToolSpec spec;
    spec.name = "get_agent_inventory";
    spec.title = "Agent inventory";
    spec.description =
        "Everything one agent reported about its host, by source (optionally "
        "just one source): "
        "OS release, kernel and architecture, hostname and uptime, CPU and load, "
        "memory, disks, "
        "network interfaces, installed packages, listening sockets, processes, "
        "pending reboot "
        "and systemd units. Sources the agent could not read say so.";
    spec.input_schema = {{"type", "object"},
                         {"properties", {{"agent_id", kAgentIdSchema}, {"source", kSourceSchema}}},
                         {"required", {"agent_id"}},
                         {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties", {{"agent_id", {{"type", "string"}}}, {"sources", {{"type", "array"}}}}},
        {"required", {"agent_id", "sources"}}};
    spec.tier_key = kInfraRead;
    spec.access = ToolAccess{kInfraRead, AccessScope::kAgents, "agent_id"};
    spec.handler = [&identity, &fleet](const ToolCall& call) -> Result<json> {
        const std::string id = call.arguments.at("agent_id").get<std::string>();
        auto items = fleet.inventory().for_agent(id);
        if (!items.ok()) return items.status();
        const std::string only = call.arguments.value("source", "");
        json sources = json::array();
        for (const auto& item : *items) {
            if (only.empty() || item.source == only) sources.push_back(fleet::to_json(item));
        }
        return json{{"agent_id", id}, {"sources", std::move(sources)}};
    };
    return spec;
}

ToolSpec query_installed_software_tool(auth::Identity& identity, fleet::Fleet& fleet) {
    ToolSpec spec;
    spec.name = "query_installed_software";
    spec.title = "Query installed software";
    spec.description =
        "Installed packages reported by agents (dpkg or rpm), by "
        "exact package name and/or "
        "agent: agent_id, name, version, arch. devices_omitted "
        "counts agents outside the "
        "caller's management groups.";
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"name", {{"type", "string"}, {"minLength", 1}, {"maxLength", 256}}},
                           {"agent_id", kAgentIdSchema},
                           {"limit", kLimitSchema}}},
                         {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"software", {{"type", "array"}}},
                            {"result_truncated_by_cap", {{"type", "boolean"}}},
                            {"devices_omitted", {{"type", "integer"}}}}},
                          {"required", {"software", "result_truncated_by_cap", "devices_omitted"}}};
    spec.tier_key = Permission{Securable::kInventory, Operation::kRead};
    spec.access = ToolAccess{kInventoryRead, AccessScope::kAgents, ""};
    spec.handler = [&identity, &fleet](const ToolCall& call) -> Result<json> {
        const json& args = call.arguments;
        const auto* view = &call.view;
        fleet::SoftwareQuery q;
        if (args.contains("name")) q.name = args["name"].get<std::string>();
        if (args.contains("agent_id")) q.agent_id = args["agent_id"].get<std::string>();
        q.only_agents = *view;
        q.limit = args.value("limit", 100);
        auto rows = fleet.inventory().software(q);
        if (!rows.ok()) return rows.status();
        auto omitted = devices_omitted(fleet, *view);
        if (!omitted.ok()) return omitted.status();
        json list = json::array();
        for (const auto& s : rows->first) list.push_back(fleet::to_json(s));
        return json{{"software", std::move(list)},
                    {"result_truncated_by_cap", rows->second},
                    {"devices_omitted", *omitted}};
    };
    return spec;
}

}  // namespace

Status register_inventory_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    if (deps.fleet == nullptr) return Status::Ok();
    YUZU_RETURN_IF_ERROR(tools.add(query_inventory_tool(deps.identity, *deps.fleet)));
    YUZU_RETURN_IF_ERROR(tools.add(list_inventory_tables_tool(deps.identity, *deps.fleet)));
    YUZU_RETURN_IF_ERROR(tools.add(get_agent_inventory_tool(deps.identity, *deps.fleet)));
    return tools.add(query_installed_software_tool(deps.identity, *deps.fleet));
}

}  // namespace yuzu::mcp
