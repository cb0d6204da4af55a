// The agent plane: the /agent/v1/ routes agents talk to (docs/agent-protocol.md),
// registered on their own listener so held long-polls never take a worker
// from the management API.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "yuzu/common/clock.hpp"

namespace yuzu::audit {
class AuditLog;
}
namespace yuzu::http {
class HttpServer;
}
namespace yuzu::metrics {
class Registry;
}

namespace yuzu::fleet {

class Fleet;

// What an agent reported for one command (POST /agent/v1/results).
struct CommandResult {
    std::string command_id;
    std::string status;       // success | failure | refused | timeout
    std::string output_json;  // the plugin's structured output ("null" if none)
    std::string error;
    int64_t duration_ms = 0;
    int64_t received_at_ms = 0;
};

// Called for every result of a command that was queued for that agent
// (after CommandQueue::complete() accepted it). Must not throw and must not
// block for long: it runs on an agent-plane worker.
using CommandResultSink =
    std::function<void(const std::string& agent_id, const CommandResult& result)>;

struct AgentPlaneOptions {
    // Long-polls held at once; beyond this a poll is answered 429 with
    // Retry-After so the pool keeps workers for heartbeats and results.
    int max_concurrent_polls = 48;
    int default_poll_wait_s = 25;
};

struct AgentPlaneContext {
    Fleet& fleet;
    audit::AuditLog& audit;
    metrics::Registry& metrics;
    const Clock& clock;
    AgentPlaneOptions options;
    CommandResultSink on_result;  // may be empty until executions are wired
};

// Registers POST /agent/v1/enroll, /heartbeat, /inventory, /results,
// /goodbye and GET /agent/v1/commands on `server`. The context must outlive
// the server.
void register_agent_plane_routes(http::HttpServer& server, AgentPlaneContext& context);

}  // namespace yuzu::fleet
