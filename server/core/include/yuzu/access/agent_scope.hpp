// Management-group scoping, written once for REST and MCP: the agents a
// caller may act on for a permission, one agent's visibility, and which
// executions a caller may see. An agent or execution outside the caller's
// view reads exactly like one that does not exist, on every surface.
//
// Thread-safety: stateless; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/execution/execution_access.hpp"
#include "yuzu/execution/execution_tracker.hpp"

namespace yuzu::auth {
class Authorizer;
class Rbac;
}  // namespace yuzu::auth
namespace yuzu::fleet {
class Fleet;
}

namespace yuzu::access {

using execution::AgentView;

// The caller's view for `what` (nullopt = fleet-wide); PermissionDenied
// "permission denied: Type:Op" when it holds `what` on no agent at all.
Result<AgentView> acting_view(const auth::Authorizer& authorizer, fleet::Fleet& fleet,
                              const auth::Principal& who, auth::Permission what);

// Ok when the agent exists and the caller holds `what` on it; otherwise
// NotFound "agent not found: <id>", the same for both cases.
Status require_visible_agent(const auth::Authorizer& authorizer, fleet::Fleet& fleet,
                             const auth::Principal& who, auth::Permission what,
                             const std::string& agent_id);

// Registered agents outside `view` (0 for a fleet-wide view).
int64_t agents_outside(fleet::Fleet& fleet, const AgentView& view);

struct VisibleExecution {
    execution::ExecutionRecord record;
    std::vector<execution::AgentExecutionState> agents;  // inside the view only
    bool more_agents = false;                            // agents in the view follow the page read
    AgentView view;
};

// A page of the agents the caller can see, in dispatch order: `skip` of
// them passed over, at most `limit` returned. Counted among visible agents
// only, so a page boundary says nothing about agents outside the view.
struct AgentPage {
    size_t skip = 0;
    size_t limit = SIZE_MAX;
};

// The execution with the agent states of `page` (all by default) when `who`
// may see it through its view for `what`; NotFound "execution not found:
// <id>" otherwise (unknown and invisible alike). With a fleet-wide view only
// the page is read; a narrower view reads every agent to decide visibility.
Result<VisibleExecution> visible_execution(const auth::Authorizer& authorizer, fleet::Fleet& fleet,
                                           execution::ExecutionTracker& tracker,
                                           const auth::Principal& who, auth::Permission what,
                                           const std::string& execution_id,
                                           const AgentPage& page = {});

// A global Administrator (reads other principals' bundles).
bool is_administrator(auth::Rbac& rbac, const auth::Principal& who);

}  // namespace yuzu::access
