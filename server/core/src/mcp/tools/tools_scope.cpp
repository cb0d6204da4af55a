// MCP tools over the scope DSL: validate_scope and preview_scope_targets.
// Twins of POST /api/v1/scope/validate and /api/v1/scope/preview.
#include "fleet_tool_support.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/fleet/scope_resolver.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"
#include "yuzu/scope/scope.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kInfraRead{Securable::kInfrastructure, Operation::kRead};
// Above this many matches the preview warns before anyone dispatches to them.
constexpr size_t kPreviewWarnAbove = 50;

const json kExpressionSchema = {{"type", "string"},
                                {"minLength", 1},
                                {"maxLength", static_cast<int>(scope::kMaxExpressionBytes)},
                                {"description",
                                 "e.g. os = \"linux\" AND tag:env = \"prod\" OR hostname "
                                 "LIKE \"web-%\"; attributes: "
                                 "agent_id, hostname, os, os_version, arch, version, "
                                 "online, group, tag:<key>; operators: "
                                 "= != < <= > >= LIKE IN EXISTS, AND OR NOT, parentheses"}};

ToolSpec validate_scope_tool() {
    ToolSpec spec;
    spec.name = "validate_scope";
    spec.title = "Validate a scope expression";
    spec.description =
        "Parses a scope expression without evaluating it. Answers "
        "valid:true with its canonical "
        "form, or valid:false with the error and its 0-based byte "
        "position. An invalid "
        "expression is a normal result, not a tool error.";
    spec.input_schema = {{"type", "object"},
                         {"properties", {{"expression", kExpressionSchema}}},
                         {"required", {"expression"}},
                         {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"valid", {{"type", "boolean"}}},
                            {"expression", {{"type", "string"}}},
                            {"canonical", {{"type", "string"}}},
                            {"error", {{"type", "string"}}},
                            {"position", {{"type", "integer"}}}}},
                          {"required", {"valid", "expression"}}};
    spec.tier_key = kInfraRead;
    // Parsing reveals nothing about the fleet: the caller's own question.
    spec.access = ToolAccess{kInfraRead, AccessScope::kSelf, ""};
    spec.handler = [](const ToolCall& call) -> Result<json> {
        const std::string text = call.arguments.at("expression").get<std::string>();
        scope::ParseError error;
        auto parsed = scope::parse(text, &error);
        json out = {{"valid", parsed.ok()}, {"expression", text}};
        if (parsed.ok()) {
            out["canonical"] = parsed->canonical();
        } else {
            out["error"] = error.message;
            out["position"] = error.position;
        }
        return out;
    };
    return spec;
}

ToolSpec preview_scope_targets_tool(auth::Identity& identity, fleet::Fleet& fleet) {
    ToolSpec spec;
    spec.name = "preview_scope_targets";
    spec.title = "Preview scope targets";
    spec.description =
        "Which agents a scope expression selects right now, among "
        "those in the caller's "
        "management groups (online or not). Use it before "
        "execute_instruction; a warning "
        "appears when more than 50 agents match.";
    spec.input_schema = {{"type", "object"},
                         {"properties", {{"expression", kExpressionSchema}}},
                         {"required", {"expression"}},
                         {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"expression", {{"type", "string"}}},
                            {"matched_count", {{"type", "integer"}}},
                            {"matched_agents", {{"type", "array"}}},
                            {"warning", {{"type", "string"}}}}},
                          {"required", {"expression", "matched_count", "matched_agents"}}};
    spec.tier_key = kInfraRead;
    spec.access = ToolAccess{kInfraRead, AccessScope::kAgents, ""};
    spec.handler = [&identity, &fleet](const ToolCall& call) -> Result<json> {
        const auto* view = &call.view;
        auto match = fleet::resolve_scope(
            fleet, &identity.groups(), call.arguments.at("expression").get<std::string>(), *view);
        if (!match.ok()) return match.status();
        json out = {{"expression", match->canonical},
                    {"matched_count", match->agent_ids.size()},
                    {"matched_agents", match->agent_ids}};
        if (match->agent_ids.size() > kPreviewWarnAbove) {
            out["warning"] = "more than " + std::to_string(kPreviewWarnAbove) +
                             " agents match; narrow the scope before dispatching";
        }
        return out;
    };
    return spec;
}

}  // namespace

Status register_scope_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    if (deps.fleet == nullptr) return Status::Ok();
    YUZU_RETURN_IF_ERROR(tools.add(validate_scope_tool()));
    return tools.add(preview_scope_targets_tool(deps.identity, *deps.fleet));
}

}  // namespace yuzu::mcp
