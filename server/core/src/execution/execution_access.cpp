#include "yuzu/execution/execution_access.hpp"

#include <algorithm>

#include "yuzu/auth/authorizer.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/agent_visibility.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/fleet/scope_resolver.hpp"

namespace yuzu::execution {

Result<AgentView> agent_view(const auth::Authorizer& authorizer, fleet::Fleet& fleet,
                             const auth::Principal& who, auth::Permission what) {
    // A fleet-wide grant needs no list of the fleet: this runs on every
    // execution read, and the registry can hold ten thousand agents.
    auto global = authorizer.allowed(who, what);
    if (!global.ok()) return global.status();
    if (*global) return AgentView();
    auto agents = fleet.registry().list();
    if (!agents.ok()) return agents.status();
    std::vector<std::string> ids;
    ids.reserve(agents->size());
    for (const auto& a : *agents) ids.push_back(a.agent_id);
    return fleet::visible_agents(authorizer, who, what, ids);
}

Result<ResolvedTargets> resolve_targets(fleet::Fleet& fleet,
                                        const auth::ManagementGroupStore* groups,
                                        const AgentView& view, const TargetSelection& selection) {
    const bool all = selection.scope.empty() || selection.scope == kAllAgentsScope;
    if (selection.agent_ids && !selection.scope.empty()) {
        return Status::InvalidArgument("give either scope or agent_ids, not both");
    }
    ResolvedTargets out;
    if (selection.agent_ids) {
        std::set<std::string> seen;
        for (const auto& id : *selection.agent_ids) {
            const Status missing = Status::NotFound("agent not found: " + id);
            if (!in_view(view, id)) return missing;
            auto record = fleet.registry().get(id);
            if (!record.ok()) {
                return record.status().code() == StatusCode::kNotFound ? missing : record.status();
            }
            if (seen.insert(id).second) out.agent_ids.push_back(id);
        }
        out.scope_expression = "agent_ids";
        return out;
    }

    auto agents = fleet.registry().list();
    if (!agents.ok()) return agents.status();
    std::set<std::string> reachable;
    for (const auto& a : *agents) {
        if (!a.device_revoked && in_view(view, a.agent_id)) reachable.insert(a.agent_id);
    }
    if (all) {
        out.agent_ids.assign(reachable.begin(), reachable.end());
        out.scope_expression = kAllAgentsScope;
        return out;
    }
    auto match = fleet::resolve_scope(fleet, groups, selection.scope, view);
    if (!match.ok()) return match.status();
    for (const auto& id : match->agent_ids) {
        if (reachable.count(id)) out.agent_ids.push_back(id);
    }
    out.scope_expression = match->canonical;
    return out;
}

bool execution_visible(const ExecutionRecord& record,
                       const std::vector<AgentExecutionState>& agents, const auth::Principal& who,
                       const AgentView& view) {
    if (!view || record.dispatched_by == who.username) return true;
    return std::any_of(agents.begin(), agents.end(),
                       [&](const AgentExecutionState& s) { return view->count(s.agent_id) > 0; });
}

std::vector<AgentExecutionState> states_in_view(std::vector<AgentExecutionState> agents,
                                                const AgentView& view) {
    if (!view) return agents;
    std::erase_if(agents,
                  [&](const AgentExecutionState& s) { return view->count(s.agent_id) == 0; });
    return agents;
}

}  // namespace yuzu::execution
