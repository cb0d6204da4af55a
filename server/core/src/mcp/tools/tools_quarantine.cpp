// MCP tool quarantine_device: sets an agent quarantined, after which it
// refuses every instruction. Twin of POST /api/v1/agents/{id}/quarantine.
// Tier key Security:Write (supervised tier: approval-gated; lower tiers:
// refused); RBAC Security:Execute on the agent, and an agent outside the
// caller's view reads as unknown.
#include "execution_tool_support.hpp"
#include "fleet_tool_support.hpp"
#include "yuzu/execution/execution_json.hpp"
#include "yuzu/execution/executions.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kSecurityWrite{Securable::kSecurity, Operation::kWrite};
const Permission kSecurityExecute{Securable::kSecurity, Operation::kExecute};

ToolSpec quarantine_device_tool(const ExecutionToolDeps& deps) {
    ToolSpec spec;
    spec.name = "quarantine_device";
    spec.title = "Quarantine a device";
    spec.description =
        "Puts one agent in quarantine: from its next contact it refuses every instruction, "
        "and the registry shows it quarantined. Needs a human's approval at the supervised "
        "tier: the first call returns an approval ticket; call again with the same arguments "
        "plus approval_id once it is approved. Release is an administrator's REST action.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"agent_id", kAgentIdSchema},
          {"reason",
           {{"type", "string"},
            {"maxLength", static_cast<int>(execution::kQuarantineReasonMaxBytes)}}}}},
        {"required", {"agent_id"}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"quarantined", {{"type", "boolean"}}},
                            {"agent_id", {{"type", "string"}}},
                            {"quarantine_record", {{"type", "object"}}}}},
                          {"required", {"quarantined", "agent_id", "quarantine_record"}}};
    spec.annotations.read_only = false;
    spec.annotations.destructive = true;
    spec.annotations.idempotent = false;
    spec.tier_key = kSecurityWrite;
    spec.access = ToolAccess{kSecurityExecute, AccessScope::kAgents, "agent_id"};
    spec.handler = [deps](const ToolCall& call) -> Result<json> {
        const std::string id = call.arguments.at("agent_id").get<std::string>();
        auto status = deps.executions.quarantine().quarantine(
            id, call.arguments.value("reason", ""), call.principal.username);
        if (!status.ok()) return status.status();
        return json{{"quarantined", true},
                    {"agent_id", id},
                    {"quarantine_record", execution::to_json(*status)}};
    };
    return spec;
}

}  // namespace

Status register_quarantine_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    auto d = execution_tool_deps(deps);
    if (!d) return Status::Ok();
    return tools.add(quarantine_device_tool(*d));
}

}  // namespace yuzu::mcp
