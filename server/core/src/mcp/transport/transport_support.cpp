#include "mcp/transport/transport_support.hpp"

#include <spdlog/spdlog.h>

#include "yuzu/http/header_lookup.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/jsonrpc.hpp"

namespace yuzu::mcp {
namespace {

constexpr char kCorsExposeHeaders[] = "Mcp-Session-Id, WWW-Authenticate";

}  // namespace

void write_rpc(httplib::Response& res, int http_status, const std::string& body) {
    res.status = http_status;
    // Results can carry secrets shown once (create_api_token's token).
    res.set_header("Cache-Control", "no-store");
    res.set_content(body, "application/json");
}

void write_rpc_error(httplib::Response& res, int http_status, int code, const std::string& message,
                     const std::string& remediation, std::optional<int64_t> retry_after_ms) {
    if (retry_after_ms) {
        res.set_header("Retry-After", std::to_string((*retry_after_ms + 999) / 1000));
    }
    RpcError e{code, message,
               error_envelope(http::correlation_id_of(res), retry_after_ms, remediation)};
    write_rpc(res, http_status, make_error(nullptr, e));
}

std::string header_values(const httplib::Request& req, const char* name) {
    std::string joined;
    for (const auto& [field, value] : req.headers) {
        if (!iequals_ascii(field, name)) continue;
        if (!joined.empty()) joined += ", ";
        joined += value;
    }
    return joined;
}

bool host_and_origin_pass(const http::HostPolicy& policy, const TransportOptions& options,
                          const httplib::Request& req, httplib::Response& res) {
    const std::string& host = http::field_value(req.headers, "Host");
    if (!http::host_allowed(policy, host)) {
        spdlog::warn("correlation_id={} mcp: refused Host '{}' (DNS rebinding protection)",
                     http::correlation_id_of(res), host.substr(0, 128));
        write_rpc_error(res, 403, kOriginRejected, "Host header not allowed",
                        "connect through a loopback address, or add the name with "
                        "--allowed-host");
        return false;
    }
    const std::string& origin = http::field_value(req.headers, "Origin");
    if (!http::origin_allowed(policy, origin, host, options.tls)) {
        spdlog::warn("correlation_id={} mcp: refused Origin '{}' on {}",
                     http::correlation_id_of(res), origin.substr(0, 128), req.method);
        write_rpc_error(res, 403, kOriginRejected, "Origin not allowed",
                        "add the exact scheme://host:port with --mcp-allowed-origin");
        return false;
    }
    return true;
}

std::string cors_origin(const http::HostPolicy& policy, const TransportOptions& options,
                        const httplib::Request& req) {
    const std::string& origin = http::field_value(req.headers, "Origin");
    if (origin.empty()) return "";
    const std::string& host = http::field_value(req.headers, "Host");
    if (!http::host_allowed(policy, host)) return "";
    if (!http::origin_allowed(policy, origin, host, options.tls)) return "";
    return origin;
}

void add_cors_headers(httplib::Response& res, const std::string& origin) {
    res.set_header("Vary", "Origin");
    if (origin.empty()) return;
    res.set_header("Access-Control-Allow-Origin", origin);
    res.set_header("Access-Control-Expose-Headers", kCorsExposeHeaders);
}

}  // namespace yuzu::mcp
