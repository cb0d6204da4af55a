// What the MCP transport's route files share: JSON-RPC shaped refusals, the
// Host/Origin and CORS rules, and header helpers. Private to transport/.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <optional>
#include <string>

#include "yuzu/http/host_policy.hpp"
#include "yuzu/mcp/http_transport.hpp"

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

}  // namespace yuzu::mcp
