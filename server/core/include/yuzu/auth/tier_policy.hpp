// MCP token tiers, compiled in. The same two functions run for MCP tools and
// for REST calls made with an MCP token, so a token cannot get around its
// tier by switching surface.
//
//   tier        tier_allows                         requires_approval
//   ""          everything (RBAC alone decides)     never
//   readonly    Read only                           never
//   operator    Read; Tag Write/Delete;             Tag:Delete
//               Execution Execute; ApiToken Rotate
//   supervised  everything                          Execution:Execute, any Delete,
//                                                   Policy/Security/UserManagement/
//                                                   ManagementGroup/ApiToken Write,
//                                                   Security:Execute
//   other       nothing                             —
#pragma once

#include <string_view>

#include "yuzu/auth/rbac.hpp"

namespace yuzu::auth {

bool is_valid_tier(std::string_view tier);
bool tier_allows(std::string_view tier, Securable type, Operation op);
// Only meaningful once tier_allows() said yes.
bool requires_approval(std::string_view tier, Securable type, Operation op);

}  // namespace yuzu::auth
