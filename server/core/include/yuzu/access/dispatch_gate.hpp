// Who may send an instruction where, decided once for REST and MCP, before
// anything is dispatched (and, over MCP, before an approval ticket is
// minted, so a person is never asked to approve a call that cannot run):
//
//   dispatch authorization  the caller holds Execution:Execute on at least
//                           one agent, and explicit agents lie in that view
//   destructive targeting   a destructive instruction names its targets
//                           (agent_ids or a scope), never the whole fleet
//                           implicitly
//
// Thread-safety: stateless; safe from any thread.
#pragma once

#include <string>

#include "yuzu/auth/principal.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/execution/execution_access.hpp"

namespace yuzu::auth {
class Identity;
}
namespace yuzu::execution {
class Executions;
}
namespace yuzu::fleet {
class Fleet;
}

namespace yuzu::access {

// The targets of plugin.action for `who`. InvalidArgument for a bad
// selection; NotFound for an explicit agent outside the view (read as
// unknown); PermissionDenied when the caller may act on no agent at all, or
// a destructive instruction targets the fleet implicitly. A scope that
// matches nothing is not a refusal (the dispatch reaches no agent).
Result<execution::ResolvedTargets> authorize_dispatch(auth::Identity& identity, fleet::Fleet& fleet,
                                                      execution::Executions& executions,
                                                      const auth::Principal& who,
                                                      const std::string& plugin,
                                                      const std::string& action,
                                                      const execution::TargetSelection& selection);

}  // namespace yuzu::access
