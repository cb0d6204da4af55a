// Who reaches and sees what of executions, decided once for REST and MCP so
// the two surfaces cannot drift apart.
//
// A caller's view for a permission is the set of agents on which it holds
// that permission (management-group scoping); nullopt means fleet-wide.
// An agent outside the view reads exactly like an unknown agent.
//
// Thread-safety: stateless; safe from any thread.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/execution/execution_tracker.hpp"

namespace yuzu::auth {
class Authorizer;
class ManagementGroupStore;
}  // namespace yuzu::auth
namespace yuzu::fleet {
class Fleet;
}

namespace yuzu::execution {

// The scope that means "every agent the caller may reach".
inline constexpr const char* kAllAgentsScope = "__all__";

using AgentView = std::optional<std::set<std::string>>;

// The agents on which `who` holds `what`: nullopt for a fleet-wide grant.
Result<AgentView> agent_view(const auth::Authorizer& authorizer, fleet::Fleet& fleet,
                             const auth::Principal& who, auth::Permission what);

inline bool in_view(const AgentView& view, const std::string& agent_id) {
    return !view || view->count(agent_id) > 0;
}

// What a dispatch request names: a scope, explicit agent ids, or neither
// (every agent in the view). Giving both is refused.
struct TargetSelection {
    std::string scope;  // "" or "__all__" = every agent in the view; else a scope expression
    std::optional<std::vector<std::string>> agent_ids;
};

struct ResolvedTargets {
    std::vector<std::string> agent_ids;  // ordered, distinct
    std::string scope_expression;        // what the execution records
};

// Resolves `selection` within `view` (computed for Execution:Execute).
// Implicit and scope targeting skip agents whose device token is revoked;
// offline agents are kept (the tracker records them "offline").
// InvalidArgument for a bad scope or both forms at once; NotFound
// "agent not found: <id>" for an explicit id that is unknown or outside the
// view (the same answer for both).
Result<ResolvedTargets> resolve_targets(fleet::Fleet& fleet,
                                        const auth::ManagementGroupStore* groups,
                                        const AgentView& view, const TargetSelection& selection);

// Whether an execution is visible to a caller whose view (for the read
// permission in question) is `view`: a fleet-wide view, the caller
// dispatched it, or it targeted at least one agent in the view.
bool execution_visible(const ExecutionRecord& record,
                       const std::vector<AgentExecutionState>& agents, const auth::Principal& who,
                       const AgentView& view);

// The agent states inside the view, in dispatch order.
std::vector<AgentExecutionState> states_in_view(std::vector<AgentExecutionState> agents,
                                                const AgentView& view);

}  // namespace yuzu::execution
