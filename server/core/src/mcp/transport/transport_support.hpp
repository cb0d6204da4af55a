// What the MCP transport's route files share: JSON-RPC shaped refusals, the
// Host/Origin and CORS rules, and header helpers. Private to transport/.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "yuzu/http/host_policy.hpp"
#include "yuzu/mcp/http_transport.hpp"
#include "yuzu/mcp/session/close_reason.hpp"
#include "yuzu/mcp/transport/credential_watch.hpp"

namespace yuzu::http {
class CredentialResolver;
}

namespace yuzu::mcp {

std::string lowercase_header(std::string s);

// Writes a serialized JSON-RPC message with Cache-Control: no-store.
void write_rpc(httplib::Response& res, int http_status, const std::string& body);
// A JSON-RPC error (id null) with the A4 envelope; a retry_after_ms also
// sets Retry-After (whole seconds, rounded up).
void write_rpc_error(httplib::Response& res, int http_status, int code, const std::string& message,
                     const std::string& remediation,
                     std::optional<int64_t> retry_after_ms = std::nullopt);

// Every field of this name, joined as one list (RFC 9110 §5.3).
std::string header_values(const httplib::Request& req, const char* name);

// The Host (DNS rebinding) and Origin checks; false after writing the 403.
bool host_and_origin_pass(const http::HostPolicy& policy, const TransportOptions& options,
                          const httplib::Request& req, httplib::Response& res);
// The request's Origin when it passes the checks (for
// Access-Control-Allow-Origin); "" otherwise.
std::string cors_origin(const http::HostPolicy& policy, const TransportOptions& options,
                        const httplib::Request& req);
// Vary: Origin always; Access-Control-Allow-Origin and -Expose-Headers for
// an allowed origin. No Access-Control-Allow-Credentials: bearer tokens.
void add_cors_headers(httplib::Response& res, const std::string& origin);

// True when the Accept value names text/event-stream itself, whatever its
// qvalue: a streamed POST's opt-in (with a progress token, q=0 still opts
// in; docs/user-manual/mcp.md says why).
bool accept_lists_event_stream(const std::string& accept_header);
// accept_allows_mcp() refused it only because text/event-stream has q=0:
// a POST that carries a progress token is served anyway (mcp.md says why).
bool accept_allows_mcp_but_sse_q0(const std::string& accept_header);

// --- held-open streams (stream_support.cpp) ----------------------------------
// The token headers of `req`, copied so a stream's ticks can present them
// again exactly as the request did. Tokens only: a web session re-checked
// every tick would never reach its idle timeout.
httplib::Request credential_headers_of(const httplib::Request& req);
bool has_token_credential(const httplib::Request& credential);
CredentialCheck recheck_credential(const httplib::Request& credential,
                                   const http::CredentialResolver& resolver,
                                   const std::string& principal);
// Answers 200 text/event-stream (Cache-Control: no-cache, X-Accel-Buffering:
// no, nosniff) with `pump` as the chunked provider. Nothing escapes into
// httplib's worker: a throw from `pump` is logged (as `what` failed) and
// `on_fault` ends the stream; a throw from that gives up the connection.
// `on_end` runs once, when the response is over.
void start_event_stream(httplib::Response& res, const std::string& correlation_id, const char* what,
                        std::function<bool(httplib::DataSink&)> pump,
                        std::function<bool(httplib::DataSink&)> on_fault,
                        std::function<void()> on_end);

// The stream-closed event a stream ends with: {"reason", "correlation_id",
// "retry_after_ms", "remediation"}, plus "execution_ids" when given.
std::string stream_closed_frame(CloseReason reason, const std::string& correlation_id,
                                const std::vector<std::string>& execution_ids = {});

}  // namespace yuzu::mcp
