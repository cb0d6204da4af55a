// tools/call with _meta.progressToken: the progress bridge's admission and
// the streamed POST response (SSE on the POST).
//
// The opt-in (the seed's table): a token and an Accept that lists
// text/event-stream get an SSE response (progress frames, the JSON-RPC
// result last, then EOF); a token alone gets plain JSON now and the
// progress on the session's GET channel; no token, plain JSON as always.
// Every refusal is answered before the handler runs, so a refused call has
// dispatched nothing.
//
// A streamed response's frames are committed to the session's replay ring
// first (ring-only: a live GET connection never sees them), so a client
// that lost the response resumes on GET with Last-Event-ID; the result is
// pinned there until it reaches a wire. The pump waits on the call's
// record, at most a tick at a time; each tick writes a heartbeat and
// re-checks a token credential, as the GET channel does. Ending the
// response never cancels the executions it reports on.
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mcp/transport/mcp_transport.hpp"
#include "mcp/transport/transport_support.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/http/authenticator.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/http/sse_writer.hpp"
#include "yuzu/http/stream_budget.hpp"
#include "yuzu/mcp/bridge/bridge_metrics.hpp"
#include "yuzu/mcp/bridge/progress_bridge.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/jsonrpc.hpp"
#include "yuzu/mcp/mcp_server.hpp"
#include "yuzu/mcp/protocol_era.hpp"
#include "yuzu/mcp/retry.hpp"
#include "yuzu/mcp/session/session.hpp"
#include "yuzu/mcp/session/session_registry.hpp"
#include "yuzu/mcp/session/stream_metrics.hpp"
#include "yuzu/metrics/gauge.hpp"

namespace yuzu::mcp {
namespace {

using nlohmann::json;

// MCP: a progress token is a string or an integer. Ours are echoed in every
// frame, so a long one is refused rather than repeated a thousand times.
constexpr size_t kMaxProgressTokenBytes = 512;

// The stream budget's key for a principal's streamed POSTs: counted apart
// from the same principal's GET streams, so an open GET channel does not
// cost a streamed call its slot.
std::string post_budget_key(const std::string& principal) {
    return std::string("post\0", 5) + principal;
}

// The progress token of a tools/call, or null when it has none.
const json* progress_token(const json& params) {
    if (!params.is_object()) return nullptr;
    auto meta = params.find("_meta");
    if (meta == params.end() || !meta->is_object()) return nullptr;
    auto token = meta->find("progressToken");
    return token == meta->end() ? nullptr : &*token;
}

bool valid_token(const json& token) {
    if (token.is_number_integer() || token.is_number_unsigned()) return true;
    return token.is_string() && !token.get_ref<const std::string&>().empty() &&
           token.get_ref<const std::string&>().size() <= kMaxProgressTokenBytes;
}

struct PostStream {
    PostStream(const Clock& c, int64_t grace_ms) : clock(c), watch(c, grace_ms) {}

