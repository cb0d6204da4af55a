// Private to the MCP module: what the agentic tools share — the list of
// next tools a caller may actually call, and the shape it is sent in.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "yuzu/mcp/catalogue.hpp"

namespace yuzu::mcp {

// {tool, arguments, reason} entries of `candidates` whose tool is in the
// catalogue, read-only, and reachable at `tier`; the rest are dropped, so a
// model is never sent to a tool it cannot call.
nlohmann::json reachable_read_tools(const ToolCatalogue& tools, std::string_view tier,
                                    const nlohmann::json& candidates);

// The outputSchema of a {tool, arguments, reason} list.
nlohmann::json next_tools_schema();

// "denied", "needs_approval" or "runs_at_once": what execute_instruction
// does at `tier`.
std::string_view dispatch_at_tier(std::string_view tier);

}  // namespace yuzu::mcp
