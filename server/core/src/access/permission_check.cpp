#include "yuzu/access/permission_check.hpp"

#include "yuzu/auth/authorizer.hpp"
#include "yuzu/auth/tier_policy.hpp"

namespace yuzu::access {

std::string tier_denied_message(const auth::Principal& who, auth::Permission what) {
    return "the '" + who.mcp_tier + "' MCP tier does not allow " + auth::permission_name(what);
}

Status check_direct_tier(const auth::Principal& who, auth::Permission what) {
    if (!auth::tier_allows(who.mcp_tier, what.type, what.op)) {
        return Status::PermissionDenied("permission denied: " + tier_denied_message(who, what));
    }
    if (auth::requires_approval(who.mcp_tier, what.type, what.op)) {
        return Status::PermissionDenied("permission denied: " + auth::permission_name(what) +
                                        " needs human approval at the '" + who.mcp_tier +
                                        "' MCP tier; use the MCP approval flow");
    }
    return Status::Ok();
}

Status require_role(const auth::Authorizer& authorizer, const auth::Principal& who,
                    auth::Permission what) {
    auto allowed = authorizer.allowed(who, what);
    if (!allowed.ok()) return allowed.status();
    if (!*allowed)
        return Status::PermissionDenied("permission denied: " + auth::permission_name(what));
    return Status::Ok();
}

Status require_permission(const auth::Authorizer& authorizer, const auth::Principal& who,
                          auth::Permission what) {
    YUZU_RETURN_IF_ERROR(check_direct_tier(who, what));
    return require_role(authorizer, who, what);
}

Result<PermissionAnswer> answer_permission(const auth::Authorizer& authorizer,
                                           const auth::Principal& who, auth::Permission what,
                                           const std::string& agent_id) {
    Result<bool> by_role = agent_id.empty() ? authorizer.allowed(who, what)
                                            : authorizer.allowed_on_agent(who, what, agent_id);
    if (!by_role.ok()) return by_role.status();
    PermissionAnswer out;
    out.permission = auth::permission_name(what);
    out.allowed_by_role = *by_role;
    out.allowed_by_tier = auth::tier_allows(who.mcp_tier, what.type, what.op);
    out.requires_approval =
        out.allowed_by_tier && auth::requires_approval(who.mcp_tier, what.type, what.op);
    out.allowed = out.allowed_by_role && out.allowed_by_tier && !out.requires_approval;
    return out;
}

Status require_mcp_token_acts_on_itself(const auth::Principal& who, std::string_view token_id) {
    if (who.kind != auth::PrincipalKind::kMcpToken || token_id == who.token_id) return Status::Ok();
    return Status::PermissionDenied(
        "an MCP token rotates only itself; rotate the owner's other tokens from the dashboard or "
        "with a plain API token");
}

}  // namespace yuzu::access
