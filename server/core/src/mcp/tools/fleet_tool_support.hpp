// Private to the MCP module: what the fleet tools share — the agent-id
// schema. Access (the caller's view, one agent's visibility) is declared on
// each tool and enforced by the pipeline over the access layer.
#pragma once

#include <nlohmann/json.hpp>

namespace yuzu::mcp {

inline const nlohmann::json kAgentIdSchema = {{"type", "string"},
                                              {"pattern", "^[0-9a-f]{32}$"},
                                              {"description", "agent id (32 lowercase hex)"}};

}  // namespace yuzu::mcp
