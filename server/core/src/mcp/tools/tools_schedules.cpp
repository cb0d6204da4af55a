// MCP tools over schedules: list_schedules, the twin of GET
// /api/v1/schedules. Schedule:Read is fleet-wide, as on REST.
#include "yuzu/mcp/tool.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"
#include "yuzu/schedule/schedule_json.hpp"
#include "yuzu/schedule/schedules.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kScheduleRead{Securable::kSchedule, Operation::kRead};

json schedule_item_schema() {
    const json integer = {{"type", "integer"}};
    const json string = {{"type", "string"}};
    return {{"type", "object"},
            {"properties",
             {{"id", string},
              {"name", string},
              {"definition_id", string},
              {"scope", string},
              {"agent_ids", {{"type", {"array", "null"}}, {"items", string}}},
              {"params", {{"type", "object"}}},
              {"frequency_type",
               {{"type", "string"}, {"enum", {"once", "interval", "daily", "weekly"}}}},
              {"run_at", integer},
              {"interval_seconds", integer},
              {"time_of_day", string},
              {"day_of_week", integer},
              {"enabled", {{"type", "boolean"}}},
              {"owner", string},
              {"created_at", integer},
              {"updated_at", integer},
              {"next_execution_at", integer},
              {"last_run_at", integer},
              {"last_execution_id", string},
              {"run_count", integer},
              {"last_error", string}}},
            {"required",
             {"id", "name", "definition_id", "frequency_type", "enabled", "next_execution_at",
              "owner", "run_count", "last_error"}}};
}

ToolSpec list_schedules_tool(schedule::Schedules& schedules) {
    ToolSpec spec;
    spec.name = "list_schedules";
    spec.title = "List schedules";
    spec.description =
        "Every schedule: an instruction definition run on a scope or on agent_ids at a "
        "frequency (once at run_at, every interval_seconds, daily or weekly at time_of_day "
        "UTC), with its owner (whose rights each run uses, checked at run time), whether it is "
        "enabled, next_execution_at (Unix s, 0 = none), run_count, last_run_at, "
        "last_execution_id (see get_execution_status) and last_error (why the last run was "
        "refused). Newest first.";
    spec.input_schema = {
        {"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"schedules", {{"type", "array"}, {"items", schedule_item_schema()}}},
                            {"count", {{"type", "integer"}, {"minimum", 0}}}}},
                          {"required", {"schedules", "count"}}};
    spec.tier_key = kScheduleRead;
    spec.access = ToolAccess{kScheduleRead, AccessScope::kFleet, ""};
    spec.handler = [&schedules](const ToolCall&) -> Result<json> {
        auto list = schedules.list();
        if (!list.ok()) return list.status();
        json out = json::array();
        for (const auto& s : *list) out.push_back(schedule::to_json(s));
        const size_t count = out.size();
        return json{{"schedules", std::move(out)}, {"count", count}};
    };
    return spec;
}

}  // namespace

Status register_schedule_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    if (deps.schedules == nullptr) return Status::Ok();
    return tools.add(list_schedules_tool(*deps.schedules));
}

}  // namespace yuzu::mcp
