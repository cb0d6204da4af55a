// StreamMetrics: every reject and close reason is exported at zero from the
// start (the label sets are pre-seeded), and reject()/closed() bump exactly
// the matching series.
#include "yuzu/mcp/session/stream_metrics.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "yuzu/mcp/session/close_reason.hpp"
#include "yuzu/metrics/counter.hpp"
#include "yuzu/metrics/gauge.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::mcp {
namespace {

// The value of the sample line "<series> <value>", if there is one.
std::optional<double> sample(const std::string& text, const std::string& series) {
    const std::string key = "\n" + series + " ";
    const size_t at = text.find(key);
    if (at == std::string::npos) return std::nullopt;
    return std::stod(text.substr(at + key.size()));
}

std::string reject_series(StreamReject why) {
    return "yuzu_mcp_stream_rejects_total{reason=\"" + std::string(stream_reject_name(why)) + "\"}";
}

std::string close_series(CloseReason why) {
    return "yuzu_mcp_stream_closes_total{reason=\"" + std::string(close_reason_name(why)) + "\"}";
}

StreamReject reject_at(size_t i) {
    return static_cast<StreamReject>(i);
}

TEST(StreamMetrics, RejectNamesAreDistinctAndTheDocumentedOnes) {
    std::set<std::string_view> names;
    for (size_t i = 0; i < kStreamRejectCount; ++i) names.insert(stream_reject_name(reject_at(i)));
    const std::set<std::string_view> expected = {
        "missing_session_header", "unknown_session",
        "not_acceptable",         "per_principal_stream_cap",
        "global_stream_cap",      "origin",
        "protocol_version",       "session_per_principal_cap",
        "session_global_cap",     "stream_handover_pending",
        "post_per_principal_cap", "post_global_cap",
        "post_record_cap",        "post_pin_slots",
        "post_duplicate_id"};
    EXPECT_EQ(names, expected);
}

TEST(StreamMetrics, EveryLabelSetIsExportedAtZeroFromTheStart) {
    metrics::Registry registry;
    const StreamMetrics metrics(registry);
    const std::string text = registry.Serialize();
    for (size_t i = 0; i < kStreamRejectCount; ++i) {
        EXPECT_EQ(sample(text, reject_series(reject_at(i))), 0.0) << reject_series(reject_at(i));
    }
    for (const CloseReason why : kCloseReasons) {
        EXPECT_EQ(sample(text, close_series(why)), 0.0) << close_series(why);
    }
    for (const char* series :
         {"yuzu_mcp_sessions_active", "yuzu_mcp_sessions_opened_total", "yuzu_mcp_streams_active",
          "yuzu_mcp_streams_handover_pending", "yuzu_mcp_streams_cap",
          "yuzu_mcp_stream_replay_ring_evictions_total", "yuzu_mcp_stream_frames_dropped_total",
          "yuzu_mcp_stream_frames_too_large_total", "yuzu_mcp_stream_publish_failures_total",
          "yuzu_mcp_maintenance_tick_failures_total{tick=\"session_gc\"}"}) {
        EXPECT_EQ(sample(text, series), 0.0) << series;
    }
}

TEST(StreamMetrics, RejectBumpsOnlyItsReason) {
    metrics::Registry registry;
    const StreamMetrics metrics(registry);
    metrics.reject(StreamReject::kOrigin);
    metrics.reject(StreamReject::kOrigin);
    metrics.reject(StreamReject::kSessionGlobalCap);
    const std::string text = registry.Serialize();
    for (size_t i = 0; i < kStreamRejectCount; ++i) {
        const StreamReject why = reject_at(i);
        const double want = why == StreamReject::kOrigin             ? 2.0
                            : why == StreamReject::kSessionGlobalCap ? 1.0
                                                                     : 0.0;
        EXPECT_EQ(sample(text, reject_series(why)), want) << reject_series(why);
    }
    for (const CloseReason why : kCloseReasons) {
        EXPECT_EQ(sample(text, close_series(why)), 0.0) << close_series(why);
    }
}

TEST(StreamMetrics, ClosedBumpsOnlyItsReason) {
    metrics::Registry registry;
    const StreamMetrics metrics(registry);
    metrics.closed(CloseReason::kReplayGap);
    metrics.closed(CloseReason::kClientDisconnect);
    metrics.closed(CloseReason::kClientDisconnect);
    metrics.closed(CloseReason::kClientDisconnect);
    const std::string text = registry.Serialize();
    for (const CloseReason why : kCloseReasons) {
        const double want = why == CloseReason::kReplayGap          ? 1.0
                            : why == CloseReason::kClientDisconnect ? 3.0
                                                                    : 0.0;
        EXPECT_EQ(sample(text, close_series(why)), want) << close_series(why);
    }
    for (size_t i = 0; i < kStreamRejectCount; ++i) {
        EXPECT_EQ(sample(text, reject_series(reject_at(i))), 0.0);
    }
}

TEST(StreamMetrics, MembersAreTheExportedSeries) {
    metrics::Registry registry;
    const StreamMetrics metrics(registry);
    metrics.frames_dropped.Increment(4);
    metrics.streams_cap.Set(32);
    metrics.session_gc_failures.Increment();
    const std::string text = registry.Serialize();
    EXPECT_EQ(sample(text, "yuzu_mcp_stream_frames_dropped_total"), 4.0);
    EXPECT_EQ(sample(text, "yuzu_mcp_streams_cap"), 32.0);
    EXPECT_EQ(sample(text, "yuzu_mcp_maintenance_tick_failures_total{tick=\"session_gc\"}"), 1.0);
}

}  // namespace
}  // namespace yuzu::mcp
