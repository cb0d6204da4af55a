// A 2026-07-28 POST (protocol_era.hpp): no session, no initialize; the
// request's _meta and headers are checked here, after authentication and
// the JSON-RPC parse and before anything runs:
//
//   params._meta (400 / -32602, or -32022 for an unknown version) →
//   header rules (400 / -32020, modern_headers.hpp) → McpServer
//
// A JSON-RPC response is refused (400 / -32600): a 2026 server sends the
// client no requests, so there is nothing it could answer.
//
// Every error carries the request's id. A method the server does not have
// (or that the revision removed, like initialize) is 404 / -32601.
//
// A tools/call of a tool that reports progress, with _meta.progressToken
// and an Accept that lists text/event-stream, is answered on its own SSE
// response (post_stream.cpp) through a session that exists only for this
// request and is never registered: no Mcp-Session-Id, nothing to resume on
// GET. The client closing that response detaches it; the executions the
// call started keep running and stay fetchable by execution_id.
#include <nlohmann/json.hpp>

#include "mcp/protocol/modern_results.hpp"
#include "mcp/transport/mcp_transport.hpp"
#include "mcp/transport/modern_headers.hpp"
#include "mcp/transport/transport_support.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/http/authenticator.hpp"
#include "yuzu/mcp/call_context.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/mcp_server.hpp"
#include "yuzu/mcp/pipeline.hpp"
#include "yuzu/mcp/protocol_era.hpp"
#include "yuzu/mcp/session/session.hpp"
#include "yuzu/mcp/session/session_registry.hpp"

namespace yuzu::mcp {
namespace {

int modern_http_status(int error_code) {
    switch (error_code) {
        case kMethodNotFound:
            return 404;
        case kHeaderMismatch:
        case kMissingClientCapability:
        case kUnsupportedProtocolVersion:
            return 400;
        default:
            return 200;
    }
}

}  // namespace

std::shared_ptr<Session> McpTransport::request_session(const std::string& principal,
                                                       const RequestMeta& meta,
                                                       const std::string& correlation_id) const {
    if (options_.sessions == nullptr) return nullptr;
    const Clock& clock = options_.clock ? *options_.clock : SystemClock::instance();
    auto session = std::make_shared<Session>(
        "request:" + correlation_id, principal, meta.protocol_version,
        options_.sessions->options().limits, options_.stream_metrics, clock.steady_ms());
    session->set_unresumable();
    if (meta.log_level) {
        session->set_log_level(*meta.log_level);
    } else {
        session->mute_logs();
    }
    return session;
}

void McpTransport::post_modern(const httplib::Request& req, httplib::Response& res,
                               const RpcMessage& message, const http::Authenticated& who,
                               const RequestInfo& info) const {
    const auto refuse = [&](int status, const RpcError& error) {
        write_rpc(res, status, make_error(message.id, error));
    };
    if (message.kind == RpcMessage::Kind::kResponse) {
        refuse(400, RpcError{kInvalidRequest,
                             "a 2026-07-28 server sends no requests, so a response answers nothing",
                             error_envelope(info.correlation_id, std::nullopt,
                                            "send requests or notifications only")});
        return;
    }
    // A header that disagrees with _meta is a mismatch even when neither
    // names a version this server speaks.
    if (auto mismatch = check_version_header(req, message, info.correlation_id)) {
        refuse(400, *mismatch);
        return;
    }
    auto parsed = parse_request_meta(message.params, info.correlation_id);
    if (auto* error = std::get_if<RpcError>(&parsed)) {
        refuse(400, *error);
        return;
    }
    const RequestMeta& meta = std::get<RequestMeta>(parsed);
    if (auto mismatch =
            check_modern_headers(req, message, meta, mcp_.tools(), info.correlation_id)) {
        refuse(400, *mismatch);
        return;
    }
    if (message.kind != RpcMessage::Kind::kRequest) {
        // A notification needs no answer; a 2026 client cancels by closing
        // the request's stream, not by notification.
        res.status = 202;
        return;
    }
    if (message.method == "tools/call") {
        // Before a streamed answer could start: a refusal is a 400.
        if (auto missing = missing_client_capability(mcp_.tools(), message.params, meta, info)) {
            refuse(400, *missing);
            return;
        }
    }
    CallContext ctx;
    ctx.modern = &meta;
    if (post_with_progress(req, res, message, who, info, ctx)) return;
    Reply reply = mcp_.handle(message, who.principal, info, ctx);
    write_rpc(res, modern_http_status(reply.error_code), reply.body);
}

}  // namespace yuzu::mcp
