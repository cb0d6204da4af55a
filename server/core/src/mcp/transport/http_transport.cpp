#include "yuzu/mcp/http_transport.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <string_view>

#include "yuzu/common/correlation_id.hpp"
#include "yuzu/http/authenticator.hpp"
#include "yuzu/http/host_policy.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/mcp_server.hpp"

namespace yuzu::mcp {
namespace {

constexpr char kAllow[] = "POST, OPTIONS";
constexpr char kCorsAllowMethods[] = "GET, POST, DELETE, OPTIONS";
constexpr char kCorsAllowHeaders[] =
    "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID";
constexpr char kCorsExposeHeaders[] = "Mcp-Session-Id, WWW-Authenticate";
constexpr char kCorsMaxAge[] = "600";

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

void write_rpc(httplib::Response& res, int http_status, const std::string& body) {
    res.status = http_status;
    // Results can carry secrets shown once (create_api_token's token).
    res.set_header("Cache-Control", "no-store");
    res.set_content(body, "application/json");
}

void write_rpc_error(httplib::Response& res, int http_status, int code, const std::string& message,
                     const std::string& remediation) {
    RpcError e{code, message,
               error_envelope(http::correlation_id_of(res), std::nullopt, remediation)};
    write_rpc(res, http_status, make_error(nullptr, e));
}

std::string_view trim_ows(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// How specifically `range` (lower case, parameters removed) names `type`:
// 3 exactly, 2 as type/*, 1 as */*, 0 not at all.
int match_specificity(std::string_view range, std::string_view type) {
    if (range == type) return 3;
    if (range == "*/*") return 1;
    const auto slash = type.find('/');
    const std::string_view top = type.substr(0, slash);
    return range.size() == top.size() + 2 && range.substr(0, top.size()) == top &&
                   range.substr(top.size()) == "/*"
               ? 2
               : 0;
}

// RFC 9110 §12.4.2: a qvalue of 0 (0, 0.0, 0.00, 0.000) means "not
// acceptable"; anything else, or none, accepts.
bool qvalue_is_zero(std::string_view params) {
    size_t pos = 0;
    while (pos < params.size()) {
        const size_t semi = params.find(';', pos);
        const std::string_view param = trim_ows(params.substr(
            pos, semi == std::string_view::npos ? std::string_view::npos : semi - pos));
        pos = semi == std::string_view::npos ? params.size() : semi + 1;
        if (param.size() < 2 || param.substr(0, 2) != "q=") continue;
        const std::string_view q = param.substr(2);
        if (q.empty() || q.front() != '0') return false;
        if (q.size() == 1) return true;
        if (q[1] != '.') return false;
        return q.find_first_not_of('0', 2) == std::string_view::npos;
    }
    return false;
}

// Whether the Accept list accepts `type`: its most specific matching range
// decides, and a range with q=0 refuses.
bool accepts(const std::string& accept, std::string_view type) {
    int best = 0;
    bool acceptable = false;
    size_t pos = 0;
    while (pos <= accept.size()) {
        const size_t comma = accept.find(',', pos);
        const std::string_view item = std::string_view(accept).substr(
            pos, comma == std::string::npos ? std::string::npos : comma - pos);
        const auto semi = item.find(';');
        const std::string_view range = trim_ows(item.substr(0, semi));
        const int specificity = match_specificity(range, type);
        if (specificity > best) {
            best = specificity;
            acceptable = semi == std::string_view::npos || !qvalue_is_zero(item.substr(semi + 1));
        }
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return acceptable;
}

// Every field of this name, joined as one list (RFC 9110 §5.3).
std::string header_values(const httplib::Request& req, const char* name) {
    std::string joined;
    const auto range = req.headers.equal_range(name);
    for (auto it = range.first; it != range.second; ++it) {
        if (!joined.empty()) joined += ", ";
        joined += it->second;
    }
    return joined;
}

// The Host (DNS rebinding) and Origin checks; false after writing the 403.
bool host_and_origin_pass(const http::HostPolicy& policy, const TransportOptions& options,
                          const httplib::Request& req, httplib::Response& res) {
    const std::string cid = http::correlation_id_of(res);
    const std::string host = req.get_header_value("Host");
    if (!http::host_allowed(policy, host)) {
        spdlog::warn("correlation_id={} mcp: refused Host '{}' (DNS rebinding protection)", cid,
                     host.substr(0, 128));
        write_rpc_error(res, 403, kOriginRejected, "Host header not allowed",
                        "connect through a loopback address, or add the name with "
                        "--allowed-host");
        return false;
    }
    const std::string origin = req.get_header_value("Origin");
    if (!http::origin_allowed(policy, origin, host, options.tls)) {
        spdlog::warn("correlation_id={} mcp: refused Origin '{}' on {}", cid, origin.substr(0, 128),
                     req.method);
        write_rpc_error(res, 403, kOriginRejected, "Origin not allowed",
                        "add the exact scheme://host:port with --mcp-allowed-origin");
        return false;
    }
    return true;
}

// The request's Origin when it has one that passes the Host and Origin
// checks (the server's own or an --mcp-allowed-origin entry): the value for
// Access-Control-Allow-Origin. "" otherwise.
std::string cors_origin(const http::HostPolicy& policy, const TransportOptions& options,
                        const httplib::Request& req) {
    const std::string origin = req.get_header_value("Origin");
    if (origin.empty()) return "";
    const std::string host = req.get_header_value("Host");
    if (!http::host_allowed(policy, host)) return "";
    if (!http::origin_allowed(policy, origin, host, options.tls)) return "";
    return origin;
}

// Lets a page on an allowed origin read the answer, 401s included, and the
// headers it needs from it. No Access-Control-Allow-Credentials: callers
// authenticate with a bearer token, and cookies stay same-origin.
void add_cors_headers(httplib::Response& res, const std::string& origin) {
    res.set_header("Vary", "Origin");
    if (origin.empty()) return;
    res.set_header("Access-Control-Allow-Origin", origin);
    res.set_header("Access-Control-Expose-Headers", kCorsExposeHeaders);
}

}  // namespace

bool accept_allows_mcp(const std::string& accept_header) {
    const std::string accept = lower(accept_header);
    // RFC 9110 §12.5.1: no Accept field (or an empty one) accepts any media
    // type, so the JSON answer is acceptable.
    if (trim_ows(accept).empty()) return true;
    return accepts(accept, "application/json") && accepts(accept, "text/event-stream");
}

std::string host_without_port(const std::string& host_header) {
    return http::host_name_of(host_header);
}

bool is_loopback_host(const std::string& host_header) {
    return http::host_is_loopback(host_header);
}

void register_mcp_routes(http::HttpServer& server, const McpServer& mcp,
                         const McpSettings& settings, const http::CredentialResolver& resolver,
                         const TransportOptions& options) {
    const std::string pattern = "/mcp/v1/?";
    const std::string route = "/mcp/v1/";

    // The same Host/Origin rules as the management routes' request guard
    // (host_policy.hpp); only the refusals here are JSON-RPC shaped.
    http::HostPolicy policy;
    policy.enforce_loopback_names = options.listening_on_loopback;
    policy.allowed_hosts = options.allowed_hosts;
    policy.allowed_origins = options.allowed_origins;

    auto post = [&mcp, &settings, &resolver, options, policy](const httplib::Request& req,
                                                              httplib::Response& res) {
        const std::string cid = http::correlation_id_of(res);
        add_cors_headers(res, cors_origin(policy, options, req));
        if (settings.disabled.load()) {
            write_rpc_error(res, 200, kMcpDisabled, "MCP is disabled on this server",
                            "the operator started yuzu-server with --mcp-disable");
            return;
        }
        if (!host_and_origin_pass(policy, options, req, res)) return;
        const std::string content_type = lower(req.get_header_value("Content-Type"));
        if (content_type.rfind("application/json", 0) != 0) {
            write_rpc_error(res, 415, kInvalidRequest, "Content-Type must be application/json",
                            "send the JSON-RPC message as application/json");
            return;
        }
        if (!accept_allows_mcp(header_values(req, "Accept"))) {
            write_rpc_error(res, 406, kNotAcceptable,
                            "Accept must list application/json and text/event-stream",
                            "send Accept: application/json, text/event-stream (or no Accept)");
            return;
        }
        const std::string version = req.get_header_value("MCP-Protocol-Version");
        if (!version.empty() && !is_supported_protocol_version(version)) {
            write_rpc_error(res, 400, kBadProtocolVersion,
                            "Unsupported MCP-Protocol-Version: " + version.substr(0, 32),
                            "use 2025-11-25, 2025-06-18 or 2025-03-26");
            return;
        }
        http::AuthFailure failure = http::AuthFailure::kNone;
        auto who = http::authenticate(req, resolver, true, &failure);
        if (!who.ok()) {
            const bool nothing_presented =
                failure == http::AuthFailure::kNoCredentials && !req.has_header("Authorization");
            http::write_unauthorized(
                res, failure,
                nothing_presented ? "a valid bearer token is required" : who.status().message());
            return;
        }
        if (http::csrf_rejected(req, *who)) {
            http::write_error(res, 403, "missing or wrong X-CSRF-Token for a cookie session");
            return;
        }
        auto parsed = parse_message(req.body);
        if (auto* err = std::get_if<RpcError>(&parsed)) {
            err->data = error_envelope(cid, std::nullopt, "send one JSON-RPC 2.0 object");
            write_rpc(res, 200, make_error(nullptr, *err));
            return;
        }
        const RequestInfo info{cid, req.remote_addr, req.get_header_value("User-Agent")};
        auto reply = mcp.handle(std::get<RpcMessage>(parsed), who->principal, info);
        if (!reply) {
            res.status = 202;
            return;
        }
        write_rpc(res, 200, *reply);
    };

    auto not_allowed = [&settings, options, policy](const httplib::Request& req,
                                                    httplib::Response& res) {
        add_cors_headers(res, cors_origin(policy, options, req));
        if (settings.disabled.load()) {
            write_rpc_error(res, 200, kMcpDisabled, "MCP is disabled on this server",
                            "the operator started yuzu-server with --mcp-disable");
            return;
        }
        res.set_header("Allow", kAllow);
        http::write_error(res, 405,
                          "this server does not offer an SSE stream or sessions yet; "
                          "use POST");
    };

    // CORS preflight (Fetch standard): a browser asks before a cross-origin
    // POST with Authorization or a JSON body. The Host and Origin rules are
    // the POST's own, so a preflight passes exactly when the POST would pass
    // them; a refused one carries no Access-Control-Allow-* header. Not
    // subject to --mcp-disable: the POST's -32005 must be readable too.
    auto preflight = [options, policy](const httplib::Request& req, httplib::Response& res) {
        res.set_header("Vary", "Origin");
        if (!host_and_origin_pass(policy, options, req, res)) return;
        res.status = 204;
        const std::string origin = req.get_header_value("Origin");
        if (origin.empty()) {
            // Not a preflight: a plain OPTIONS asks what the resource allows.
            res.set_header("Allow", kAllow);
            return;
        }
        res.set_header("Access-Control-Allow-Origin", origin);
        res.set_header("Access-Control-Allow-Methods", kCorsAllowMethods);
        res.set_header("Access-Control-Allow-Headers", kCorsAllowHeaders);
        res.set_header("Access-Control-Expose-Headers", kCorsExposeHeaders);
        res.set_header("Access-Control-Max-Age", kCorsMaxAge);
    };

    server.post(pattern, route, post);
    server.get(pattern, route, not_allowed);
    server.del(pattern, route, not_allowed);
    server.options_route(pattern, route, preflight);
}

}  // namespace yuzu::mcp
