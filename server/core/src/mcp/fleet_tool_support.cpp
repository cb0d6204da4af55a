#include "fleet_tool_support.hpp"

#include "yuzu/auth/identity.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/agent_visibility.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/mcp/tool.hpp"

namespace yuzu::mcp {

Result<std::optional<std::set<std::string>>> fleet_view(auth::Identity& identity,
                                                        fleet::Fleet& fleet,
                                                        const auth::Principal& who,
                                                        auth::Permission what) {
    auto agents = fleet.registry().list();
    if (!agents.ok()) return agents.status();
    std::vector<std::string> ids;
    ids.reserve(agents->size());
    for (const auto& a : *agents) ids.push_back(a.agent_id);
    return fleet::visible_agents(identity.authorizer(), who, what, ids);
}

Status require_visible_agent(auth::Identity& identity, fleet::Fleet& fleet,
                             const auth::Principal& who, auth::Permission what,
                             const std::string& agent_id) {
    const Status missing = Status::NotFound("agent not found: " + agent_id);
    auto visible = fleet::agent_visible(identity.authorizer(), who, what, agent_id);
    if (!visible.ok()) return visible.status();
    if (!*visible) return missing;
    auto record = fleet.registry().get(agent_id);
    if (!record.ok()) {
        return record.status().code() == StatusCode::kNotFound ? missing : record.status();
    }
    return Status::Ok();
}

Status authorize_in_handler(const ToolCall&) {
    return Status::Ok();
}

}  // namespace yuzu::mcp
