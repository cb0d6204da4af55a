#include "yuzu/approval/approval_manager.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <charconv>
#include <cstdint>

#include "approval_schema.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::approval {
namespace {

constexpr size_t kMaxDefinitionIdLength = 128;
constexpr size_t kMaxPrincipalLength = 256;
constexpr size_t kMaxScopeExpressionLength = 64 * 1024;
constexpr int kMintAttempts = 3;

// The columns read_row() reads, in its order.
constexpr std::string_view kColumns =
    "id, definition_id, submitted_by, scope_expression, surface, state, "
    "reviewer, comment, "
    "created_at_ms, decided_at_ms, consumed_at_ms";
constexpr int kSeqColumn = 11;  // when a query appends ", seq"

std::string select_rows(std::string_view tail) {
    std::string sql = "SELECT ";
    sql.append(kColumns).append(" FROM approvals ").append(tail);
    return sql;
}

Approval read_row(const store::Statement& s) {
    Approval a;
    a.id = s.column_text(0);
    a.definition_id = s.column_text(1);
    a.submitted_by = s.column_text(2);
    a.scope_expression = s.column_text(3);
    // The CHECK constraints admit only known names.
    a.surface = parse_surface(s.column_text(4)).value_or(Surface::kRest);
    a.state = parse_approval_state(s.column_text(5)).value_or(ApprovalState::kExpired);
    a.reviewer = s.column_text(6);
    a.comment = s.column_text(7);
    a.created_at_ms = s.column_int64(8);
    a.decided_at_ms = s.column_int64(9);
    a.consumed_at_ms = s.column_is_null(10) ? 0 : s.column_int64(10);
    return a;
}

Result<std::optional<Approval>> fetch_by_id(store::Conn& conn, std::string_view id) {
    auto stmt = conn.prepare(select_rows("WHERE id = ?1"));
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, id);
    auto has_row = stmt->step();
    if (!has_row.ok()) return has_row.status();
    std::optional<Approval> row;
    if (*has_row) row = read_row(*stmt);
    stmt->reset();  // no statement stays active across a later COMMIT
    return row;
}

Status not_found(std::string_view id) {
    return Status::NotFound("approval '" + std::string(id.substr(0, 64)) + "' not found");
}

bool has_control_chars(std::string_view text) {
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) return true;
    }
    return false;
}

Status validate_mint(const MintRequest& r) {
    if (r.definition_id.empty() || r.definition_id.size() > kMaxDefinitionIdLength ||
        has_control_chars(r.definition_id)) {
        return Status::InvalidArgument(
            "definition_id must be 1 to 128 characters without control characters");
    }
    if (r.submitted_by.empty() || r.submitted_by.size() > kMaxPrincipalLength) {
        return Status::InvalidArgument("submitted_by must be 1 to 256 characters");
    }
    if (r.scope_expression.size() > kMaxScopeExpressionLength) {
        return Status::PayloadTooLarge("the arguments of an approval request exceed 64 KiB");
    }
    return Status::Ok();
}

// 16 bytes from the kernel CSPRNG as 32 lowercase hex; no weaker fallback.
Result<std::string> random_approval_id() {
    unsigned char bytes[kApprovalIdLength / 2];
    size_t filled = 0;
    while (filled < sizeof(bytes)) {
        const ssize_t n = ::getrandom(bytes + filled, sizeof(bytes) - filled, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return Status::Unavailable("entropy source unavailable");
        }
        filled += static_cast<size_t>(n);
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string id;
    id.reserve(kApprovalIdLength);
    for (unsigned char b : bytes) {
        id.push_back(kHex[b >> 4]);
        id.push_back(kHex[b & 0x0f]);
    }
    return id;
}

// Pending tickets past their lifetime become expired. Caller holds a
// transaction on conn.
Status sweep_expired(store::Conn& conn, int64_t cutoff_ms) {
    auto stmt = conn.prepare(
        "UPDATE approvals SET state = 'expired' WHERE state "
        "= 'pending' AND created_at_ms <= ?1");
    if (!stmt.ok()) return stmt.status();
    return stmt->bind(1, cutoff_ms).run();
}

// The WHERE fragment for an effective state; ?2 is the lifetime cutoff.
std::string_view state_clause(ApprovalState state) {
    switch (state) {
        case ApprovalState::kPending:
            return "state = 'pending' AND created_at_ms > ?2";
        case ApprovalState::kApproved:
            return "state = 'approved' AND created_at_ms > ?2";
        case ApprovalState::kExpired:
            return "(state = 'expired' OR (state IN ('pending', 'approved') AND "
                   "created_at_ms <= ?2))";
        case ApprovalState::kRejected:
            return "state = 'rejected'";
        case ApprovalState::kConsumed:
            return "state = 'consumed'";
    }
    return "0";
}

Result<int64_t> parse_cursor(const std::string& cursor) {
    int64_t seq = 0;
    auto [ptr, ec] = std::from_chars(cursor.data(), cursor.data() + cursor.size(), seq);
    if (cursor.empty() || ec != std::errc() || ptr != cursor.data() + cursor.size() || seq <= 0) {
        return Status::InvalidArgument("invalid cursor; pass next_cursor back unchanged");
    }
    return seq;
}

}  // namespace

