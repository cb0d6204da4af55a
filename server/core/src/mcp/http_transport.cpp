#include "yuzu/mcp/http_transport.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

#include "yuzu/common/correlation_id.hpp"
#include "yuzu/http/authenticator.hpp"
#include "yuzu/http/host_policy.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/mcp_server.hpp"

namespace yuzu::mcp {
namespace {

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

bool media_range_matches(const std::string& range, const std::string& type) {
    if (range == type || range == "*/*") return true;
    const auto slash = type.find('/');
    return range == type.substr(0, slash) + "/*";
}

}  // namespace

bool accept_allows_mcp(const std::string& accept_header) {
    bool json = false;
    bool sse = false;
    std::string rest = lower(accept_header);
    size_t pos = 0;
    while (pos <= rest.size()) {
        const size_t comma = rest.find(',', pos);
        std::string item =
            rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        const auto semi = item.find(';');
        std::string range = item.substr(0, semi);
        range.erase(0, range.find_first_not_of(" \t"));
        range.erase(range.find_last_not_of(" \t") + 1);
        json = json || media_range_matches(range, "application/json");
        sse = sse || media_range_matches(range, "text/event-stream");
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return json && sse;
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
        if (settings.disabled.load()) {
            write_rpc_error(res, 200, kMcpDisabled, "MCP is disabled on this server",
                            "the operator started yuzu-server with --mcp-disable");
            return;
        }
        const std::string host = req.get_header_value("Host");
        if (!http::host_allowed(policy, host)) {
            spdlog::warn("correlation_id={} mcp: refused Host '{}' (DNS rebinding protection)", cid,
                         host.substr(0, 128));
            write_rpc_error(res, 403, kOriginRejected, "Host header not allowed",
                            "connect through a loopback address, or add the name with "
                            "--allowed-host");
            return;
        }
        const std::string origin = req.get_header_value("Origin");
        if (!http::origin_allowed(policy, origin, host, options.tls)) {
            spdlog::warn("correlation_id={} mcp: refused Origin '{}'", cid, origin.substr(0, 128));
            write_rpc_error(res, 403, kOriginRejected, "Origin not allowed",
                            "add the exact scheme://host:port with --mcp-allowed-origin");
            return;
        }
        const std::string content_type = lower(req.get_header_value("Content-Type"));
        if (content_type.rfind("application/json", 0) != 0) {
            write_rpc_error(res, 415, kInvalidRequest, "Content-Type must be application/json",
                            "send the JSON-RPC message as application/json");
            return;
        }
        if (!accept_allows_mcp(req.get_header_value("Accept"))) {
            write_rpc_error(res, 406, kNotAcceptable,
                            "Accept must list application/json and text/event-stream",
                            "send Accept: application/json, text/event-stream");
            return;
        }
        const std::string version = req.get_header_value("MCP-Protocol-Version");
        if (!version.empty() && !is_supported_protocol_version(version)) {
            write_rpc_error(res, 400, kBadProtocolVersion,
                            "Unsupported MCP-Protocol-Version: " + version.substr(0, 32),
                            "use 2025-11-25, 2025-06-18 or 2025-03-26");
            return;
        }
        auto who = http::authenticate(req, resolver);
        if (!who.ok()) {
            http::write_unauthorized(res, "a valid bearer token is required");
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

    auto not_allowed = [&settings](const httplib::Request&, httplib::Response& res) {
        if (settings.disabled.load()) {
            write_rpc_error(res, 200, kMcpDisabled, "MCP is disabled on this server",
                            "the operator started yuzu-server with --mcp-disable");
            return;
        }
        res.set_header("Allow", "POST");
        http::write_error(res, 405,
                          "this server does not offer an SSE stream or sessions yet; "
                          "use POST");
    };

    server.post(pattern, route, post);
    server.get(pattern, route, not_allowed);
    server.del(pattern, route, not_allowed);
}

}  // namespace yuzu::mcp
