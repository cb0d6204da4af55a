// The permission rules every surface applies, written once: REST routes, the
// dashboard and MCP tools call these, so a token cannot get around its MCP
// tier by switching surface and the two surfaces cannot drift apart.
//
//   check_direct_tier   the tier allows Type:Op and it needs no approval
//                       (REST has no approval flow; MCP tools use it for a
//                       second permission checked beside their own)
//   require_role        RBAC, fleet-wide
//   require_permission  both, in that order: REST's whole check
//   answer_permission   "may I?" (check_permission over MCP, POST
//                       /api/v1/rbac/check over REST): the same answer
//
// Thread-safety: stateless; safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::auth {
class Authorizer;
}

namespace yuzu::access {

// "the 'readonly' MCP tier does not allow Tag:Write"
std::string tier_denied_message(const auth::Principal& who, auth::Permission what);

// PermissionDenied when the caller's MCP tier does not allow `what`, or
// allows it only after a person's approval.
Status check_direct_tier(const auth::Principal& who, auth::Permission what);

// PermissionDenied "permission denied: Type:Op" when no global role grants it.
Status require_role(const auth::Authorizer& authorizer, const auth::Principal& who,
                    auth::Permission what);

// PermissionDenied when an MCP token names another token than itself for a
// self-service change (rotation): a token of the same owner may hold more
// than this one's tier (a plain API token has none). Other principals: Ok.
Status require_mcp_token_acts_on_itself(const auth::Principal& who, std::string_view token_id);

// check_direct_tier, then require_role.
Status require_permission(const auth::Authorizer& authorizer, const auth::Principal& who,
                          auth::Permission what);

struct PermissionAnswer {
    std::string permission;  // canonical "Type:Op"
    bool allowed_by_role = false;
    bool allowed_by_tier = false;
    // The tier allows it only after a person approves it (MCP only).
    bool requires_approval = false;
    // Allowed outright: by role, by tier, and without approval.
    bool allowed = false;
};

// The caller's own rights for `what`, fleet-wide or (agent_id non-empty) on
// one agent.
Result<PermissionAnswer> answer_permission(const auth::Authorizer& authorizer,
                                           const auth::Principal& who, auth::Permission what,
                                           const std::string& agent_id);

}  // namespace yuzu::access
