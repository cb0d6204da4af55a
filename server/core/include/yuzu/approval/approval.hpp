// Approval: one approval ticket as the ApprovalManager keeps it in
// approvals.db, its states, and the verdict on an attempt to redeem it.
//
// Life of a ticket:
//   pending ──approve──▶ approved ──consume──▶ consumed   (one-time)
//      │                    │
//      ├──reject──▶ rejected └─ past its lifetime: can no longer be consumed
//      └─ past its lifetime: expired (swept lazily)
//
// A ticket's lifetime (7 days) runs from its creation, not from its approval.
// Thread-safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace yuzu::approval {

inline constexpr int64_t kApprovalLifetimeMs = 7LL * 24 * 3600 * 1000;
inline constexpr size_t kMaxCommentLength = 1024;  // bytes of a review comment
inline constexpr size_t kMaxPendingApprovals = 1000;
inline constexpr size_t kApprovalIdLength = 32;  // lowercase hex

enum class ApprovalState {
    kPending,
    kApproved,
    kRejected,
    kExpired,
    kConsumed,
};

// "pending", "approved", "rejected", "expired", "consumed".
std::string_view approval_state_name(ApprovalState state);
std::optional<ApprovalState> parse_approval_state(std::string_view name);

// Which surface minted the ticket. Only MCP-minted tickets can be consumed by
// an MCP recall.
enum class Surface {
    kMcp,
    kRest,
    kSchedule,
};

// "mcp", "rest", "schedule".
std::string_view surface_name(Surface surface);
std::optional<Surface> parse_surface(std::string_view name);

// True when `id` is 32 lowercase hex characters.
bool is_approval_id(std::string_view id);

struct Approval {
    std::string id;                // 32 lowercase hex
    std::string definition_id;     // "mcp.<tool>" for MCP tickets
    std::string submitted_by;      // the username that asked
    std::string scope_expression;  // canonical JSON of the arguments (canonical_json.hpp)
    Surface surface = Surface::kMcp;
    ApprovalState state = ApprovalState::kPending;  // as stored; see effective_state()
    std::string reviewer;                           // "" until approved or rejected
    std::string comment;                            // the reviewer's comment, may be ""
    int64_t created_at_ms = 0;
    int64_t decided_at_ms = 0;   // 0 until approved or rejected
    int64_t consumed_at_ms = 0;  // 0 until consumed

    int64_t expires_at_ms() const { return created_at_ms + kApprovalLifetimeMs; }
    bool past_lifetime(int64_t now_ms) const { return now_ms >= expires_at_ms(); }
    // The state a reader should see at now_ms: a pending or approved ticket
    // past its lifetime reads as expired.
    ApprovalState effective_state(int64_t now_ms) const;
};

// What an MCP recall asks of a ticket.
struct RedeemRequest {
    std::string id;
    std::string definition_id;     // "mcp.<tool>"
    std::string scope_expression;  // canonical JSON of the recall's arguments
    std::string principal;         // the recalling username
};

// Why a ticket can or cannot be redeemed by a recall. kNotRedeemable
// deliberately covers rejected, consumed, expired-while-pending, minted by
// another surface, submitted by another principal and unknown ids alike, so
// that a caller learns nothing from which of them it was.
enum class RedeemVerdict {
    kRedeemable,           // approved, in lifetime, MCP-minted, caller's own, not consumed
    kMismatch,             // another tool or other arguments (checked first)
    kPending,              // still waiting for a reviewer (any caller may poll)
    kExpiredPastLifetime,  // the caller's own approved ticket, past its lifetime
    kNotRedeemable,        // everything else; see above
};

std::string_view redeem_verdict_name(RedeemVerdict verdict);

// The verdict for `ticket` (nullptr = no such id) at now_ms. Pure; the same
// function classifies a pre-consume lookup and a failed consume().
RedeemVerdict classify_redemption(const Approval* ticket, const RedeemRequest& request,
                                  int64_t now_ms);

}  // namespace yuzu::approval
