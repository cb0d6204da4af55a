#include "yuzu/mcp/session/stream_metrics.hpp"

#include "yuzu/metrics/builder.hpp"

namespace yuzu::mcp {

std::string_view stream_reject_name(StreamReject reject) {
    switch (reject) {
        case StreamReject::kMissingSessionHeader:
            return "missing_session_header";
        case StreamReject::kUnknownSession:
            return "unknown_session";
        case StreamReject::kNotAcceptable:
            return "not_acceptable";
        case StreamReject::kPerPrincipalStreamCap:
            return "per_principal_stream_cap";
        case StreamReject::kGlobalStreamCap:
            return "global_stream_cap";
        case StreamReject::kOrigin:
            return "origin";
        case StreamReject::kProtocolVersion:
            return "protocol_version";
        case StreamReject::kSessionPerPrincipalCap:
            return "session_per_principal_cap";
        case StreamReject::kSessionGlobalCap:
            return "session_global_cap";
        case StreamReject::kStreamHandoverPending:
            return "stream_handover_pending";
        case StreamReject::kPostPerPrincipalCap:
            return "post_per_principal_cap";
        case StreamReject::kPostGlobalCap:
            return "post_global_cap";
        case StreamReject::kPostRecordCap:
            return "post_record_cap";
        case StreamReject::kPostPinSlots:
            return "post_pin_slots";
        case StreamReject::kPostDuplicateId:
            return "post_duplicate_id";
    }
    return "unknown_session";
}

namespace {

metrics::Counter& counter(metrics::Registry& r, const char* name, const char* help) {
    return metrics::BuildCounter().Name(name).Help(help).Register(r).Add({});
}
metrics::Gauge& gauge(metrics::Registry& r, const char* name, const char* help) {
    return metrics::BuildGauge().Name(name).Help(help).Register(r).Add({});
}

}  // namespace

StreamMetrics::StreamMetrics(metrics::Registry& r)
    : sessions_active(gauge(r, "yuzu_mcp_sessions_active", "MCP sessions open now.")),
      sessions_opened(
          counter(r, "yuzu_mcp_sessions_opened_total", "MCP sessions minted by initialize.")),
      streams_active(gauge(r, "yuzu_mcp_streams_active",
                           "MCP GET streams (server-to-client channels) open now.")),
      handover_pending(gauge(r, "yuzu_mcp_streams_handover_pending",
                             "MCP GET streams taken over by a newer GET whose old connection "
                             "has not ended yet.")),
      streams_cap(gauge(r, "yuzu_mcp_streams_cap",
                        "The effective cap on held-open streams of the management listener "
                        "(--max-sse-streams after the boot clamp).")),
      ring_evictions(counter(r, "yuzu_mcp_stream_replay_ring_evictions_total",
                             "Frames evicted from MCP sessions' replay rings (a resume from "
                             "before them gets replay_gap).")),
      frames_dropped(counter(r, "yuzu_mcp_stream_frames_dropped_total",
                             "Frames not queued to a slow MCP stream connection (still in the "
                             "replay ring; the stream catches up from it).")),
      frames_too_large(counter(r, "yuzu_mcp_stream_frames_too_large_total",
                               "MCP stream frames over the per-frame byte cap, shortened "
                               "before entering the replay ring.")),
      publish_failures(counter(r, "yuzu_mcp_stream_publish_failures_total",
                               "MCP stream frames that could not be committed (never "
                               "published; no event id used).")),
      session_gc_failures(metrics::BuildCounter()
                              .Name("yuzu_mcp_maintenance_tick_failures_total")
                              .Help("MCP maintenance ticks that failed, by tick.")
                              .Register(r)
                              .Add({{"tick", "session_gc"}})),
      post_streams_active(gauge(r, "yuzu_mcp_post_streams_active",
                                "Streamed POST responses (SSE on a tools/call) held open now.")),
      pin_displaced(counter(r, "yuzu_mcp_stream_pin_displaced_total",
                            "Pinned finals unpinned because a session pinned more than its "
                            "slots (admission drift; the frame stays until evicted).")),
      final_unpinned(counter(r, "yuzu_mcp_stream_final_unpinned_total",
                             "Streamed-call finals committed without a pin (no pin slots).")),
      terminal_publish_failures(counter(r, "yuzu_mcp_stream_terminal_publish_failures_total",
                                        "Streamed-call finals that could not be committed to "
                                        "the replay ring (written to the wire only, or lost "
                                        "to a resume).")) {
    auto& rejects =
        metrics::BuildCounter()
            .Name("yuzu_mcp_stream_rejects_total")
            .Help("Refused MCP GET streams, initialize calls and streamed POSTs, by reason.")
            .Register(r);
    for (size_t i = 0; i < kStreamRejectCount; ++i) {
        rejects_[i] = &rejects.Add(
            {{"reason", std::string(stream_reject_name(static_cast<StreamReject>(i)))}});
    }
    auto& closes =
        metrics::BuildCounter()
            .Name("yuzu_mcp_stream_closes_total")
            .Help("Ended MCP streams (GET channels and streamed POSTs), by close reason.")
            .Register(r);
    for (size_t i = 0; i < kCloseReasons.size(); ++i) {
        closes_[i] = &closes.Add({{"reason", std::string(close_reason_name(kCloseReasons[i]))}});
    }
}

void StreamMetrics::reject(StreamReject why) const {
    rejects_[static_cast<size_t>(why)]->Increment();
}

void StreamMetrics::closed(CloseReason why) const {
    closes_[static_cast<size_t>(why)]->Increment();
}

}  // namespace yuzu::mcp
