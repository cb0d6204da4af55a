// The agent plane: the /agent/v1/ routes agents talk to (docs/agent-protocol.md),
// registered on their own listener so held long-polls never take a worker
// from the management API.
#pragma once

#include "yuzu/common/clock.hpp"
#include "yuzu/fleet/command_result.hpp"

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
}

namespace yuzu::agentapi {

struct AgentPlaneOptions {
    // Long-polls held at once; beyond this a poll is answered 429 with
    // Retry-After so the pool keeps workers for heartbeats and results.
    int max_concurrent_polls = 48;
    int default_poll_wait_s = 25;
};

struct AgentPlaneContext {
    fleet::Fleet& fleet;
    audit::AuditLog& audit;
    metrics::Registry& metrics;
    const Clock& clock;
    AgentPlaneOptions options;
    fleet::CommandResultSink on_result;  // may be empty until executions are wired
};

// Registers POST /agent/v1/enroll, /heartbeat, /inventory, /results,
// /goodbye and GET /agent/v1/commands on `server`. The context must outlive
// the server.
void register_agent_plane_routes(http::HttpServer& server, AgentPlaneContext& context);

}  // namespace yuzu::agentapi
