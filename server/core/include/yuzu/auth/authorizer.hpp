// Authorizer: the RBAC question every surface asks — "may this principal do
// Type:Op (on this agent)?". REST routes and MCP tools share one
// implementation, so their permission checks cannot drift apart. The MCP
// tier check is separate (tier_policy.hpp) and always runs first.
#pragma once

#include <string>

#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/rbac.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::auth {

class Authorizer {
  public:
    virtual ~Authorizer() = default;
    // Fleet-wide permission from the principal's global roles.
    virtual Result<bool> allowed(const Principal& who, Permission what) const = 0;
    // Permission on one agent: global roles, or roles held on a management
    // group containing the agent (or an ancestor of one).
    virtual Result<bool> allowed_on_agent(const Principal& who, Permission what,
                                          const std::string& agent_id) const = 0;
};

}  // namespace yuzu::auth
