// Private to the MCP module: what the fleet tools share — the caller's view
// of the fleet (management-group scoping) and the agent-id schema.
//
// Fleet tools authorise per agent: the tier check runs in the pipeline, then
// each handler asks whether the caller holds the permission on the agents it
// touches. An agent outside the caller's view answers exactly like an
// unknown one ("agent not found: <id>"), so ids never leak across groups.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/mcp/tool.hpp"

namespace yuzu::auth {
class Identity;
}
namespace yuzu::fleet {
class Fleet;
}

namespace yuzu::mcp {

inline const nlohmann::json kAgentIdSchema = {{"type", "string"},
                                              {"pattern", "^[0-9a-f]{32}$"},
                                              {"description", "agent id (32 lowercase hex)"}};

// nullopt = the whole fleet; otherwise the agents granted through groups.
Result<std::optional<std::set<std::string>>> fleet_view(auth::Identity& identity,
                                                        fleet::Fleet& fleet,
                                                        const auth::Principal& who,
                                                        auth::Permission what);

// Ok when the agent exists and the caller holds `what` on it; otherwise
// NotFound "agent not found: <id>", the same for both cases.
Status require_visible_agent(auth::Identity& identity, fleet::Fleet& fleet,
                             const auth::Principal& who, auth::Permission what,
                             const std::string& agent_id);

// The RBAC step of fleet tools: per-agent checks happen in the handler.
Status authorize_in_handler(const ToolCall&);

}  // namespace yuzu::mcp
