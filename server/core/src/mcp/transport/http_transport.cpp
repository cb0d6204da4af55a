#include "yuzu/mcp/http_transport.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string_view>

#include "mcp/transport/mcp_transport.hpp"
#include "mcp/transport/transport_support.hpp"
#include "yuzu/http/authenticator.hpp"
#include "yuzu/http/header_lookup.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/mcp_server.hpp"
#include "yuzu/mcp/protocol_era.hpp"
#include "yuzu/mcp/retry.hpp"
#include "yuzu/mcp/session/session_registry.hpp"
#include "yuzu/mcp/session/stream_metrics.hpp"

namespace yuzu::mcp {
namespace {

constexpr char kAllowSessionless[] = "POST, OPTIONS";
constexpr char kAllowStreaming[] = "GET, POST, DELETE, OPTIONS";
constexpr char kCorsAllowHeaders[] =
    "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, "
    "Mcp-Method, Mcp-Name";
constexpr char kCorsExposeHeaders[] = "Mcp-Session-Id, WWW-Authenticate";
constexpr char kCorsMaxAge[] = "600";

// Newest first in kSupportedProtocolVersions: a smaller index is newer.
size_t version_rank(const std::string& version) {
    return static_cast<size_t>(
        std::find(kSupportedProtocolVersions.begin(), kSupportedProtocolVersions.end(), version) -
        kSupportedProtocolVersions.begin());
}

}  // namespace

void write_unknown_session(httplib::Response& res) {
    // One body for unknown, expired, deleted and another principal's ids, so
    // the answer tells nobody which it was.
    write_rpc_error(res, 404, kSessionUnknown, "Session not found",
                    "initialize a new session (the old one ended or is not yours)");
}

McpTransport::McpTransport(const McpServer& mcp, const McpSettings& settings,
                           const http::CredentialResolver& resolver, TransportOptions options,
                           http::StreamBudget& budget)
    : mcp_(mcp),
      settings_(settings),
      resolver_(resolver),
      options_(std::move(options)),
      budget_(budget) {
    // The same Host/Origin rules as the management routes' request guard
    // (host_policy.hpp); only the refusals here are JSON-RPC shaped.
    policy_.enforce_loopback_names = options_.listening_on_loopback;
    policy_.allowed_hosts = options_.allowed_hosts;
    policy_.allowed_origins = options_.allowed_origins;
}

bool McpTransport::pass_prechecks(const httplib::Request& req, httplib::Response& res,
                                  bool needs_streaming) const {
    add_cors_headers(res, cors_origin(policy_, options_, req));
    if (settings_.disabled.load()) {
        write_rpc_error(res, 200, kMcpDisabled, "MCP is disabled on this server",
                        "the operator started yuzu-server with --mcp-disable");
        return false;
    }
    if (needs_streaming && !streaming()) {
        res.set_header("Allow", kAllowSessionless);
        http::write_error(res, 405,
                          "sessions and the SSE stream are off on this server "
                          "(--mcp-no-streaming); use POST");
        return false;
    }
    if (!host_and_origin_pass(policy_, options_, req, res)) {
        if (options_.stream_metrics && req.method == "GET") {
            options_.stream_metrics->reject(StreamReject::kOrigin);
        }
        return false;
    }
    return true;
}

std::optional<http::Authenticated> McpTransport::authenticate(const httplib::Request& req,
                                                              httplib::Response& res,
                                                              bool allow_cookie) const {
    http::AuthFailure failure = http::AuthFailure::kNone;
    auto who = http::authenticate(req, resolver_, allow_cookie, &failure);
    if (!who.ok()) {
        const bool nothing_presented = failure == http::AuthFailure::kNoCredentials &&
                                       http::find_field(req.headers, "Authorization") == nullptr;
        http::write_unauthorized(
            res, failure,
            nothing_presented ? "a valid bearer token is required" : who.status().message());
        return std::nullopt;
    }
    if (http::csrf_rejected(req, *who)) {
        http::write_error(res, 403, "missing or wrong X-CSRF-Token for a cookie session");
        return std::nullopt;
    }
    return std::move(who).value();
}

std::shared_ptr<Session> McpTransport::live_session(const httplib::Request& req,
                                                    httplib::Response& res,
                                                    const std::string& session_id,
                                                    const std::string& principal) const {
    auto session = options_.sessions->find(session_id, principal);
    if (!session) {
        if (options_.stream_metrics && req.method == "GET") {
            options_.stream_metrics->reject(StreamReject::kUnknownSession);
        }
        write_unknown_session(res);
        return nullptr;
    }
    // A request may speak the session's version or an older supported one
    // (the official conformance suite sends 2025-03-26 on a 2025-11-25
    // session); a newer one claims features the session never negotiated.
    const std::string& version = http::field_value(req.headers, "MCP-Protocol-Version");
    if (!version.empty() && !is_supported_protocol_version(version)) {
        if (options_.stream_metrics && req.method == "GET") {
            options_.stream_metrics->reject(StreamReject::kProtocolVersion);
        }
        write_rpc_error(res, 400, kBadProtocolVersion,
                        "Unsupported MCP-Protocol-Version: " + version.substr(0, 32),
                        "use 2025-11-25, 2025-06-18 or 2025-03-26");
        return nullptr;
    }
    if (!version.empty() && version_rank(version) < version_rank(session->protocol_version())) {
        if (options_.stream_metrics && req.method == "GET") {
            options_.stream_metrics->reject(StreamReject::kProtocolVersion);
        }
        write_rpc_error(res, 400, kBadProtocolVersion,
                        "MCP-Protocol-Version " + version + " is newer than this session's " +
                            session->protocol_version(),
                        "send the version initialize answered, or initialize again");
        return nullptr;
    }
    return session;
}

bool McpTransport::open_session(httplib::Response& res, const std::string& principal,
                                const std::string& version) const {
    auto opened = options_.sessions->open(principal, version);
    if (auto* session = std::get_if<std::shared_ptr<Session>>(&opened)) {
        res.set_header(kSessionHeader, (*session)->id());
        spdlog::info("correlation_id={} mcp: session opened for '{}' (protocol {})",
                     http::correlation_id_of(res), principal, version);
        return true;
    }
    const auto refusal = std::get<SessionRegistry::Refusal>(opened);
    const auto& limits = options_.sessions->options();
    switch (refusal) {
        case SessionRegistry::Refusal::kPerPrincipalCap:
            if (options_.stream_metrics) {
                options_.stream_metrics->reject(StreamReject::kSessionPerPrincipalCap);
            }
            write_rpc_error(res, 429, kSessionCapReached,
                            "too many open sessions for this principal (at most " +
                                std::to_string(limits.max_per_principal) + ")",
                            "end sessions you no longer use with DELETE /mcp/v1/, or wait for "
                            "them to expire");
            return false;
        case SessionRegistry::Refusal::kGlobalCap:
            if (options_.stream_metrics) {
                options_.stream_metrics->reject(StreamReject::kSessionGlobalCap);
            }
            write_rpc_error(res, 429, kSessionCapReached,
                            "the server has its maximum of " + std::to_string(limits.max_total) +
                                " open sessions",
                            "retry later, or call without a session", kMcpSessionCapRetryMs);
            return false;
        case SessionRegistry::Refusal::kShuttingDown:
            write_rpc_error(res, 503, kInternalError, "the server is shutting down",
                            "retry against the restarted server", kMcpSessionCapRetryMs);
            return false;
        case SessionRegistry::Refusal::kNoRandomness:
            break;
    }
    write_rpc_error(res, 500, kInternalError, "could not mint a session id",
                    "retry; the server's random source failed");
    return false;
}

void McpTransport::post(const httplib::Request& req, httplib::Response& res) const {
    const std::string cid = http::correlation_id_of(res);
    if (!pass_prechecks(req, res, false)) return;
    const std::string content_type =
        lowercase_header(http::field_value(req.headers, "Content-Type"));
    if (content_type.rfind("application/json", 0) != 0) {
        write_rpc_error(res, 415, kInvalidRequest, "Content-Type must be application/json",
                        "send the JSON-RPC message as application/json");
        return;
    }
    const std::string accept = header_values(req, "Accept");
    const bool sse_q0 = accept_allows_mcp_but_sse_q0(accept);
    const auto not_acceptable = [&res] {
        write_rpc_error(res, 406, kNotAcceptable,
                        "Accept must list application/json and text/event-stream",
                        "send Accept: application/json, text/event-stream (or no Accept)");
    };
    if (!accept_allows_mcp(accept) && !sse_q0) {
        not_acceptable();
        return;
    }
    auto who = authenticate(req, res);
    if (!who) return;
    auto parsed = parse_message(req.body);
    if (auto* err = std::get_if<RpcError>(&parsed)) {
        err->data = error_envelope(cid, std::nullopt, "send one JSON-RPC 2.0 object");
        write_rpc(res, 200, make_error(nullptr, *err));
        return;
    }
    const auto& message = std::get<RpcMessage>(parsed);
    // text/event-stream;q=0 is honoured only as a streamed call's opt-in.
    if (sse_q0 && !carries_progress_token(message)) {
        not_acceptable();
        return;
    }
    // The era is the body's to say (protocol_era.hpp), so the version header
    // is judged after the parse: by the 2026 rules, or by the 2025 ones here.
    // One value only: two could steer this server and a proxy into
    // different eras (and past the 2026 header rules).
    if (http::field_count(req.headers, "MCP-Protocol-Version") > 1) {
        write_rpc(
            res, 400,
            make_error(message.id,
                       RpcError{kInvalidRequest, "MCP-Protocol-Version is sent more than once",
                                error_envelope(cid, std::nullopt, "send the header once")}));
        return;
    }
    const std::string& version = http::field_value(req.headers, "MCP-Protocol-Version");
    const RequestInfo info{cid, req.remote_addr, http::field_value(req.headers, "User-Agent")};
    if (is_modern_request(message, version)) {
        post_modern(req, res, message, *who, info);
        return;
    }
    if (!version.empty() && !is_supported_protocol_version(version)) {
        write_rpc_error(res, 400, kBadProtocolVersion,
                        "Unsupported MCP-Protocol-Version: " + version.substr(0, 32),
                        "use 2025-11-25, 2025-06-18 or 2025-03-26, or 2026-07-28 with "
                        "params._meta");
        return;
    }
    // initialize always starts a new session: a presented id is ignored, so
    // a client cannot be fixed to a session someone else chose.
    const bool initializing =
        message.kind == RpcMessage::Kind::kRequest && message.method == "initialize";
    CallContext ctx;
    const std::string* session_id = http::find_field(req.headers, kSessionHeader);
    if (streaming() && !initializing && session_id != nullptr) {
        ctx.session = live_session(req, res, *session_id, who->principal.username);
        if (!ctx.session) return;
    }
    if (message.kind == RpcMessage::Kind::kNotification &&
        message.method == "notifications/cancelled") {
        cancel(message, ctx.session);
    }
    if (post_with_progress(req, res, message, *who, info, ctx)) return;
    Reply reply = mcp_.handle(message, who->principal, info, ctx);
    if (reply.kind == Reply::Kind::kAccepted) {
        res.status = 202;
        return;
    }
    if (streaming() && initializing && !reply.negotiated_version.empty() &&
        !open_session(res, who->principal.username, reply.negotiated_version)) {
        return;
    }
    write_rpc(res, 200, reply.body);
}

void McpTransport::del(const httplib::Request& req, httplib::Response& res) const {
    if (!pass_prechecks(req, res, true)) return;
    if (!req.has_header(kSessionHeader)) {
        write_rpc_error(res, 400, kInvalidRequest, "Mcp-Session-Id is required",
                        "send the session id initialize answered");
        return;
    }
    auto who = authenticate(req, res);
    if (!who) return;
    const std::string id = req.get_header_value(kSessionHeader);
    if (!options_.sessions->remove(id, who->principal.username)) {
        write_unknown_session(res);
        return;
    }
    spdlog::info("correlation_id={} mcp: session ended by DELETE for '{}'",
                 http::correlation_id_of(res), who->principal.username);
    write_rpc(res, 200, "{}");
}

// CORS preflight (Fetch standard): a browser asks before a cross-origin
// POST with Authorization or a JSON body. The Host and Origin rules are
// the POST's own, so a preflight passes exactly when the POST would pass
// them; a refused one carries no Access-Control-Allow-* header. Not
// subject to --mcp-disable: the POST's -32005 must be readable too.
void McpTransport::preflight(const httplib::Request& req, httplib::Response& res) const {
    res.set_header("Vary", "Origin");
    if (!host_and_origin_pass(policy_, options_, req, res)) return;
    res.status = 204;
    const char* allow = streaming() ? kAllowStreaming : kAllowSessionless;
    const std::string origin = req.get_header_value("Origin");
    if (origin.empty()) {
        // Not a preflight: a plain OPTIONS asks what the resource allows.
        res.set_header("Allow", allow);
        return;
    }
    res.set_header("Access-Control-Allow-Origin", origin);
    res.set_header("Access-Control-Allow-Methods", allow);
    res.set_header("Access-Control-Allow-Headers", kCorsAllowHeaders);
    res.set_header("Access-Control-Expose-Headers", kCorsExposeHeaders);
    res.set_header("Access-Control-Max-Age", kCorsMaxAge);
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
    auto transport =
        std::make_shared<McpTransport>(mcp, settings, resolver, options, server.stream_budget());
    server.post(pattern, route, [transport](const httplib::Request& req, httplib::Response& res) {
        transport->post(req, res);
    });
    server.get(pattern, kStreamRouteLabel,
               [transport](const httplib::Request& req, httplib::Response& res) {
                   transport->get(req, res);
               });
    server.del(pattern, route, [transport](const httplib::Request& req, httplib::Response& res) {
        transport->del(req, res);
    });
    server.options_route(pattern, route,
                         [transport](const httplib::Request& req, httplib::Response& res) {
                             transport->preflight(req, res);
                         });
}

}  // namespace yuzu::mcp
