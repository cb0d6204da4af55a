// notifications/message on a session's stream (the MCP logging capability):
// {"jsonrpc":"2.0","method":"notifications/message",
//  "params":{"level":..,"logger":..,"data":..}}.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "yuzu/mcp/session/session.hpp"

namespace yuzu::mcp {

// Publishes one log message when the session's threshold admits `level`.
// A message over the per-frame cap has its string fields shortened and is
// counted in yuzu_mcp_stream_frames_too_large_total; a publish that still
// fails is counted in yuzu_mcp_stream_publish_failures_total. Never throws.
void publish_log(Session& session, LogLevel level, std::string_view logger, nlohmann::json data);

// The serialized notifications/message itself (for a streamed response,
// which commits its own frames).
std::string log_message_json(LogLevel level, std::string_view logger, const nlohmann::json& data);

}  // namespace yuzu::mcp
