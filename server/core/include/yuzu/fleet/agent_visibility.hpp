// Management-group scoping for fleet reads: which agents may this principal
// see? An agent outside the caller's view must read exactly like an agent
// that does not exist, on every surface (REST, MCP, scope previews).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::auth {
class Authorizer;
}

namespace yuzu::fleet {

// The agents among `candidates` on which `who` holds `what`: nullopt when the
// permission is held fleet-wide (every agent, present and future), else the
// set granted through management-group roles (possibly empty).
Result<std::optional<std::set<std::string>>> visible_agents(
    const auth::Authorizer& authorizer, const auth::Principal& who, auth::Permission what,
    const std::vector<std::string>& candidates);

// Whether `who` holds `what` on this one agent.
Result<bool> agent_visible(const auth::Authorizer& authorizer, const auth::Principal& who,
                           auth::Permission what, const std::string& agent_id);

}  // namespace yuzu::fleet
