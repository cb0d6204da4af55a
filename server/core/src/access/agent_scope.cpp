#include "yuzu/access/agent_scope.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "yuzu/auth/authorizer.hpp"
#include "yuzu/auth/rbac.hpp"
#include "yuzu/auth/roles.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/agent_visibility.hpp"
#include "yuzu/fleet/fleet.hpp"

namespace yuzu::access {

Result<AgentView> acting_view(const auth::Authorizer& authorizer, fleet::Fleet& fleet,
                              const auth::Principal& who, auth::Permission what) {
    auto view = execution::agent_view(authorizer, fleet, who, what);
    if (!view.ok()) return view.status();
    if (*view && (*view)->empty()) {
        return Status::PermissionDenied("permission denied: " + auth::permission_name(what));
    }
    return view;
}

Status require_visible_agent(const auth::Authorizer& authorizer, fleet::Fleet& fleet,
                             const auth::Principal& who, auth::Permission what,
                             const std::string& agent_id) {
    const Status missing = Status::NotFound("agent not found: " + agent_id);
    auto visible = fleet::agent_visible(authorizer, who, what, agent_id);
    if (!visible.ok()) return visible.status();
    if (!*visible) return missing;
    auto record = fleet.registry().get(agent_id);
    if (!record.ok()) {
        return record.status().code() == StatusCode::kNotFound ? missing : record.status();
    }
    return Status::Ok();
}

int64_t agents_outside(fleet::Fleet& fleet, const AgentView& view) {
    if (!view) return 0;
    const auto total = static_cast<int64_t>(fleet.registry().total_count());
    return std::max<int64_t>(0, total - static_cast<int64_t>(view->size()));
}

Result<VisibleExecution> visible_execution(const auth::Authorizer& authorizer, fleet::Fleet& fleet,
                                           execution::ExecutionTracker& tracker,
                                           const auth::Principal& who, auth::Permission what,
                                           const std::string& execution_id, const AgentPage& page) {
    const Status missing = Status::NotFound("execution not found: " + execution_id);
    auto record = tracker.get(execution_id);
    if (!record.ok()) {
        return record.status().code() == StatusCode::kNotFound ? missing : record.status();
    }
    auto view = execution::agent_view(authorizer, fleet, who, what);
    if (!view.ok()) return view.status();
    VisibleExecution out;
    const bool bounded = page.limit != SIZE_MAX;
    if (!*view) {
        // Fleet-wide: every agent is visible and ordinals run 0..n-1, so the
        // page is read directly (one more than asked, to tell whether
        // others follow). No execution has more agents than an int holds.
        execution::AgentRange range;
        range.after =
            static_cast<int>(std::min<size_t>(page.skip, std::numeric_limits<int>::max())) - 1;
        range.limit = bounded ? page.limit + 1 : SIZE_MAX;
        auto agents = tracker.agent_states(execution_id, range);
        if (!agents.ok()) return agents.status();
        out.agents = std::move(agents).value();
    } else {
        auto agents = tracker.agent_states(execution_id);
        if (!agents.ok()) return agents.status();
        if (!execution::execution_visible(*record, *agents, who, *view)) return missing;
        out.agents = execution::states_in_view(std::move(agents).value(), *view);
        const size_t skipped = std::min(page.skip, out.agents.size());
        out.agents.erase(out.agents.begin(),
                         out.agents.begin() + static_cast<std::ptrdiff_t>(skipped));
    }
    if (bounded && out.agents.size() > page.limit) {
        out.agents.resize(page.limit);
        out.more_agents = true;
    }
    out.record = std::move(record).value();
    out.view = std::move(view).value();
    return out;
}

bool is_administrator(auth::Rbac& rbac, const auth::Principal& who) {
    auto roles = rbac.roles_of(who.username);
    if (!roles.ok()) return false;
    return std::find(roles->begin(), roles->end(), auth::kRoleAdministrator) != roles->end();
}

}  // namespace yuzu::access
