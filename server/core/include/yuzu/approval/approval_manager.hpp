// ApprovalManager: approval tickets in approvals.db — mint (deduplicated),
// approve / reject (pending only, reviewer ≠ submitter), consume (one-time,
// atomic), get, list and count. The MCP approval gate, the REST approval
// routes and the dashboard's Approvals page all go through it.
//
// The manager records no audit rows: its callers know the request and write
// them (mcp.<tool>, approval.approve, approval.reject).
//
// Thread-safety: safe to call from any thread. Every write runs in one
// BEGIN IMMEDIATE transaction on the store's Database, so two concurrent
// consume() calls of one ticket cannot both succeed, and two concurrent
// mint() calls of the same request return the same ticket.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/approval/approval.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::approval {

inline constexpr char kApprovalsDbFile[] = "approvals.db";
inline constexpr int kDefaultListLimit = 50;
inline constexpr int kMaxListLimit = 500;

struct MintRequest {
    std::string definition_id;     // "mcp.<tool>"; 1..128 bytes
    std::string submitted_by;      // non-empty
    std::string scope_expression;  // canonical JSON of the arguments; ≤ 64 KiB
    Surface surface = Surface::kMcp;
};

struct MintResult {
    Approval approval;
    bool created = false;  // false: an identical pending ticket was returned
};

struct ConsumeOutcome {
    bool consumed = false;
    // kRedeemable when consumed; otherwise why not (classify_redemption()
    // of the row as it stood inside the failed consume's transaction).
    RedeemVerdict verdict = RedeemVerdict::kNotRedeemable;
    std::optional<Approval> approval;  // the row after the attempt, if the id exists
};

struct ApprovalFilter {
    // Effective state (Approval::effective_state): "expired" also finds
    // pending and approved tickets past their lifetime. nullopt = any.
    std::optional<ApprovalState> state;
    std::string submitted_by;       // "" = anyone
    int limit = kDefaultListLimit;  // clamped to 1..kMaxListLimit
    std::string cursor;             // "" = first page; else a next_cursor from a previous page
};

struct ApprovalPage {
    std::vector<Approval> approvals;  // newest first
    std::string next_cursor;          // "" when this is the last page
};

class ApprovalManager {
  public:
    // Opens (creating) the SQLite file at db_path — ":memory:" for tests —
    // and applies approvals.db's migrations. clock must outlive the manager.
    static Result<std::unique_ptr<ApprovalManager>> open(const std::string& db_path,
                                                         const Clock& clock);
    ~ApprovalManager();
    ApprovalManager(const ApprovalManager&) = delete;
    ApprovalManager& operator=(const ApprovalManager&) = delete;

    // A pending ticket for the request, or the caller's identical pending
    // ticket (same definition_id, scope_expression, submitter and surface,
    // still pending and in lifetime) if there is one. Pending tickets past
    // their lifetime are swept to expired first. InvalidArgument for an
    // empty or over-long field; ResourceExhausted when kMaxPendingApprovals
    // tickets are pending; Unavailable if no entropy or the store is busy.
    Result<MintResult> mint(const MintRequest& request);

    // Decide a pending, in-lifetime ticket. NotFound for an unknown id;
    // PermissionDenied when reviewer is the submitter; FailedPrecondition
    // when the ticket is no longer pending (or has expired); InvalidArgument
    // for an empty reviewer or a comment over kMaxCommentLength bytes.
    Result<Approval> approve(std::string_view id, std::string_view reviewer,
                             std::string_view comment);
    Result<Approval> reject(std::string_view id, std::string_view reviewer,
                            std::string_view comment);

    // Consumes the ticket iff it is approved, for exactly this definition_id
    // and scope_expression, MCP-minted, submitted by request.principal, not
    // yet consumed and within its lifetime — one conditional UPDATE in one
    // transaction. A ticket that fails any of these is untouched and the
    // outcome says why; a non-ok Result is only a store failure.
    Result<ConsumeOutcome> consume(const RedeemRequest& request);

    // The verdict consume() would reach now, changing nothing: a recall's
    // pre-consume lookup. `consumed` is always false; `approval` is set when
    // the id exists. A non-ok Result is only a store failure.
    Result<ConsumeOutcome> inspect(const RedeemRequest& request) const;

    // NotFound for an unknown (or malformed) id.
    Result<Approval> get(std::string_view id) const;
    // InvalidArgument for a malformed cursor.
    Result<ApprovalPage> list(const ApprovalFilter& filter) const;
    // Tickets pending and within their lifetime.
    Result<int64_t> pending_count() const;

    // For /readyz: approvals.db answers a query.
    Status ready() const;
    const std::string& db_path() const;

  private:
    ApprovalManager(std::unique_ptr<store::Database> db, const Clock& clock);
    Result<Approval> decide(std::string_view id, std::string_view reviewer,
                            std::string_view comment, ApprovalState decision);

    std::unique_ptr<store::Database> db_;
    const Clock& clock_;
};

}  // namespace yuzu::approval