    std::shared_ptr<CallRecord> record;
    std::shared_ptr<Session> session;
    SessionRegistry* registry = nullptr;
    const StreamMetrics* metrics = nullptr;
    const http::CredentialResolver* resolver = nullptr;
    httplib::Request credential;
    http::StreamBudget::Lease lease;
    std::string correlation_id;
    std::vector<std::string> execution_ids;
    int64_t tick_ms = 3000;
    int64_t reconnect_ms = 1000;
    int64_t next_tick_ms = 0;
    int64_t deadline_ms = 0;
    bool primed = false;
    bool resumable = true;  // false: a 2026 request's own session, never on GET
    bool expired = false;
    const Clock& clock;
    CredentialWatch watch;
    std::optional<CloseReason> closed;
};

bool end_with(PostStream& s, httplib::DataSink& sink, CloseReason reason) {
    s.closed = reason;
    const std::string text = stream_closed_frame(reason, s.correlation_id, s.execution_ids);
    const bool ok = sink.write(text.data(), text.size());
    if (ok) sink.done();
    return ok;
}

// Writes one frame of the call; once written it is no longer replayed to a
// resume (and a final loses its pin).
bool write_frame(PostStream& s, httplib::DataSink& sink, const StreamFrame& frame) {
    if (!sink.write(frame.text->data(), frame.text->size())) return false;
    if (frame.id != 0) s.session->delivered(frame.id);
    return true;
}

bool pump(PostStream& s, httplib::DataSink& sink) {
    const auto now = [&s] { return s.clock.steady_ms(); };
    if (!s.primed) {
        s.primed = true;
        if (s.resumable) {
            // The priming event's id is a resume cursor just before the call's
            // first frame, so a resume from it replays the whole call.
            http::SseEvent priming;
            const uint64_t first = s.record->first_frame_id();
            priming.id = first > 0 ? first - 1 : s.session->last_event_id();
            priming.retry_ms = s.reconnect_ms;
            const std::string text = http::SseWriter(1024).frame(priming).value();
            if (!sink.write(text.data(), text.size())) return false;
        }
        s.next_tick_ms = now() + s.tick_ms;
    }
    const int64_t until = std::min(s.next_tick_ms, s.deadline_ms);
    CallRecord::Batch batch = s.record->wait(std::max<int64_t>(1, until - now()));
    for (const auto& frame : batch.frames) {
        if (!write_frame(s, sink, frame)) return false;
    }
    if (batch.final) {
        if (!write_frame(s, sink, *batch.final)) return false;
        if (batch.ended == CloseReason::kCapExpired) return end_with(s, sink, *batch.ended);
        s.closed = CloseReason::kCompleted;
        sink.done();
        return true;
    }
    if (batch.ended) {
        // A record ended under a closed session (shutdown, DELETE) says so.
        const CloseReason reason =
            s.session->closed() ? CloseReason::kSessionTerminated : *batch.ended;
        return end_with(s, sink, reason);
    }
    if (s.session->closed()) {
        s.record->bridge().abandon(*s.record, CloseReason::kSessionTerminated);
        return end_with(s, sink, CloseReason::kSessionTerminated);
    }
    if (!s.expired && now() >= s.deadline_ms) {
        // The cap: one more projection, then the result now (the next wait
        // answers it at once).
        s.expired = true;
        s.record->bridge().expire(*s.record);
        return true;
    }
    if (now() < s.next_tick_ms) return true;
    s.next_tick_ms = now() + s.tick_ms;
    if (!sink.is_writable()) return false;
    const std::string beat = http::SseWriter::comment("heartbeat");
    if (!sink.write(beat.data(), beat.size())) return false;
    if (has_token_credential(s.credential)) {
        const auto check = recheck_credential(s.credential, *s.resolver, s.session->principal());
        if (auto reason = s.watch.observe(check)) {
            s.record->bridge().abandon(*s.record, *reason);
            if (*reason == CloseReason::kCredentialRevoked) {
                s.session->close(*reason);
                s.registry->remove(s.session->id(), s.session->principal());
            }
            return end_with(s, sink, *reason);
        }
    }
    s.session->touch(now());
    return true;
}

}  // namespace

bool McpTransport::carries_progress_token(const RpcMessage& message) {
    return message.kind == RpcMessage::Kind::kRequest && message.method == "tools/call" &&
           progress_token(message.params) != nullptr;
}

void McpTransport::cancel(const RpcMessage& message,
                          const std::shared_ptr<Session>& session) const {
    const BridgeMetrics* metrics = options_.bridge_metrics;
    if (options_.bridge == nullptr) return;
    const json* id = nullptr;
    if (message.params.is_object()) {
        auto it = message.params.find("requestId");
        if (it != message.params.end() && (it->is_string() || it->is_number_integer())) {
            id = &*it;
        }
    }
    CancelOutcome outcome = CancelOutcome::kMalformed;
    if (id == nullptr) {
        outcome = CancelOutcome::kMalformed;
    } else if (!session) {
        outcome = CancelOutcome::kNoSession;
    } else {
        outcome = options_.bridge->cancel(*session, *id) ? CancelOutcome::kDetached
                                                         : CancelOutcome::kNotInFlight;
    }
    if (metrics) metrics->cancelled(outcome);
}

bool McpTransport::post_with_progress(const httplib::Request& req, httplib::Response& res,
                                      const RpcMessage& message, const http::Authenticated& who,
                                      const RequestInfo& info, CallContext& ctx) const {
    ProgressBridge* bridge = options_.bridge;
    const BridgeMetrics* bridge_metrics = options_.bridge_metrics;
    const StreamMetrics* stream_metrics = options_.stream_metrics;
    if (bridge == nullptr || message.kind != RpcMessage::Kind::kRequest ||
        message.method != "tools/call") {
        return false;
    }
    const json* token = progress_token(message.params);
    if (token == nullptr) return false;
    auto name = message.params.find("name");
    if (name == message.params.end() || !name->is_string() ||
        !mcp_.tool_reports_progress(name->get<std::string>())) {
        return false;
    }
    const auto degrade = [&](BridgeDegrade why) {
        if (bridge_metrics) bridge_metrics->degrade(why);
        return false;  // answered plainly by the caller
    };
    if (!valid_token(*token)) return degrade(BridgeDegrade::kInvalidToken);
    const std::string& principal = who.principal.username;
    const bool streamed =
        options_.streamed_post && accept_lists_event_stream(header_values(req, "Accept"));
    if (ctx.modern != nullptr && !ctx.session) {
        // A 2026 request has no GET channel: its progress goes on its own
        // response or nowhere.
        if (!streamed) return degrade(BridgeDegrade::kNoStream);
        ctx.session = request_session(principal, *ctx.modern, info.correlation_id);
    }
    if (!ctx.session) return degrade(BridgeDegrade::kNoSession);
    // A 2026 refusal carries the request's id, like every 2026 error.
    const auto refuse = [&](int status, int code, const std::string& text,
                            const std::string& remediation, std::optional<int64_t> retry) {
        if (ctx.modern == nullptr) {
            write_rpc_error(res, status, code, text, remediation, retry);
            return;
        }
        if (retry) res.set_header("Retry-After", std::to_string((*retry + 999) / 1000));
        write_rpc(res, status,
                  make_error(message.id,
                             RpcError{code, text,
                                      error_envelope(info.correlation_id, retry, remediation)}));
    };
    const std::string plain_answer =
        ctx.modern ? "retry without Accept: text/event-stream for a plain answer (without "
                     "progress)"
                   : "retry without Accept: text/event-stream for a plain answer (progress "
                     "then goes to the GET stream)";

    std::optional<http::StreamBudget::Lease> lease;
    if (streamed) {
        auto admission = budget_.acquire(post_budget_key(principal));
        if (!admission.lease) {
            const bool global = admission.refusal == http::StreamBudget::Refusal::kGlobalCap;
            if (stream_metrics) {
                stream_metrics->reject(global ? StreamReject::kPostGlobalCap
                                              : StreamReject::kPostPerPrincipalCap);
            }
            refuse(429, kStreamCapReached,
                   global ? "too many streams are open on this server (at most " +
                                std::to_string(budget_.cap()) + ")"
                          : "too many streamed calls are open for this principal (at most " +
                                std::to_string(budget_.per_principal_cap()) + ")",
                   "retry later, or " + plain_answer, kMcpStreamedPostRetryMs);
            return true;
        }
        lease = std::move(*admission.lease);
    }

    auto reserved = bridge->reserve(ctx.session, message.id, *token, streamed, info.correlation_id);
    if (auto* refusal = std::get_if<ProgressBridge::Refusal>(&reserved)) {
        using R = ProgressBridge::Refusal;
        switch (*refusal) {
            case R::kShuttingDown:
                return degrade(BridgeDegrade::kShuttingDown);
            case R::kNoMemory:
                return degrade(BridgeDegrade::kNoMemory);
            case R::kClosed:
                write_unknown_session(res);
                return true;
            case R::kDuplicateId:
                if (stream_metrics && streamed) {
                    stream_metrics->reject(StreamReject::kPostDuplicateId);
                }
                refuse(409, kInvalidRequest,
                       "request id " + dump_json(message.id).substr(0, 64) +
                           " is already in flight on this session",
                       "use a fresh request id", std::nullopt);
                return true;
            case R::kRecordCap:
                if (!streamed) return degrade(BridgeDegrade::kRecordCap);
                if (stream_metrics) stream_metrics->reject(StreamReject::kPostRecordCap);
                refuse(429, kStreamCapReached,
                       "the server follows the progress of at most " +
                           std::to_string(kBridgeRecordCap) + " calls at once",
                       "retry later, or " + plain_answer, kMcpStreamedPostRetryMs);
                return true;
            case R::kSlotsBusy:
                if (stream_metrics) stream_metrics->reject(StreamReject::kPostPinSlots);
                refuse(429, kStreamCapReached,
                       "this session already has " +
                           std::to_string(options_.sessions->options().limits.max_pinned) +
                           " streamed calls in flight",
                       "wait for one of them to finish, then retry", kMcpStreamedPostRetryMs);
                return true;
        }
    }
    std::shared_ptr<CallRecord> record = std::get<ProgressBridge::Reservation>(reserved).record;
    ctx.record = record;
    if (streamed) bridge->set_pump_attached(*record, true);

    Reply reply;
    try {
        reply = mcp_.handle(message, who.principal, info, ctx);
    } catch (...) {
        // No pump will run: what the call committed is a resume's.
        if (streamed) bridge->set_pump_attached(*record, false);
        bridge->abandon(*record, CloseReason::kInternalError);
        throw;
    }
    // After dispatch: a fault from here on answers a 500 that says where
    // the work is, never a retry (the seed's two post-dispatch refusals).
    const auto dispatched_failure = [&](const char* what, const char* text) {
        spdlog::error("correlation_id={} mcp: {} after dispatch", info.correlation_id, what);
        bridge->set_pump_attached(*record, false);
        bridge->abandon(*record, CloseReason::kInternalError);
        const auto ids = record->execution_ids();
        json data = error_envelope(info.correlation_id, std::nullopt,
                                   "the command is running: fetch it by execution_id, or retry "
                                   "without Accept: text/event-stream");
        if (!ids.empty()) {
            data["execution_id"] = ids.front();
            data["execution_ids"] = ids;
        }
        write_rpc(res, 500, make_error(message.id, RpcError{kInternalError, text, data}));
    };
    try {
        bridge->finish(*record, reply.body);
    } catch (...) {
        if (!streamed) {
            // The plain answer is self-sufficient: it carries execution_id.
            bridge->abandon(*record, CloseReason::kInternalError);
            write_rpc(res, 200, reply.body);
            return true;
        }
        dispatched_failure("could not complete the response",
                           "the response could not be completed after dispatch");
        return true;
    }
    if (!streamed) {
        write_rpc(res, 200, reply.body);
        return true;
    }

    try {
        const Clock& clock = options_.clock ? *options_.clock : SystemClock::instance();
        auto stream = std::make_shared<PostStream>(clock, options_.auth_grace_ms);
        stream->record = record;
        stream->session = ctx.session;
        stream->registry = options_.sessions;
        stream->metrics = stream_metrics;
        stream->resolver = &resolver_;
        stream->credential = credential_headers_of(req);
        stream->lease = std::move(*lease);
        stream->correlation_id = info.correlation_id;
        stream->execution_ids = record->execution_ids();
        stream->tick_ms = std::max<int64_t>(100, options_.stream_tick_ms);
        stream->reconnect_ms = options_.reconnect_ms;
        stream->resumable = ctx.modern == nullptr;
        stream->deadline_ms = clock.steady_ms() + options_.streamed_post_cap_ms;
        http::HttpServer::relabel_current_route(kStreamedPostRouteLabel);
        start_event_stream(
            res, info.correlation_id, "streamed response",
            [stream](httplib::DataSink& sink) { return pump(*stream, sink); },
            [stream](httplib::DataSink& sink) {
                stream->closed = CloseReason::kInternalError;
                stream->record->bridge().abandon(*stream->record, CloseReason::kInternalError);
                return end_with(*stream, sink, CloseReason::kInternalError);
            },
            [stream] {
                const CloseReason reason = stream->closed.value_or(CloseReason::kClientDisconnect);
                // A peer that left before the result: the record carries on
                // alone and commits the result to the ring for a resume. A
                // 2026 stream cannot be resumed, so its record is let go at
                // once (its bridge slot too); the executions run on either way.
                stream->record->bridge().set_pump_attached(*stream->record, false);
                if (!stream->resumable && !stream->closed) {
                    stream->record->bridge().abandon(*stream->record,
                                                     CloseReason::kClientDisconnect);
                }
                if (stream->metrics) {
                    stream->metrics->closed(reason);
                    stream->metrics->post_streams_active.Decrement();
                }
                spdlog::info("correlation_id={} mcp: streamed response closed ({})",
                             stream->correlation_id, close_reason_name(reason));
            });
        if (stream_metrics) stream_metrics->post_streams_active.Increment();
    } catch (...) {
        dispatched_failure("could not open a streamed response",
                           "the stream could not be established");
    }
    return true;
}

}  // namespace yuzu::mcp
