// The agent plane: the /agent/v1/ routes agents talk to (docs/agent-protocol.md),
// registered on their own listener so held long-polls never take a worker
// from the management API.
#pragma once

#include <cstddef>
#include <memory>

#include "yuzu/agentapi/agent_tls.hpp"
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
namespace yuzu::pki {
class CertificateAuthority;
}

namespace yuzu::agentapi {

// How much lower the agent plane's threads run than the management API's
// (nice steps; the listener's workers and poller, the poll parking, the
// result ingest): while a fleet floods the agent plane with answers, an
// operator's request still gets a CPU at once.
inline constexpr int kAgentPlaneNiceness = 3;

struct AgentPlaneOptions {
    int default_poll_wait_s = 25;
    // Long-polls held at once (each costs a socket, no thread); beyond it a
    // poll is answered 503 with Retry-After.
    size_t max_held_polls = 65536;
    // Results waiting for their group commit; beyond it an upload is
    // answered 503 with Retry-After. One commit writes at most
    // result_batch_max of them.
    size_t result_queue_capacity = 32768;
    size_t result_batch_max = 1024;
    // Full inventory reports written at once; beyond it a report is
    // answered 503 with Retry-After.
    int max_concurrent_inventory = 4;
    // Digest-only reports answered "send the sources" per second at most;
    // beyond it they get 503, so a fleet reporting at once is invited to
    // upload at about the rate full reports can be written, instead of all
    // uploading and most being refused after the upload.
    int inventory_invitations_per_s = 20;
};

struct AgentPlaneContext {
    fleet::Fleet& fleet;
    audit::AuditLog& audit;
    metrics::Registry& metrics;
    const Clock& clock;
    AgentPlaneOptions options;
    // The CA that signs agents' client certificates (null: none issued),
    // and whether routes require one (agent_tls.hpp).
    pki::CertificateAuthority* ca = nullptr;
    ClientCertMode client_certs = ClientCertMode::kOff;
};

// What the server keeps of the agent plane after registering it.
class AgentPlaneHandle {
  public:
    virtual ~AgentPlaneHandle() = default;
    // Where results are recorded (the execution tracker), wired once the
    // executions module is open; until then results are matched against
    // the command queue only.
    virtual void set_result_sink(fleet::CommandResultSink sink) = 0;
    // The agent's certificate was revoked: its held poll is answered 401 at
    // once, so it stops counting as connected (its next connection fails
    // the handshake).
    virtual void shut_out(const std::string& agent_id) = 0;
    // Answers every held poll and writes the results waiting; call before
    // the execution store closes. Later polls and results get 503.
    virtual void stop() = 0;
};

// Registers POST /agent/v1/enroll, /heartbeat, /certificate, /inventory,
// /results, /goodbye and GET /agent/v1/commands on `server`. The context must outlive
// the server.
std::shared_ptr<AgentPlaneHandle> register_agent_plane_routes(http::HttpServer& server,
                                                              AgentPlaneContext& context);

}  // namespace yuzu::agentapi
