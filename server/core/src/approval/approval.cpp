#include "yuzu/approval/approval.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace yuzu::approval {
namespace {

constexpr std::array<std::pair<ApprovalState, std::string_view>, 5> kStateNames = {{
    {ApprovalState::kPending, "pending"},
    {ApprovalState::kApproved, "approved"},
    {ApprovalState::kRejected, "rejected"},
    {ApprovalState::kExpired, "expired"},
    {ApprovalState::kConsumed, "consumed"},
}};

constexpr std::array<std::pair<Surface, std::string_view>, 3> kSurfaceNames = {{
    {Surface::kMcp, "mcp"},
    {Surface::kRest, "rest"},
    {Surface::kSchedule, "schedule"},
}};

}  // namespace

std::string_view approval_state_name(ApprovalState state) {
    for (const auto& [s, name] : kStateNames) {
        if (s == state) return name;
    }
    return "unknown";
}

std::optional<ApprovalState> parse_approval_state(std::string_view name) {
    for (const auto& [s, n] : kStateNames) {
        if (n == name) return s;
    }
    return std::nullopt;
}

std::string_view surface_name(Surface surface) {
    for (const auto& [s, name] : kSurfaceNames) {
        if (s == surface) return name;
    }
    return "unknown";
}

std::optional<Surface> parse_surface(std::string_view name) {
    for (const auto& [s, n] : kSurfaceNames) {
        if (n == name) return s;
    }
    return std::nullopt;
}

bool is_approval_id(std::string_view id) {
    return id.size() == kApprovalIdLength && std::all_of(id.begin(), id.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

ApprovalState Approval::effective_state(int64_t now_ms) const {
    const bool open = state == ApprovalState::kPending || state == ApprovalState::kApproved;
    return open && past_lifetime(now_ms) ? ApprovalState::kExpired : state;
}

std::string_view redeem_verdict_name(RedeemVerdict verdict) {
    switch (verdict) {
        case RedeemVerdict::kRedeemable:
            return "redeemable";
        case RedeemVerdict::kMismatch:
            return "mismatch";
        case RedeemVerdict::kPending:
            return "pending";
        case RedeemVerdict::kExpiredPastLifetime:
            return "expired_past_lifetime";
        case RedeemVerdict::kNotRedeemable:
            return "not_redeemable";
    }
    return "not_redeemable";
}

RedeemVerdict classify_redemption(const Approval* ticket, const RedeemRequest& request,
                                  int64_t now_ms) {
    if (ticket == nullptr) return RedeemVerdict::kNotRedeemable;
    // Wrong tool or arguments is its own, earlier answer: the caller sent a
    // ticket for something else, whoever owns it.
    if (ticket->definition_id != request.definition_id ||
        ticket->scope_expression != request.scope_expression) {
        return RedeemVerdict::kMismatch;
    }
    const bool past = ticket->past_lifetime(now_ms);
    if (ticket->state == ApprovalState::kPending && !past) return RedeemVerdict::kPending;
    // Surface and submitter are checked before anything that tells states
    // apart, so another principal cannot learn whether a ticket was approved,
    // rejected, consumed or has lapsed.
    if (ticket->surface != Surface::kMcp || ticket->submitted_by != request.principal) {
        return RedeemVerdict::kNotRedeemable;
    }
    if (ticket->state == ApprovalState::kApproved && ticket->consumed_at_ms == 0) {
        return past ? RedeemVerdict::kExpiredPastLifetime : RedeemVerdict::kRedeemable;
    }
    return RedeemVerdict::kNotRedeemable;
}

}  // namespace yuzu::approval
