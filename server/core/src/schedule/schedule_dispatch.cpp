#include "yuzu/schedule/schedule_dispatch.hpp"

#include "yuzu/access/dispatch_gate.hpp"
#include "yuzu/access/permission_check.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/execution/definition_store.hpp"
#include "yuzu/execution/executions.hpp"

namespace yuzu::schedule {

Result<auth::Principal> owner_principal(auth::Identity& identity, const std::string& owner) {
    auto user = identity.users().get_user(owner);
    if (!user.ok()) {
        if (user.status().code() == StatusCode::kNotFound) {
            return Status::FailedPrecondition("the schedule's owner '" + owner +
                                              "' no longer exists; a new owner must save the "
                                              "schedule again");
        }
        return user.status();
    }
    auth::Principal who;
    who.username = user->username;
    who.kind = auth::PrincipalKind::kUserSession;
    return who;
}

Result<execution::DispatchSpec> authorize_schedule_dispatch(const DispatchServices& services,
                                                            const auth::Principal& who,
                                                            const ScheduleSpec& spec) {
    const auth::Permission execute{auth::Securable::kExecution, auth::Operation::kExecute};
    YUZU_RETURN_IF_ERROR(access::check_direct_tier(who, execute));
    auto definition = services.executions.definitions().get(spec.definition_id);
    if (!definition.ok()) {
        if (definition.status().code() == StatusCode::kNotFound) {
            return Status::InvalidArgument("definition_id: no instruction definition '" +
                                           spec.definition_id +
                                           "'; list the definitions to see "
                                           "what can run");
        }
        return definition.status();
    }
    execution::TargetSelection selection;
    selection.scope = spec.target.scope;
    selection.agent_ids = spec.target.agent_ids;
    auto targets =
        access::authorize_dispatch(services.identity, services.fleet, services.executions, who,
                                   definition->plugin, definition->action, selection);
    if (!targets.ok()) return targets.status();

    execution::DispatchSpec dispatch;
    dispatch.definition_id = definition->id;
    dispatch.plugin = definition->plugin;
    dispatch.action = definition->action;
    dispatch.params_json = spec.params_json;
    YUZU_RETURN_IF_ERROR(services.executions.tracker().check_dispatchable(dispatch));
    dispatch.agent_ids = std::move(targets->agent_ids);
    dispatch.scope_expression = std::move(targets->scope_expression);
    dispatch.dispatched_by = who.username;
    return dispatch;
}

}  // namespace yuzu::schedule
