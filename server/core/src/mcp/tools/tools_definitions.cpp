// MCP tools over instruction definitions: list_definitions and
// get_definition. Twins of GET /api/v1/definitions and
// /api/v1/definitions/{id}.
#include "execution_tool_support.hpp"
#include "yuzu/execution/definition_store.hpp"
#include "yuzu/execution/execution_json.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kDefinitionRead{Securable::kInstructionDefinition, Operation::kRead};

ToolSpec list_definitions_tool(execution::Executions& executions) {
    ToolSpec spec;
    spec.name = "list_definitions";
    spec.title = "List instruction definitions";
    spec.description =
        "The instructions this server can run on agents (plugin.action, e.g. os.info, "
        "process.list, service.restart), with their type (question = read-only, action = may "
        "change the host), whether they are destructive and enabled. Filter by plugin, type or "
        "enabled. Use get_definition for a definition's parameter schema.";
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"plugin", {{"type", "string"}, {"pattern", "^[a-z0-9_]{1,64}$"}}},
                           {"type", {{"type", "string"}, {"enum", {"question", "action"}}}},
                           {"enabled", {{"type", "boolean"}}}}},
                         {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties", {{"definitions", {{"type", "array"}}}}},
                          {"required", {"definitions"}}};
    spec.tier_key = kDefinitionRead;
    spec.access = ToolAccess{kDefinitionRead, AccessScope::kFleet, ""};
    spec.handler = [&executions](const ToolCall& call) -> Result<json> {
        const json& args = call.arguments;
        execution::DefinitionFilter filter;
        filter.plugin = args.value("plugin", "");
        filter.type = args.value("type", "");
        if (args.contains("enabled")) filter.enabled = args["enabled"].get<bool>();
        auto list = executions.definitions().list(filter);
        if (!list.ok()) return list.status();
        json out = json::array();
        for (const auto& d : *list) out.push_back(execution::to_json(d));
        return json{{"definitions", std::move(out)}};
    };
    return spec;
}

ToolSpec get_definition_tool(execution::Executions& executions) {
    ToolSpec spec;
    spec.name = "get_definition";
    spec.title = "Instruction definition";
    spec.description =
        "One instruction definition by id (built-ins are named plugin.action, e.g. "
        "file.hash): its parameter_schema (the JSON Schema execute_instruction's params must "
        "satisfy), result columns, type, approval mode and whether it is enabled.";
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"id",
                            {{"type", "string"},
                             {"minLength", 1},
                             {"maxLength", static_cast<int>(execution::kDefinitionIdMaxLength)}}}}},
                         {"required", {"id"}},
                         {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"id", {{"type", "string"}}},
                            {"plugin", {{"type", "string"}}},
                            {"action", {{"type", "string"}}},
                            {"parameter_schema", {{"type", "object"}}},
                            {"result_columns", {{"type", "array"}}}}},
                          {"required", {"id", "plugin", "action", "parameter_schema"}}};
    spec.tier_key = kDefinitionRead;
    spec.access = ToolAccess{kDefinitionRead, AccessScope::kFleet, ""};
    spec.handler = [&executions](const ToolCall& call) -> Result<json> {
        const std::string id = call.arguments.at("id").get<std::string>();
        auto definition = executions.definitions().get(id);
        if (!definition.ok()) {
            if (definition.status().code() == StatusCode::kNotFound) {
                return Status::NotFound("definition not found: " + id);
            }
            return definition.status();
        }
        return execution::definition_details_json(*definition);
    };
    return spec;
}

}  // namespace

Status register_definition_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    if (deps.executions == nullptr) return Status::Ok();
    YUZU_RETURN_IF_ERROR(tools.add(list_definitions_tool(*deps.executions)));
    return tools.add(get_definition_tool(*deps.executions));
}

}  // namespace yuzu::mcp
