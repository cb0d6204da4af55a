// Private to the MCP module: what the compliance and DEX tools share — the
// policy-id schema. These tools read counts over many agents, so they are
// declared AccessScope::kView: the pipeline hands them the caller's view
// and refuses a caller holding the permission on no agent at all.
#pragma once

#include <nlohmann/json.hpp>

namespace yuzu::mcp {

inline const nlohmann::json kPolicyIdSchema = {{"type", "string"},
                                               {"pattern", "^[0-9a-f]{12}$"},
                                               {"description", "policy id (12 lowercase hex)"}};

}  // namespace yuzu::mcp
