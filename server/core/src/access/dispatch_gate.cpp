#include "yuzu/access/dispatch_gate.hpp"

#include "yuzu/auth/identity.hpp"
#include "yuzu/execution/definition_store.hpp"
#include "yuzu/execution/executions.hpp"

namespace yuzu::access {

Result<execution::ResolvedTargets> authorize_dispatch(auth::Identity& identity, fleet::Fleet& fleet,
                                                      execution::Executions& executions,
                                                      const auth::Principal& who,
                                                      const std::string& plugin,
                                                      const std::string& action,
                                                      const execution::TargetSelection& selection) {
    const auth::Permission execute{auth::Securable::kExecution, auth::Operation::kExecute};
    // The view first: a caller who may act on no agent learns nothing about
    // the instruction.
    auto view = execution::agent_view(identity.authorizer(), fleet, who, execute);
    if (!view.ok()) return view.status();
    if (*view && (*view)->empty()) {
        return Status::PermissionDenied("permission denied: Execution:Execute (held on no agent)");
    }
    const bool implicit = !selection.agent_ids && (selection.scope.empty() ||
                                                   selection.scope == execution::kAllAgentsScope);
    if (implicit) {
        auto def = executions.definitions().find(plugin, action);
        if (def.ok() && def->destructive) {
            return Status::PermissionDenied(
                "destructive instruction " + plugin + "." + action +
                " needs explicit targets: give agent_ids or a scope, not the whole fleet");
        }
    }
    return execution::resolve_targets(fleet, &identity.groups(), *view, selection);
}

}  // namespace yuzu::access
