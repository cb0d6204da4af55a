#include "yuzu/fleet/agent_visibility.hpp"

#include "yuzu/auth/authorizer.hpp"

namespace yuzu::fleet {

Result<std::optional<std::set<std::string>>> visible_agents(
    const auth::Authorizer& authorizer, const auth::Principal& who, auth::Permission what,
    const std::vector<std::string>& candidates) {
    auto global = authorizer.allowed(who, what);
    if (!global.ok()) return global.status();
    if (*global) return std::optional<std::set<std::string>>{};
    std::set<std::string> visible;
    for (const auto& id : candidates) {
        auto on_agent = authorizer.allowed_on_agent(who, what, id);
        if (!on_agent.ok()) return on_agent.status();
        if (*on_agent) visible.insert(id);
    }
    return std::optional<std::set<std::string>>{std::move(visible)};
}

Result<bool> agent_visible(const auth::Authorizer& authorizer, const auth::Principal& who,
                           auth::Permission what, const std::string& agent_id) {
    return authorizer.allowed_on_agent(who, what, agent_id);
}

}  // namespace yuzu::fleet