Result<std::unique_ptr<ApprovalManager>> ApprovalManager::open(const std::string& db_path,
                                                               const Clock& clock) {
    auto db = store::Database::open(db_path);
    if (!db.ok()) return db.status();
    YUZU_RETURN_IF_ERROR(
        store::apply_migrations(**db, kApprovalsDbFile, approval_migrations(), clock));
    return std::unique_ptr<ApprovalManager>(new ApprovalManager(std::move(db).value(), clock));
}

ApprovalManager::ApprovalManager(std::unique_ptr<store::Database> db, const Clock& clock)
    : db_(std::move(db)), clock_(clock) {}

ApprovalManager::~ApprovalManager() = default;

const std::string& ApprovalManager::db_path() const {
    return db_->path();
}

Result<MintResult> ApprovalManager::mint(const MintRequest& request) {
    YUZU_RETURN_IF_ERROR(validate_mint(request));
    const int64_t now = clock_.now_ms();
    const int64_t cutoff = now - kApprovalLifetimeMs;
    const std::string_view surface = surface_name(request.surface);

    auto conn = db_->lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    YUZU_RETURN_IF_ERROR(sweep_expired(conn, cutoff));
    {
        auto same = conn.prepare(
            select_rows("WHERE submitted_by = ?1 AND definition_id = ?2 AND state = 'pending' "
                        "AND scope_expression = ?3 AND surface = ?4 ORDER BY seq LIMIT 1"));
        if (!same.ok()) return same.status();
        same->bind(1, request.submitted_by).bind(2, request.definition_id);
        same->bind(3, request.scope_expression).bind(4, surface);
        auto row = same->step();
        if (!row.ok()) return row.status();
        if (*row) {
            MintResult existing{read_row(*same), false};
            same->reset();
            YUZU_RETURN_IF_ERROR(tx.commit());  // keeps the sweep
            return existing;
        }
    }
    {
        auto count = conn.prepare("SELECT COUNT(*) FROM approvals WHERE state = 'pending'");
        if (!count.ok()) return count.status();
        auto row = count->step();
        if (!row.ok()) return row.status();
        assert(*row);
        if (static_cast<size_t>(count->column_int64(0)) >= kMaxPendingApprovals) {
            return Status::ResourceExhausted("the approval queue is full (" +
                                             std::to_string(kMaxPendingApprovals) +
                                             " pending); ask an approver to work through it");
        }
        count->reset();
    }
    auto insert = conn.prepare(
        "INSERT INTO approvals(id, definition_id, submitted_by, "
        "scope_expression, surface, "
        "state, created_at_ms) VALUES(?1, ?2, ?3, ?4, ?5, 'pending', ?6)");
    if (!insert.ok()) return insert.status();
    for (int attempt = 0; attempt < kMintAttempts; ++attempt) {
        auto id = random_approval_id();
        if (!id.ok()) return id.status();
        insert->bind(1, *id).bind(2, request.definition_id).bind(3, request.submitted_by);
        insert->bind(4, request.scope_expression).bind(5, surface).bind(6, now);
        Status inserted = insert->run();
        if (inserted.code() == StatusCode::kAlreadyExists) continue;
        YUZU_RETURN_IF_ERROR(inserted);
        YUZU_RETURN_IF_ERROR(tx.commit());
        MintResult created;
        created.created = true;
        created.approval.id = std::move(id).value();
        created.approval.definition_id = request.definition_id;
        created.approval.submitted_by = request.submitted_by;
        created.approval.scope_expression = request.scope_expression;
        created.approval.surface = request.surface;
        created.approval.state = ApprovalState::kPending;
        created.approval.created_at_ms = now;
        return created;
    }
    return Status::Internal("could not allocate a unique approval id; try again");
}

