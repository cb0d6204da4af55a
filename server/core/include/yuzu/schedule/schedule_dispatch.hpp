// The one check between a schedule and an execution: may this principal
// dispatch this schedule's instruction on its targets, now? The service runs
// it for the person creating or changing a schedule, and the engine for the
// owner at every run, so a schedule never lets anyone run what they could
// not run by hand.
//
// The checks are a manual dispatch's, in its order: the MCP tier allows
// Execution:Execute directly (REST's rule for tokens); the definition exists
// and is enabled; access::authorize_dispatch on its plugin.action and the
// target (Execution:Execute on at least one agent, explicit agents in the
// caller's view, destructive instructions only on named targets); params
// against the definition's parameter_schema.
//
// Thread-safety: stateless; safe from any thread.
#pragma once

#include <string>

#include "yuzu/auth/principal.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/execution/execution_tracker.hpp"
#include "yuzu/schedule/schedule.hpp"

namespace yuzu::auth {
class Identity;
}
namespace yuzu::execution {
class Executions;
}
namespace yuzu::fleet {
class Fleet;
}

namespace yuzu::schedule {

struct DispatchServices {
    auth::Identity& identity;
    fleet::Fleet& fleet;
    execution::Executions& executions;
};

// The principal a run acts as: `owner` as the user exists now, with no MCP
// tier (RBAC reads the owner's roles afresh on every check). A user that no
// longer exists is FailedPrecondition. A login lock does not count: it
// throttles password guessing and stops neither tokens nor schedules.
Result<auth::Principal> owner_principal(auth::Identity& identity, const std::string& owner);

// The dispatch `who` may make for `spec` now: agent_ids, scope_expression
// and dispatched_by (who) filled. InvalidArgument (unknown definition, bad
// params or target), NotFound (an explicit agent outside the view),
// PermissionDenied (tier, no agent, destructive on the whole fleet),
// FailedPrecondition (definition disabled).
Result<execution::DispatchSpec> authorize_schedule_dispatch(const DispatchServices& services,
                                                            const auth::Principal& who,
                                                            const ScheduleSpec& spec);

}  // namespace yuzu::schedule
