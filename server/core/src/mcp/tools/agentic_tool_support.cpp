#include "agentic_tool_support.hpp"

#include "yuzu/auth/tier_policy.hpp"

namespace yuzu::mcp {

nlohmann::json reachable_read_tools(const ToolCatalogue& tools, std::string_view tier,
                                    const nlohmann::json& candidates) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : candidates) {
        const ToolSpec* spec = tools.find(c.value("tool", ""));
        if (spec == nullptr || !spec->annotations.read_only || spec->is_write()) continue;
        if (!tier_can_reach(*spec, tier)) continue;
        out.push_back(c);
    }
    return out;
}

nlohmann::json next_tools_schema() {
    return {{"type", "array"},
            {"items",
             {{"type", "object"},
              {"properties",
               {{"tool", {{"type", "string"}}},
                {"arguments", {{"type", "object"}}},
                {"reason", {{"type", "string"}}}}},
              {"required", {"tool", "arguments", "reason"}}}}};
}

std::string_view dispatch_at_tier(std::string_view tier) {
    using auth::Operation;
    using auth::Securable;
    if (!auth::tier_allows(tier, Securable::kExecution, Operation::kExecute)) return "denied";
    if (auth::requires_approval(tier, Securable::kExecution, Operation::kExecute)) {
        return "needs_approval";
    }
    return "runs_at_once";
}

}  // namespace yuzu::mcp
