// The Streamable HTTP binding of the MCP server at /mcp/v1 (with and without
// the trailing slash). Order of checks for a POST:
//
//   --mcp-disable → Host (DNS rebinding) → Origin → Content-Type → Accept →
//   MCP-Protocol-Version → authentication → JSON-RPC parse →
//   Mcp-Session-Id (when sent) → McpServer
//
// Sessions (unless --mcp-no-streaming): initialize answers Mcp-Session-Id;
// a request that sends it must name a live session of the same principal
// (else 404 / -32007), and DELETE ends it. GET with the header opens the
// session's server→client SSE stream (transport/get_channel.cpp):
//
//   --mcp-disable → --mcp-no-streaming (405) → Host → Origin → Accept:
//   text/event-stream (406) → Mcp-Session-Id (400) → authentication →
//   live session (404) → MCP-Protocol-Version → Last-Event-ID (400) →
//   resume, admission and attach under the session's lock (429 / -32012)
//
// The body-size cap (413) is enforced by the HTTP layer before any of these.
// A missing or empty Accept accepts the JSON answer (RFC 9110 §12.5.1).
//
// CORS, for browser pages on an --mcp-allowed-origin: OPTIONS is the
// preflight (Host → Origin; 204 with the Access-Control-Allow-* headers, or
// the same 403 as a POST for a foreign Origin), and every answer to a request
// whose Origin passes carries Access-Control-Allow-Origin (that origin) and
// Access-Control-Expose-Headers (Mcp-Session-Id, WWW-Authenticate), 401s
// included. Never Access-Control-Allow-Credentials: bearer tokens, no
// cookies. Every answer says Vary: Origin.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace yuzu {
class Clock;
}
namespace yuzu::http {
class HttpServer;
class CredentialResolver;
}  // namespace yuzu::http

namespace yuzu::mcp {

class McpServer;
class ProgressBridge;
class SessionRegistry;
struct BridgeMetrics;
struct McpSettings;
struct StreamMetrics;

// The route label of GET /mcp/v1/ (the held-open stream), apart from the
// POST's "/mcp/v1/" so its hours-long requests stay out of the request
// latency histogram (they are a long-poll route).
inline constexpr char kStreamRouteLabel[] = "/mcp/v1/ (stream)";
// The route label of a POST answered as a streamed response (a long-poll
// route too; post_stream.cpp relabels the request).
inline constexpr char kStreamedPostRouteLabel[] = "/mcp/v1/ (streamed post)";

struct TransportOptions {
    // Exact scheme://host:port strings allowed in an Origin header besides the
    // server's own origin; pages there may call /mcp/v1/ cross-origin (CORS).
    std::vector<std::string> allowed_origins;
    // Host header names accepted besides loopback names, when listening on a
    // loopback address (DNS-rebinding protection).
    std::vector<std::string> allowed_hosts;
    bool listening_on_loopback = true;
    bool tls = false;
    // Sessions and the GET stream; null turns them off (--mcp-no-streaming):
    // no session header, GET and DELETE answer 405. Must outlive the
    // listener.
    SessionRegistry* sessions = nullptr;
    const StreamMetrics* stream_metrics = nullptr;  // null: not measured
    // A GET stream's heartbeat and credential re-check (--mcp-stream-tick-ms).
    int64_t stream_tick_ms = 3000;
    // How long a stream stays up while the credential store cannot answer.
    int64_t auth_grace_ms = 60'000;
    // The reconnection delay the priming event suggests (SSE `retry:`).
    int64_t reconnect_ms = 1000;
    // Steady time for ticks and the auth grace window; null: the system's.
    const Clock* clock = nullptr;
    // Progress for tools/call with _meta.progressToken (needs `sessions`);
    // null: the token is ignored. Must outlive the listener.
    ProgressBridge* bridge = nullptr;
    const BridgeMetrics* bridge_metrics = nullptr;  // null: not measured
    // A call with a token and an SSE Accept gets an SSE response
    // (--mcp-enable-streamed-post, the default; --no-mcp-streamed-post: the
    // progress goes to the GET channel instead).
    bool streamed_post = true;
    // How long a streamed response stays open (kMcpStreamedPostCapMs).
    int64_t streamed_post_cap_ms = 120'000;
};

void register_mcp_routes(http::HttpServer& server, const McpServer& mcp,
                         const McpSettings& settings, const http::CredentialResolver& resolver,
                         const TransportOptions& options);

// Exposed for unit tests. True when the Accept value (all Accept fields
// joined with ", ") accepts both application/json and text/event-stream
// (wildcards count; the most specific range decides; q=0 refuses), or is
// empty.
bool accept_allows_mcp(const std::string& accept_header);
// True when the Accept value names text/event-stream itself with q > 0
// (what a GET needs; wildcards do not count).
bool accept_names_event_stream(const std::string& accept_header);
bool is_loopback_host(const std::string& host_header);
std::string host_without_port(const std::string& host_header);

}  // namespace yuzu::mcp
