// MCP tools over device performance from heartbeat samples:
// get_dex_perf_fleet and list_dex_perf_devices. Twins of
// GET /api/v1/dex/perf/fleet and /api/v1/dex/perf/devices.
//
// Stats cover only the agents on which the caller holds
// GuaranteedState:Read; a metric nobody reported is null, never 0.
#include <algorithm>

#include "compliance_tool_support.hpp"
#include "fleet_tool_support.hpp"
#include "yuzu/access/agent_scope.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/compliance/compliance.hpp"
#include "yuzu/compliance/compliance_json.hpp"
#include "yuzu/compliance/dex_perf.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kDexRead{Securable::kGuaranteedState, Operation::kRead};

const json kStatSchema = {
    {"type", {"object", "null"}},
    {"description", "{avg, p50, p90, max, n}, or null when no agent reported the metric"}};

ToolSpec get_dex_perf_fleet_tool(auth::Identity& identity, fleet::Fleet& fleet,
                                 const compliance::DexPerf& dex) {
    ToolSpec spec;
    spec.name = "get_dex_perf_fleet";
    spec.title = "Fleet performance now";
    spec.description =
        "Device performance across the fleet from the agents' latest heartbeat samples: "
        "cpu_pct, mem_used_pct, disk_used_pct and load1, each {avg, p50, p90, max, n} "
        "(nearest-rank percentiles) or null when no agent reported it; reporting = agents "
        "with a sample, online = agents online. Samples of offline agents count for 5 minutes.";
    spec.input_schema = {{"type", "object"}, {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties",
         {{"cpu_pct", kStatSchema},
          {"mem_used_pct", kStatSchema},
          {"disk_used_pct", kStatSchema},
          {"load1", kStatSchema},
          {"reporting", {{"type", "integer"}}},
          {"online", {{"type", "integer"}}},
          {"devices_omitted", {{"type", "integer"}}}}},
        {"required", {"cpu_pct", "mem_used_pct", "disk_used_pct", "load1", "reporting", "online"}}};
    spec.tier_key = kDexRead;
    spec.access = ToolAccess{kDexRead, AccessScope::kView, ""};
    spec.handler = [&identity, &fleet, &dex](const ToolCall& call) -> Result<json> {
        const auto* view = &call.view;
        auto stats = dex.fleet_stats(*view);
        if (!stats.ok()) return stats.status();
        json out = compliance::to_json(*stats);
        out["devices_omitted"] = access::agents_outside(fleet, *view);
        return out;
    };
    return spec;
}

ToolSpec list_dex_perf_devices_tool(auth::Identity& identity, fleet::Fleet& fleet,
                                    const compliance::DexPerf& dex) {
    ToolSpec spec;
    spec.name = "list_dex_perf_devices";
    spec.title = "Devices by performance";
    spec.description =
        "Devices ordered worst first by one metric (cpu, mem, disk or load) from their "
        "latest heartbeat sample, with fleet_pctile (the share of reporting devices at or "
        "below this one, in percent). filter not_reporting lists online agents that sent no "
        "sample instead. limit defaults to 50; values above 500 are clamped.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"metric",
           {{"type", "string"}, {"enum", {"cpu", "mem", "disk", "load"}}, {"default", "cpu"}}},
          {"filter", {{"type", "string"}, {"enum", {"not_reporting"}}}},
          {"limit", {{"type", "integer"}, {"minimum", 1}, {"default", 50}}}}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"metric", {{"type", "string"}}},
                            {"filter", {{"type", {"string", "null"}}}},
                            {"devices", {{"type", "array"}}},
                            {"devices_omitted", {{"type", "integer"}}}}},
                          {"required", {"metric", "devices"}}};
    spec.tier_key = kDexRead;
    spec.access = ToolAccess{kDexRead, AccessScope::kView, ""};
    spec.handler = [&identity, &fleet, &dex](const ToolCall& call) -> Result<json> {
        const json& args = call.arguments;
        const auto metric = compliance::parse_perf_metric(args.value("metric", "cpu"));
        if (!metric) return Status::InvalidArgument("metric must be cpu, mem, disk or load");
        const int64_t limit = args.value("limit", int64_t{50});
        if (limit < 1) return Status::InvalidArgument("limit must be at least 1");
        const int clamped =
            static_cast<int>(std::min<int64_t>(limit, compliance::kMaxPerfDeviceLimit));
        const auto* view = &call.view;
        const bool silent = args.value("filter", "") == "not_reporting";
        json list = json::array();
        if (silent) {
            auto rows = dex.not_reporting(clamped, *view);
            if (!rows.ok()) return rows.status();
            for (const auto& d : *rows) list.push_back(compliance::to_json(d));
        } else {
            auto rows = dex.devices(*metric, clamped, *view);
            if (!rows.ok()) return rows.status();
            for (const auto& d : *rows) list.push_back(compliance::to_json(d));
        }
        return json{{"metric", compliance::perf_metric_name(*metric)},
                    {"filter", silent ? json("not_reporting") : json(nullptr)},
                    {"devices", std::move(list)},
                    {"devices_omitted", access::agents_outside(fleet, *view)}};
    };
    return spec;
}

}  // namespace

Status register_dex_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    if (deps.fleet == nullptr || deps.compliance == nullptr) return Status::Ok();
    const compliance::DexPerf& dex = deps.compliance->dex();
    YUZU_RETURN_IF_ERROR(tools.add(get_dex_perf_fleet_tool(deps.identity, *deps.fleet, dex)));
    return tools.add(list_dex_perf_devices_tool(deps.identity, *deps.fleet, dex));
}

}  // namespace yuzu::mcp
