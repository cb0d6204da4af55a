// GET /mcp/v1/: a session's server→client SSE stream.
//
// The stream starts with a priming event (the resume cursor as its id,
// empty data, a `retry:` hint), then the frames after Last-Event-ID (when
// sent), then live frames as the session publishes them. Every tick
// (--mcp-stream-tick-ms) it writes a comment heartbeat and re-checks the
// caller's credential. It ends with a `stream-closed` event whose data is
// {"reason", "correlation_id", "retry_after_ms", "remediation"}; the reasons
// are close_reason.hpp's, documented in docs/user-manual/mcp.md.
//
// The stream holds this worker for its life; the pump waits on the
// session, so a publish, a takeover, a DELETE or shutdown wakes it at once.
// A peer that stopped reading is bounded by the listener's write timeout.
#include <spdlog/spdlog.h>

#include <charconv>
#include <chrono>
#include <functional>
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
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/jsonrpc.hpp"
#include "yuzu/mcp/retry.hpp"
#include "yuzu/mcp/session/session.hpp"
#include "yuzu/mcp/session/session_registry.hpp"
#include "yuzu/mcp/session/stream_metrics.hpp"
#include "yuzu/mcp/transport/credential_watch.hpp"

namespace yuzu::mcp {
namespace {

// An SSE frame of our own (priming): never near any cap.
const http::SseWriter kControlWriter(size_t{16} * 1024);

std::optional<uint64_t> parse_event_id(const std::string& text, bool* malformed) {
    *malformed = false;
    if (text.empty()) return std::nullopt;
    uint64_t id = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (text.size() > 20 || ec != std::errc() || ptr != text.data() + text.size()) {
        *malformed = true;
        return std::nullopt;
    }
    return id;
}

struct GetStream {
    std::shared_ptr<Session> session;
    SessionRegistry* registry = nullptr;
    const StreamMetrics* metrics = nullptr;
    const http::CredentialResolver* resolver = nullptr;
    httplib::Request credential;  // only the credential headers
    std::string correlation_id;
    uint64_t generation = 0;
    uint64_t cursor = 0;
    std::vector<StreamFrame> replay;          // written right after the priming event
    std::optional<CloseReason> end_at_start;  // a gap found while attaching
    bool attached = false;
    bool primed = false;
    int64_t tick_ms = 3000;
    int64_t reconnect_ms = 1000;
    int64_t next_tick_ms = 0;
    const Clock& clock;
    CredentialWatch watch;
    std::optional<CloseReason> closed;  // what the stream ended with