Result<Approval> ApprovalManager::approve(std::string_view id, std::string_view reviewer,
                                          std::string_view comment) {
    return decide(id, reviewer, comment, ApprovalState::kApproved);
}

Result<Approval> ApprovalManager::reject(std::string_view id, std::string_view reviewer,
                                         std::string_view comment) {
    return decide(id, reviewer, comment, ApprovalState::kRejected);
}

Result<Approval> ApprovalManager::decide(std::string_view id, std::string_view reviewer,
                                         std::string_view comment, ApprovalState decision) {
    assert(decision == ApprovalState::kApproved || decision == ApprovalState::kRejected);
    if (reviewer.empty()) return Status::InvalidArgument("a review needs a reviewer");
    if (comment.size() > kMaxCommentLength) {
        return Status::InvalidArgument("the review comment is longer than " +
                                       std::to_string(kMaxCommentLength) + " bytes");
    }
    if (!is_approval_id(id)) return not_found(id);
    const int64_t now = clock_.now_ms();
    const int64_t cutoff = now - kApprovalLifetimeMs;

    auto conn = db_->lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    auto row = fetch_by_id(conn, id);
    if (!row.ok()) return row.status();
    if (!row->has_value()) return not_found(id);
    Approval ticket = std::move(**row);
    if (ticket.submitted_by == reviewer) {
        return Status::PermissionDenied("the reviewer must not be the submitter: '" +
                                        std::string(reviewer) +
                                        "' asked for this approval and cannot decide it");
    }
    const ApprovalState current = ticket.effective_state(now);
    if (current != ApprovalState::kPending) {
        return Status::FailedPrecondition("approval " + ticket.id + " is " +
                                          std::string(approval_state_name(current)) +
                                          ", not pending; only a pending approval can be decided");
    }
    auto update = conn.prepare(
        "UPDATE approvals SET state = ?1, reviewer = ?2, comment = ?3, "
        "decided_at_ms = ?4 "
        "WHERE id = ?5 AND state = 'pending' AND created_at_ms > ?6");
    if (!update.ok()) return update.status();
    update->bind(1, approval_state_name(decision)).bind(2, reviewer).bind(3, comment);
    update->bind(4, now).bind(5, id).bind(6, cutoff);
    YUZU_RETURN_IF_ERROR(update->run());
    // The row was read pending inside this transaction, so the update matched.
    assert(conn.changes() == 1);
    YUZU_RETURN_IF_ERROR(tx.commit());
    ticket.state = decision;
    ticket.reviewer = std::string(reviewer);
    ticket.comment = std::string(comment);
    ticket.decided_at_ms = now;
    return ticket;
}

Result<ConsumeOutcome> ApprovalManager::consume(const RedeemRequest& request) {
    ConsumeOutcome outcome;
    const int64_t now = clock_.now_ms();
    if (!is_approval_id(request.id)) {
        outcome.verdict = classify_redemption(nullptr, request, now);
        return outcome;
    }
    const int64_t cutoff = now - kApprovalLifetimeMs;

    auto conn = db_->lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    auto update = conn.prepare(
        "UPDATE approvals SET state = 'consumed', consumed_at_ms = ?1 "
        "WHERE id = ?2 AND state = 'approved' AND definition_id = ?3 AND "
        "scope_expression = ?4 "
        "AND surface = 'mcp' AND submitted_by = ?5 AND consumed_at_ms IS NULL "
        "AND created_at_ms > ?6");
    if (!update.ok()) return update.status();
    update->bind(1, now).bind(2, request.id).bind(3, request.definition_id);
    update->bind(4, request.scope_expression).bind(5, request.principal).bind(6, cutoff);
    YUZU_RETURN_IF_ERROR(update->run());
    outcome.consumed = conn.changes() == 1;

    auto row = fetch_by_id(conn, request.id);
    if (!row.ok()) return row.status();
    if (outcome.consumed) {
        YUZU_RETURN_IF_ERROR(tx.commit());
        outcome.verdict = RedeemVerdict::kRedeemable;
        outcome.approval = std::move(*row);
        return outcome;
    }
    // Nothing was written; the transaction rolls back when it goes out of
    // scope. The row as read here is what the UPDATE refused.
    outcome.approval = std::move(*row);
    outcome.verdict =
        classify_redemption(outcome.approval ? &*outcome.approval : nullptr, request, now);
    assert(outcome.verdict != RedeemVerdict::kRedeemable);
    return outcome;
}

