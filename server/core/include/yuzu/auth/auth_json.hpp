// JSON shapes of identity objects, shared by the REST routes and their MCP
// twins so the two surfaces answer with the same fields.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "yuzu/auth/management_group.hpp"
#include "yuzu/auth/token_store.hpp"

namespace yuzu::auth {

// {id, name, mcp_tier, created_at, expires_at, last_used_at, revoked,
//  rotation_pending} — never a secret or a hash.
nlohmann::json to_json(const TokenInfo& token);
// {id, name, description, parent_id, membership_type, scope_expression,
//  created_by, created_at, updated_at} (times in epoch seconds)
nlohmann::json to_json(const ManagementGroup& group);
// {group_id, principal_type, principal_id, role, granted_at}
nlohmann::json to_json(const GroupRoleAssignment& assignment);
// {group_id, agent_id, source, added_at}
nlohmann::json to_json(const GroupMember& member);

}  // namespace yuzu::auth
