// The progress bridge's metrics, registered once with every label set
// pre-seeded to zero (docs/user-manual/metrics.md has each one's alerting
// posture). Counters are safe to bump from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace yuzu::metrics {
class Registry;
class Counter;
class Gauge;
}  // namespace yuzu::metrics

namespace yuzu::mcp {

// Why the bridge refused to reserve a record: yuzu_mcp_bridge_reject_total{reason}.
enum class BridgeReject { kRecordCap, kPinSlots, kDuplicateId };
inline constexpr size_t kBridgeRejectCount = 3;
std::string_view bridge_reject_name(BridgeReject why);

// Why a call with a progress token got the plain response without progress:
// yuzu_mcp_bridge_degrade_total{reason}.
// kNoStream: a 2026-07-28 request, which has no GET channel, whose Accept
// does not take its own event stream (or streamed POSTs are off).
enum class BridgeDegrade {
    kNoSession,
    kNoStream,
    kInvalidToken,
    kRecordCap,
    kShuttingDown,
    kNoMemory
};
inline constexpr size_t kBridgeDegradeCount = 6;
static_assert(kBridgeDegradeCount == static_cast<size_t>(BridgeDegrade::kNoMemory) + 1);
std::string_view bridge_degrade_name(BridgeDegrade why);

// What a notifications/cancelled found: yuzu_mcp_cancel_notifications_total{outcome}.
enum class CancelOutcome { kDetached, kNotInFlight, kNoSession, kMalformed };
inline constexpr size_t kCancelOutcomeCount = 4;
std::string_view cancel_outcome_name(CancelOutcome outcome);

struct BridgeMetrics {
    explicit BridgeMetrics(metrics::Registry& registry);

    void reject(BridgeReject why) const;
    void degrade(BridgeDegrade why) const;
    void cancelled(CancelOutcome outcome) const;

    metrics::Gauge& records_active;
    metrics::Counter& listener_failures;
    metrics::Counter& mailbox_drops;  // retired: always zero (see metrics.md)
    metrics::Counter& progress_suppressed;
    metrics::Counter& projector_cycles;
    metrics::Counter& pin_displaced_for_admission;

  private:
    std::array<metrics::Counter*, kBridgeRejectCount> rejects_{};
    std::array<metrics::Counter*, kBridgeDegradeCount> degrades_{};
    std::array<metrics::Counter*, kCancelOutcomeCount> cancels_{};
};

}  // namespace yuzu::mcp
