// MCP tools over compliance policies: list_policies,
// get_compliance_summary and get_fleet_compliance. Twins of
// GET /api/v1/policies, /api/v1/compliance/summary?policy_id= and
// /api/v1/compliance/fleet.
//
// Counts cover only the agents on which the caller holds Policy:Read
// (globally or through a management-group role); devices_omitted says how
// many registered agents that hides. A caller holding Policy:Read nowhere
// is refused.
#include "compliance_tool_support.hpp"
#include "fleet_tool_support.hpp"
#include "yuzu/access/agent_scope.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/compliance/compliance.hpp"
#include "yuzu/compliance/compliance_json.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kPolicyRead{Securable::kPolicy, Operation::kRead};

const json kCountsSchema = {{"type", "integer"}, {"minimum", 0}};

ToolSpec list_policies_tool(auth::Identity& identity, fleet::Fleet& fleet,
                            compliance::Compliance& compliance) {
    ToolSpec spec;
    spec.name = "list_policies";
    spec.title = "List compliance policies";
    spec.description =
        "Compliance policies: id, name, description, enabled, scope_expression (\"\" = every "
        "agent) and the rule they check over agent inventory (source, select, assert, mode). "
        "Optionally only enabled or only disabled ones.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"enabled",
           {{"type", "boolean"}, {"description", "only policies with this enabled flag"}}}}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties", {{"policies", {{"type", "array"}}}}},
                          {"required", {"policies"}}};
    spec.tier_key = kPolicyRead;
    spec.access = ToolAccess{kPolicyRead, AccessScope::kView, ""};
    spec.handler = [&identity, &fleet, &compliance](const ToolCall& call) -> Result<json> {
        auto policies = compliance.policies().list();
        if (!policies.ok()) return policies.status();
        const json& args = call.arguments;
        json list = json::array();
        for (const auto& p : *policies) {
            if (args.contains("enabled") && args["enabled"].get<bool>() != p.enabled) continue;
            list.push_back(compliance::to_json(p));
        }
        return json{{"policies", std::move(list)}};
    };
    return spec;
}

ToolSpec get_compliance_summary_tool(auth::Identity& identity, fleet::Fleet& fleet,
                                     compliance::Compliance& compliance) {
    ToolSpec spec;
    spec.name = "get_compliance_summary";
    spec.title = "Compliance summary of one policy";
    spec.description =
        "How many agents comply with one policy at its last evaluation: compliant, "
        "non_compliant, unknown (the server cannot tell: inventory missing, unavailable or "
        "stale) and total, with last_evaluated. Only agents in the caller's management "
        "groups; devices_omitted counts the others.";
    spec.input_schema = {{"type", "object"},
                         {"properties", {{"policy_id", kPolicyIdSchema}}},
                         {"required", {"policy_id"}},
                         {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties",
         {{"policy_id", {{"type", "string"}}},
          {"compliant", kCountsSchema},
          {"non_compliant", kCountsSchema},
          {"unknown", kCountsSchema},
          {"total", kCountsSchema},
          {"devices_omitted", kCountsSchema}}},
        {"required",
         {"policy_id", "compliant", "non_compliant", "unknown", "total", "devices_omitted"}}};
    spec.tier_key = kPolicyRead;
    spec.access = ToolAccess{kPolicyRead, AccessScope::kView, ""};
    spec.handler = [&identity, &fleet, &compliance](const ToolCall& call) -> Result<json> {
        const auto* view = &call.view;
        const std::string id = call.arguments.at("policy_id").get<std::string>();
        auto summary = compliance.summary(id, *view);
        if (!summary.ok()) return summary.status();
        json out = compliance::to_json(*summary);
        out["devices_omitted"] = access::agents_outside(fleet, *view);
        return out;
    };
    return spec;
}

ToolSpec get_fleet_compliance_tool(auth::Identity& identity, fleet::Fleet& fleet,
                                   compliance::Compliance& compliance) {
    ToolSpec spec;
    spec.name = "get_fleet_compliance";
    spec.title = "Fleet compliance";
    spec.description =
        "Fleet-wide compliance over every enabled policy: total_checks (policy x agent), "
        "compliant, non_compliant, unknown, and compliance_pct = compliant / (total_checks - "
        "unknown), null when nothing could be judged. Only agents in the caller's management "
        "groups; devices_omitted counts the others.";
    spec.input_schema = {{"type", "object"}, {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties",
         {{"total_checks", kCountsSchema},
          {"compliant", kCountsSchema},
          {"non_compliant", kCountsSchema},
          {"unknown", kCountsSchema},
          {"compliance_pct", {{"type", {"number", "null"}}}},
          {"policies", kCountsSchema},
          {"devices_omitted", kCountsSchema}}},
        {"required", {"total_checks", "compliant", "non_compliant", "unknown", "compliance_pct"}}};
    spec.tier_key = kPolicyRead;
    spec.access = ToolAccess{kPolicyRead, AccessScope::kView, ""};
    spec.handler = [&identity, &fleet, &compliance](const ToolCall& call) -> Result<json> {
        const auto* view = &call.view;
        auto totals = compliance.fleet_compliance(*view);
        if (!totals.ok()) return totals.status();
        json out = compliance::to_json(*totals);
        out["devices_omitted"] = access::agents_outside(fleet, *view);
        return out;
    };
    return spec;
}

}  // namespace

Status register_compliance_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    if (deps.fleet == nullptr || deps.compliance == nullptr) return Status::Ok();
    auth::Identity& identity = deps.identity;
    fleet::Fleet& fleet = *deps.fleet;
    compliance::Compliance& compliance = *deps.compliance;
    YUZU_RETURN_IF_ERROR(tools.add(list_policies_tool(identity, fleet, compliance)));
    YUZU_RETURN_IF_ERROR(tools.add(get_compliance_summary_tool(identity, fleet, compliance)));
    return tools.add(get_fleet_compliance_tool(identity, fleet, compliance));
}

}  // namespace yuzu::mcp
