// Private to the MCP module: what the compliance and DEX tools, the
// yuzu://compliance/fleet resource and their tests share.
//
// These tools read counts over many agents, so they scope by view rather
// than per agent: the caller sees the agents on which it holds the
// permission (globally or through management groups), and a caller holding
// it nowhere is refused with PermissionDenied.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::auth {
class Identity;
}
namespace yuzu::fleet {
class Fleet;
}

namespace yuzu::mcp {

inline const nlohmann::json kPolicyIdSchema = {{"type", "string"},
                                               {"pattern", "^[0-9a-f]{12}$"},
                                               {"description", "policy id (12 lowercase hex)"}};

// The caller's view for `what` (nullopt = every agent); PermissionDenied
// when the caller holds `what` on no agent at all.
Result<std::optional<std::set<std::string>>> readable_view(auth::Identity& identity,
                                                           fleet::Fleet& fleet,
                                                           const auth::Principal& who,
                                                           auth::Permission what);

// Registered agents outside `view` (0 for the whole fleet).
int64_t agents_outside(fleet::Fleet& fleet, const std::optional<std::set<std::string>>& view);

}  // namespace yuzu::mcp
