// The MCP session and stream metrics, registered once with every label set
// pre-seeded to zero (docs/user-manual/metrics.md has each one's alerting
// posture). Counters are safe to bump from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "yuzu/mcp/session/close_reason.hpp"

namespace yuzu::metrics {
class Registry;
class Counter;
class Gauge;
}  // namespace yuzu::metrics

namespace yuzu::mcp {

// Why a GET, an initialize or a streamed POST was refused:
// yuzu_mcp_stream_rejects_total{reason}.
enum class StreamReject {
    kMissingSessionHeader,
    kUnknownSession,
    kNotAcceptable,
    kPerPrincipalStreamCap,
    kGlobalStreamCap,
    kOrigin,
    kProtocolVersion,
    kSessionPerPrincipalCap,
    kSessionGlobalCap,
    kStreamHandoverPending,
    // A streamed POST refused at admission (nothing dispatched).
    kPostPerPrincipalCap,
    kPostGlobalCap,
    kPostRecordCap,
    kPostPinSlots,
    kPostDuplicateId,
};
inline constexpr size_t kStreamRejectCount = 15;
std::string_view stream_reject_name(StreamReject reject);

struct StreamMetrics {
    explicit StreamMetrics(metrics::Registry& registry);

    void reject(StreamReject why) const;
    void closed(CloseReason why) const;

    metrics::Gauge& sessions_active;
    metrics::Counter& sessions_opened;
    metrics::Gauge& streams_active;
    metrics::Gauge& handover_pending;
    metrics::Gauge& streams_cap;
    metrics::Counter& ring_evictions;
    metrics::Counter& frames_dropped;
    metrics::Counter& frames_too_large;
    metrics::Counter& publish_failures;
    metrics::Counter& session_gc_failures;
    // Streamed POST responses and their pinned finals.
    metrics::Gauge& post_streams_active;
    metrics::Counter& pin_displaced;
    metrics::Counter& final_unpinned;
    metrics::Counter& terminal_publish_failures;

  private:
    std::array<metrics::Counter*, kStreamRejectCount> rejects_{};
    std::array<metrics::Counter*, kCloseReasons.size()> closes_{};
};

}  // namespace yuzu::mcp