    GetStream(const Clock& c, int64_t grace_ms) : clock(c), watch(c, grace_ms) {}
};

CredentialCheck recheck(const GetStream& s) {
    return recheck_credential(s.credential, *s.resolver, s.session->principal());
}

// Writes the close frame and ends the chunked body.
bool end_stream(GetStream& s, httplib::DataSink& sink, CloseReason reason) {
    s.closed = reason;
    const std::string text = stream_closed_frame(reason, s.correlation_id);
    const bool ok = sink.write(text.data(), text.size());
    if (ok) sink.done();
    return ok;
}

bool write_frames(GetStream& s, httplib::DataSink& sink, const std::vector<StreamFrame>& frames) {
    for (const auto& frame : frames) {
        // A superseded or closed stream stops here: its next wait answers
        // the close, so a slow reader cannot keep a worker through a long
        // replay after it lost the stream.
        if (!s.session->is_current(s.generation)) return true;
        if (!sink.write(frame.text->data(), frame.text->size())) return false;
        s.cursor = frame.id;
        // A streamed call's result, delivered here: its pin is done.
        if (frame.pinned || frame.ring_only) s.session->delivered(frame.id);
    }
    return true;
}

// One call of the chunked provider: the priming event and replay, or one
// wait for frames (at most until the next tick), then the tick's work.
bool pump(GetStream& s, httplib::DataSink& sink) {
    const auto now = [&s] { return s.clock.steady_ms(); };
    if (!s.primed) {
        s.primed = true;
        if (s.end_at_start) return end_stream(s, sink, *s.end_at_start);
        // The priming id is the cursor the stream starts after, so a client
        // that reconnects before any frame resumes from the right place.
        http::SseEvent priming;
        priming.id = s.replay.empty() ? s.cursor : s.replay.front().id - 1;
        priming.retry_ms = s.reconnect_ms;
        const std::string text = kControlWriter.frame(priming).value();
        if (!sink.write(text.data(), text.size())) return false;
        std::vector<StreamFrame> replay = std::move(s.replay);
        // The first tick lands somewhere in the second half of a tick, so
        // streams opened together do not heartbeat and re-check together.
        s.next_tick_ms = now() + s.tick_ms / 2 +
                         static_cast<int64_t>(std::hash<std::string>{}(s.correlation_id) %
                                              static_cast<uint64_t>(s.tick_ms / 2 + 1));
        return write_frames(s, sink, replay);
    }
    const int64_t wait_ms = std::max<int64_t>(1, s.next_tick_ms - now());
    Session::Batch batch = s.session->wait(s.generation, s.cursor, wait_ms);
    if (!write_frames(s, sink, batch.frames)) return false;
    if (batch.close) return end_stream(s, sink, *batch.close);
    if (now() < s.next_tick_ms) return true;
    s.next_tick_ms = now() + s.tick_ms;
    // A peer that has closed its end reads as EOF here, so its worker and
    // stream slot come back within a tick rather than after a failed write.
    if (!sink.is_writable()) return false;
    const std::string beat = http::SseWriter::comment("heartbeat");
    if (!sink.write(beat.data(), beat.size())) return false;
    if (auto reason = s.watch.observe(recheck(s))) {
        // A revoked credential takes its session along; one the store could
        // not verify leaves the session for a retry once it can.
        if (*reason == CloseReason::kCredentialRevoked) {
            s.session->close(*reason);
            s.registry->remove(s.session->id(), s.session->principal());
        }
        return end_stream(s, sink, *reason);
    }
    s.session->touch(now());
    return true;
}

void stream_refused(httplib::Response& res, const StreamMetrics* metrics, StreamReject why,
                    const std::string& message) {
    if (metrics) metrics->reject(why);
    write_rpc_error(res, 429, kStreamCapReached, message,
                    "retry later, or close another stream of yours", kMcpStreamCapRetryMs);
}

}  // namespace

void McpTransport::get(const httplib::Request& req, httplib::Response& res) const {
    const std::string cid = http::correlation_id_of(res);
    const StreamMetrics* metrics = options_.stream_metrics;
    if (req.method != "GET") {
        // httplib routes HEAD here too; a HEAD would attach and supersede
        // the real stream without ever streaming.
        res.set_header("Allow", "GET, POST, DELETE, OPTIONS");
        http::write_error(res, 405, "use GET to open the stream");
        return;
    }
    if (!pass_prechecks(req, res, true)) return;
    if (!accept_names_event_stream(header_values(req, "Accept"))) {
        if (metrics) metrics->reject(StreamReject::kNotAcceptable);
        write_rpc_error(res, 406, kNotAcceptable, "Accept must list text/event-stream",
                        "send Accept: text/event-stream");
        return;
    }
    if (!req.has_header(kSessionHeader)) {
        if (metrics) metrics->reject(StreamReject::kMissingSessionHeader);
        write_rpc_error(res, 400, kInvalidRequest, "Mcp-Session-Id is required",
                        "initialize first, then GET with the session id it answered");
        return;
    }
    auto who = authenticate(req, res, false);
    if (!who) return;
    auto session =
        live_session(req, res, req.get_header_value(kSessionHeader), who->principal.username);
    if (!session) return;
    bool malformed = false;
    const auto last_event_id = parse_event_id(req.get_header_value("Last-Event-ID"), &malformed);
    if (malformed) {
        write_rpc_error(res, 400, kInvalidRequest, "Last-Event-ID must be an event id",
                        "send back the id of the last event you received");
        return;
    }

    const Clock& clock = options_.clock ? *options_.clock : SystemClock::instance();
    auto stream = std::make_shared<GetStream>(clock, options_.auth_grace_ms);
    Session::Attach attach = session->attach(last_event_id, budget_);
    using Outcome = Session::Attach::Outcome;
    switch (attach.outcome) {
        case Outcome::kAttached:
            break;
        case Outcome::kGap:
            // Answered as a stream that says so, never a shortened replay;
            // the session is gone (the client re-initializes).
            stream->end_at_start = CloseReason::kReplayGap;
            options_.sessions->remove(session->id(), session->principal());
            break;
        case Outcome::kClosed:
            write_unknown_session(res);
            return;
        case Outcome::kGlobalCap:
            stream_refused(res, metrics, StreamReject::kGlobalStreamCap,
                           "too many streams are open on this server (at most " +
                               std::to_string(budget_.cap()) + ")");
            return;
        case Outcome::kPerPrincipalCap:
            stream_refused(res, metrics, StreamReject::kPerPrincipalStreamCap,
                           "too many streams are open for this principal (at most " +
                               std::to_string(budget_.per_principal_cap()) + ")");
            return;
        case Outcome::kHandoverPending:
            stream_refused(res, metrics, StreamReject::kStreamHandoverPending,
                           "this session's previous stream is still ending");
            return;
    }
    // From here the attach holds a slot and the streams_active gauge; only
    // the provider's releaser gives them back, so a throw before it is
    // installed must.
    struct DetachUnlessInstalled {
        Session* session;
        uint64_t generation;
        bool armed;
        ~DetachUnlessInstalled() {
            if (armed) session->detach(generation);
        }
    } guard{session.get(), attach.generation, attach.outcome == Outcome::kAttached};
    stream->session = session;
    stream->registry = options_.sessions;
    stream->metrics = metrics;
    stream->resolver = &resolver_;
    stream->credential = credential_headers_of(req);
    stream->correlation_id = cid;
    stream->attached = attach.outcome == Outcome::kAttached;
    stream->generation = attach.generation;
    stream->cursor = attach.cursor;
    stream->replay = std::move(attach.replay);
    stream->tick_ms = std::max<int64_t>(100, options_.stream_tick_ms);
    stream->reconnect_ms = options_.reconnect_ms;
    if (stream->attached) {
        spdlog::info("correlation_id={} mcp: stream attached for '{}' (resume from {}{})", cid,
                     session->principal(), attach.cursor,
                     attach.took_over ? ", took over an older stream" : "");
    }

    start_event_stream(
        res, cid, "stream", [stream](httplib::DataSink& sink) { return pump(*stream, sink); },
        [stream](httplib::DataSink& sink) {
            // A fault ends the stream with internal_error (when the socket
            // still takes the frame).
            stream->closed = CloseReason::kInternalError;
            return end_stream(*stream, sink, CloseReason::kInternalError);
        },
        [stream] {
            const CloseReason reason = stream->closed.value_or(CloseReason::kClientDisconnect);
            if (stream->metrics) stream->metrics->closed(reason);
            if (stream->attached) stream->session->detach(stream->generation);
            spdlog::info("correlation_id={} mcp: stream closed ({})", stream->correlation_id,
                         close_reason_name(reason));
        });
    guard.armed = false;
}

}  // namespace yuzu::mcp