Result<ConsumeOutcome> ApprovalManager::inspect(const RedeemRequest& request) const {
    ConsumeOutcome outcome;
    if (is_approval_id(request.id)) {
        auto conn = db_->lock();
        auto row = fetch_by_id(conn, request.id);
        if (!row.ok()) return row.status();
        outcome.approval = std::move(*row);
    }
    outcome.verdict = classify_redemption(outcome.approval ? &*outcome.approval : nullptr, request,
                                          clock_.now_ms());
    return outcome;
}

Result<Approval> ApprovalManager::get(std::string_view id) const {
    if (!is_approval_id(id)) return not_found(id);
    auto conn = db_->lock();
    auto row = fetch_by_id(conn, id);
    if (!row.ok()) return row.status();
    if (!row->has_value()) return not_found(id);
    return std::move(**row);
}

Result<ApprovalPage> ApprovalManager::list(const ApprovalFilter& filter) const {
    int64_t after_seq = INT64_MAX;
    if (!filter.cursor.empty()) {
        auto seq = parse_cursor(filter.cursor);
        if (!seq.ok()) return seq.status();
        after_seq = *seq;
    }
    const int limit = std::clamp(filter.limit, 1, kMaxListLimit);
    std::string where = "WHERE seq < ?1";
    if (filter.state) where += " AND " + std::string(state_clause(*filter.state));
    if (!filter.submitted_by.empty()) where += " AND submitted_by = ?3";
    // One row more than the page, so a cursor is only handed out when a
    // further row exists.
    const std::string sql = "SELECT " + std::string(kColumns) + ", seq FROM approvals " + where +
                            " ORDER BY seq DESC LIMIT ?4";

    auto conn = db_->lock();
    auto stmt = conn.prepare(sql);
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, after_seq).bind(4, limit + 1);
    if (filter.state) stmt->bind(2, clock_.now_ms() - kApprovalLifetimeMs);
    if (!filter.submitted_by.empty()) stmt->bind(3, filter.submitted_by);

    ApprovalPage page;
    std::vector<int64_t> seqs;
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        seqs.push_back(stmt->column_int64(kSeqColumn));
        page.approvals.push_back(read_row(*stmt));
    }
    if (page.approvals.size() > static_cast<size_t>(limit)) {
        page.approvals.pop_back();
        page.next_cursor = std::to_string(seqs[static_cast<size_t>(limit) - 1]);
    }
    return page;
}

Result<int64_t> ApprovalManager::pending_count() const {
    auto conn = db_->lock();
    auto stmt = conn.prepare(
        "SELECT COUNT(*) FROM approvals WHERE state = "
        "'pending' AND created_at_ms > ?1");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, clock_.now_ms() - kApprovalLifetimeMs);
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    assert(*row);
    return stmt->column_int64(0);
}

Status ApprovalManager::ready() const {
    auto conn = db_->lock();
    auto stmt = conn.prepare("SELECT EXISTS(SELECT 1 FROM approvals)");
    if (!stmt.ok())
        return Status(stmt.status().code(), "approvals.db not ready: " + stmt.status().message());
    auto row = stmt->step();
    if (!row.ok()) {
        return Status(row.status().code(), "approvals.db not ready: " + row.status().message());
    }
    return Status::Ok();
}

}  // namespace yuzu::approval
