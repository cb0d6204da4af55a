// The Streamable HTTP binding of the MCP server at /mcp/v1 (with and without
// the trailing slash). Order of checks for a POST:
//
//   --mcp-disable → Host (DNS rebinding) → Origin → Content-Type → Accept →
//   MCP-Protocol-Version → authentication → JSON-RPC parse → McpServer
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

#include <string>
#include <vector>

namespace yuzu::http {
class HttpServer;
class CredentialResolver;
}  // namespace yuzu::http

namespace yuzu::mcp {

class McpServer;
struct McpSettings;

struct TransportOptions {
    // Exact scheme://host:port strings allowed in an Origin header besides the
    // server's own origin; pages there may call /mcp/v1/ cross-origin (CORS).
    std::vector<std::string> allowed_origins;
    // Host header names accepted besides loopback names, when listening on a
    // loopback address (DNS-rebinding protection).
    std::vector<std::string> allowed_hosts;
    bool listening_on_loopback = true;
    bool tls = false;
};

void register_mcp_routes(http::HttpServer& server, const McpServer& mcp,
                         const McpSettings& settings, const http::CredentialResolver& resolver,
                         const TransportOptions& options);

// Exposed for unit tests. True when the Accept value (all Accept fields
// joined with ", ") accepts both application/json and text/event-stream
// (wildcards count; the most specific range decides; q=0 refuses), or is
// empty.
bool accept_allows_mcp(const std::string& accept_header);
bool is_loopback_host(const std::string& host_header);
std::string host_without_port(const std::string& host_header);

}  // namespace yuzu::mcp
