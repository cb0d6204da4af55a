// The "may I?" answer as both surfaces send it (check_permission over MCP,
// POST /api/v1/rbac/check over REST).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "yuzu/access/permission_check.hpp"

namespace yuzu::access {

// {permission, username, allowed, allowed_by_role, allowed_by_tier,
//  requires_approval}
nlohmann::json to_json(const PermissionAnswer& answer, const std::string& username);

}  // namespace yuzu::access
