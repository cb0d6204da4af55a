// Steps 4b and 6 of the tools/call pipeline: the tool's precheck (before the
// approval gate) and its declared access (after it). Both turn a Status into
// a denial through the one table in status.cpp, so a refusal reads and is
// audited the same whichever step or service found it.
#include <spdlog/spdlog.h>

#include "pipeline_support.hpp"
#include "yuzu/access/agent_scope.hpp"
#include "yuzu/access/group_authority.hpp"
#include "yuzu/access/permission_check.hpp"
#include "yuzu/auth/authorizer.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/mcp/error_codes.hpp"

namespace yuzu::mcp {
namespace {

std::string argument_text(const ToolCall& call, const std::string& name) {
    auto it = call.arguments.find(name);
    if (it == call.arguments.end() || !it->is_string()) return "";
    return it->get<std::string>();
}

Status check_scope(const PipelineEnv& env, const ToolAccess& access, ToolCall& call) {
    const auth::Principal& who = call.principal;
    switch (access.scope) {
        case AccessScope::kSelf:
            return Status::Ok();
        case AccessScope::kFleet:
            if (env.authorizer == nullptr) {
                return Status::PermissionDenied("permission denied: " +
                                                auth::permission_name(access.permission));
            }
            return access::require_role(*env.authorizer, who, access.permission);
        case AccessScope::kGroup: {
            if (env.identity == nullptr) {
                return Status::PermissionDenied("permission denied: " +
                                                auth::permission_name(access.permission));
            }
            return access::require_group_authority(*env.identity, who, access.permission,
                                                   argument_text(call, access.target));
        }
        case AccessScope::kAgents:
        case AccessScope::kView: {
            if (env.authorizer == nullptr || env.fleet == nullptr) {
                return Status::PermissionDenied("permission denied: " +
                                                auth::permission_name(access.permission));
            }
            const std::string agent_id = argument_text(call, access.target);
            if (!agent_id.empty()) {
                YUZU_RETURN_IF_ERROR(access::require_visible_agent(*env.authorizer, *env.fleet, who,
                                                                   access.permission, agent_id));
            }
            auto view =
                access.scope == AccessScope::kView
                    ? access::acting_view(*env.authorizer, *env.fleet, who, access.permission)
                    : execution::agent_view(*env.authorizer, *env.fleet, who, access.permission);
            if (!view.ok()) return view.status();
            call.view = std::move(view).value();
            return Status::Ok();
        }
    }
    return Status::Internal("unknown access scope");
}

// A Status from a precheck or access check as the pipeline's denial.
Denial denial_for(const Status& s, const ToolSpec& tool, const RequestInfo& info,
                  const std::string& remediation, const std::string& what) {
    Denial d;
    d.error = detail::map_failure(s, info, tool.name);
    if (d.error.code == kPermissionDenied && !remediation.empty()) {
        d.error.data["remediation"] = remediation;
    }
    d.audit_result = detail::audit_result_for(s);
    // The one-cid pattern: the same correlation id in the answer and the row.
    d.audit_detail = what + s.message() + " correlation_id=" + info.correlation_id;
    return d;
}

}  // namespace

std::string_view access_scope_name(AccessScope scope) {
    switch (scope) {
        case AccessScope::kFleet:
            return "fleet";
        case AccessScope::kAgents:
            return "agents";
        case AccessScope::kView:
            return "view";
        case AccessScope::kGroup:
            return "group";
        case AccessScope::kSelf:
            return "self";
    }
    return "unknown";
}

std::optional<Denial> check_precheck(const ToolSpec& tool, const ToolCall& call,
                                     const RequestInfo& info) {
    if (!tool.precheck) return std::nullopt;
    Status s = tool.precheck(call);
    if (s.ok()) return std::nullopt;
    return denial_for(s, tool, info, "", "pre-dispatch: ");
}

std::optional<Denial> check_access(const PipelineEnv& env, const ToolSpec& tool, ToolCall& call,
                                   const RequestInfo& info) {
    // Every Yuzu tool declares its access (FullCatalogueTest fails otherwise);
    // one without a declaration fails closed here.
    if (!tool.access) {
        return detail::make_denial(
            kInternalError, "tool is not configured for authorization", info, std::nullopt,
            "server misconfiguration; report the correlation_id", "denied",
            "misconfiguration: no access declaration correlation_id=" + info.correlation_id);
    }
    Status s = check_scope(env, *tool.access, call);
    if (s.ok()) return std::nullopt;
    const std::string need = auth::permission_name(tool.access->permission);
    Denial d = denial_for(s, tool, info, "ask an administrator for a role that grants " + need,
                          s.code() == StatusCode::kPermissionDenied ? "" : "rbac check: ");
    if (s.code() == StatusCode::kPermissionDenied) d.audit_detail = s.message();
    return d;
}

}  // namespace yuzu::mcp
