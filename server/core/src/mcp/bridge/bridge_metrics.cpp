#include "yuzu/mcp/bridge/bridge_metrics.hpp"

#include <string>

#include "yuzu/metrics/builder.hpp"

namespace yuzu::mcp {

std::string_view bridge_reject_name(BridgeReject why) {
    switch (why) {
        case BridgeReject::kRecordCap:
            return "record_cap";
        case BridgeReject::kPinSlots:
            return "pin_slots";
        case BridgeReject::kDuplicateId:
            return "duplicate_id";
    }
    return "record_cap";
}

std::string_view bridge_degrade_name(BridgeDegrade why) {
    switch (why) {
        case BridgeDegrade::kNoSession:
            return "no_session";
        case BridgeDegrade::kNoStream:
            return "no_stream";
        case BridgeDegrade::kInvalidToken:
            return "invalid_token";
        case BridgeDegrade::kRecordCap:
            return "record_cap";
        case BridgeDegrade::kShuttingDown:
            return "shutting_down";
        case BridgeDegrade::kNoMemory:
            return "no_memory";
    }
    return "no_memory";
}

std::string_view cancel_outcome_name(CancelOutcome outcome) {
    switch (outcome) {
        case CancelOutcome::kDetached:
            return "detached";
        case CancelOutcome::kNotInFlight:
            return "not_in_flight";
        case CancelOutcome::kNoSession:
            return "no_session";
        case CancelOutcome::kMalformed:
            return "malformed";
    }
    return "malformed";
}

namespace {

metrics::Counter& counter(metrics::Registry& r, const char* name, const char* help) {
    return metrics::BuildCounter().Name(name).Help(help).Register(r).Add({});
}

template <size_t N, typename Enum, typename NameFn>
void labelled(metrics::Registry& r, const char* name, const char* help, const char* label,
              NameFn name_of, std::array<metrics::Counter*, N>& out) {
    auto& family = metrics::BuildCounter().Name(name).Help(help).Register(r);
    for (size_t i = 0; i < N; ++i) {
        out[i] = &family.Add({{label, std::string(name_of(static_cast<Enum>(i)))}});
    }
}

}  // namespace

BridgeMetrics::BridgeMetrics(metrics::Registry& r)
    : records_active(metrics::BuildGauge()
                         .Name("yuzu_mcp_bridge_records_active")
                         .Help("tools/call requests whose progress the bridge follows now "
                               "(at most 256).")
                         .Register(r)
                         .Add({})),
      listener_failures(counter(r, "yuzu_mcp_bridge_listener_failures_total",
                                "Progress-bridge projector cycles that failed (the thread "
                                "carries on), and event-bus drops that forced a resync.")),
      mailbox_drops(counter(r, "yuzu_mcp_bridge_mailbox_drops_total",
                            "Retired: the bridge keeps a latest-wins slot per call, not a "
                            "mailbox; always zero.")),
      progress_suppressed(counter(r, "yuzu_mcp_bridge_progress_suppressed_total",
                                  "Progress values that never reached a wire: ones that would "
                                  "not advance the call's last progress, and ones a newer "
                                  "value superseded before a slow pump took them.")),
      projector_cycles(counter(r, "yuzu_mcp_bridge_projector_cycles_total",
                               "Progress-bridge projector cycles run.")),
      pin_displaced_for_admission(
          counter(r, "yuzu_mcp_bridge_pin_displaced_for_admission_total",
                  "Undelivered streamed-call finals unpinned so a new streamed call could be "
                  "admitted (audited as mcp.bridge.pin_displaced_for_admission).")) {
    labelled<kBridgeRejectCount, BridgeReject>(
        r, "yuzu_mcp_bridge_reject_total",
        "Calls with a progress token the bridge refused to follow, by reason.", "reason",
        bridge_reject_name, rejects_);
    labelled<kBridgeDegradeCount, BridgeDegrade>(
        r, "yuzu_mcp_bridge_degrade_total",
        "Calls with a progress token answered plainly, without progress, by reason.", "reason",
        bridge_degrade_name, degrades_);
    labelled<kCancelOutcomeCount, CancelOutcome>(r, "yuzu_mcp_cancel_notifications_total",
                                                 "notifications/cancelled received, by outcome.",
                                                 "outcome", cancel_outcome_name, cancels_);
}

void BridgeMetrics::reject(BridgeReject why) const {
    rejects_[static_cast<size_t>(why)]->Increment();
}

void BridgeMetrics::degrade(BridgeDegrade why) const {
    degrades_[static_cast<size_t>(why)]->Increment();
}

void BridgeMetrics::cancelled(CancelOutcome outcome) const {
    cancels_[static_cast<size_t>(outcome)]->Increment();
}

}  // namespace yuzu::mcp
