#include "yuzu/audit/sqlite_audit_log.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <exception>
#include <filesystem>
#include <type_traits>
#include <utility>
#include <vector>

#include "yuzu/audit/audit_filter.hpp"
#include "yuzu/audit/audit_schema.hpp"
#include "yuzu/audit/field_limits.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"
#include "yuzu/store/statement.hpp"

namespace yuzu::audit {
namespace {

constexpr std::string_view kStoreName = "audit.db";

constexpr std::string_view kColumns =
    "id, timestamp_ms, principal, principal_kind, action, target_type, target_id, detail, "
    "source_ip, user_agent, result, correlation_id";

constexpr int kColumnsPerRow = 11;  // the inserted columns: all but id

// "INSERT ... VALUES (?, ...), ..." for `rows` rows, rows a power of two
// no greater than SqliteAuditLog::kMaxRowsPerInsert.
const std::string& insert_sql(size_t rows) {
    static const auto texts = [] {
        std::vector<std::string> out;
        for (size_t n = 1; n <= SqliteAuditLog::kMaxRowsPerInsert; n *= 2) {
            std::string sql =
                "INSERT INTO audit_events(timestamp_ms, principal, principal_kind, action, "
                "target_type, target_id, detail, source_ip, user_agent, result, correlation_id) "
                "VALUES ";
            for (size_t i = 0; i < n; ++i) {
                sql += i == 0 ? "(" : ", (";
                for (int c = 0; c < kColumnsPerRow; ++c) sql += c == 0 ? "?" : ", ?";
                sql += ")";
            }
            out.push_back(std::move(sql));
        }
        return out;
    }();
    const size_t slot = static_cast<size_t>(std::countr_zero(rows));
    assert(std::has_single_bit(rows) && slot < texts.size());
    return texts[slot];
}

Status with_context(const Status& status, std::string_view what) {
    return Status(status.code(), "audit: " + std::string(what) + ": " + status.message());
}

// The smallest string greater than every string that starts with `prefix`
// (byte-wise, as SQLite's BINARY collation compares), or "" when there is
// none (the prefix is all 0xFF bytes). Turns a prefix match into an index
// range: prefix <= action < upper.
std::string prefix_upper_bound(std::string prefix) {
    while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xFF) {
        prefix.pop_back();
    }
    if (!prefix.empty()) prefix.back() = static_cast<char>(prefix.back() + 1);
    return prefix;
}

// SQL twin of AuditFilter::matches(): the same fields, the same meaning.
struct WhereClause {
    std::string sql;
    std::string action_upper;  // bound only when the prefix has an upper bound
};

WhereClause where_clause(const AuditFilter& f) {
    WhereClause w;
    std::string& sql = w.sql;
    sql = " WHERE 1";
    if (!f.principal.empty()) sql += " AND principal = :principal";
    if (!f.action_is_prefix && !f.action.empty()) sql += " AND action = :action";
    if (f.action_is_prefix && !f.action.empty()) {
        sql += " AND action >= :action";
        w.action_upper = prefix_upper_bound(f.action);
        if (!w.action_upper.empty()) sql += " AND action < :action_upper";
    }
    if (!f.target_type.empty()) sql += " AND target_type = :target_type";
    if (!f.target_id.empty()) sql += " AND target_id = :target_id";
    if (f.result) sql += " AND result = :result";
    if (f.since_ms != 0) sql += " AND timestamp_ms >= :since";
    if (f.until_ms != 0) sql += " AND timestamp_ms < :until";
    if (f.after) sql += " AND (timestamp_ms, id) < (:after_ts, :after_id)";
    return w;
}

void bind_filter(store::Statement& stmt, const AuditFilter& f, const WhereClause& w) {
    if (!f.principal.empty()) stmt.bind(":principal", f.principal);
    if (!f.action.empty()) stmt.bind(":action", f.action);
    if (!w.action_upper.empty()) stmt.bind(":action_upper", w.action_upper);
    if (!f.target_type.empty()) stmt.bind(":target_type", f.target_type);
    if (!f.target_id.empty()) stmt.bind(":target_id", f.target_id);
    if (f.result) stmt.bind(":result", audit_result_name(*f.result));
    if (f.since_ms != 0) stmt.bind(":since", f.since_ms);
    if (f.until_ms != 0) stmt.bind(":until", f.until_ms);
    if (f.after) stmt.bind(":after_ts", f.after->timestamp_ms).bind(":after_id", f.after->id);
}

// Reads a row selected with kColumns.
Result<AuditEvent> read_event(const store::Statement& stmt) {
    AuditEvent e;
    e.id = stmt.column_int64(0);
    e.timestamp_ms = stmt.column_int64(1);
    e.principal = stmt.column_text(2);
    e.principal_kind = stmt.column_text(3);
    e.action = stmt.column_text(4);
    e.target_type = stmt.column_text(5);
    e.target_id = stmt.column_text(6);
    e.detail = stmt.column_text(7);
    e.source_ip = stmt.column_text(8);
    e.user_agent = stmt.column_text(9);
    const std::string result = stmt.column_text(10);
    const auto parsed = parse_audit_result(result);
    if (!parsed) {
        return Status::Internal("audit: row " + std::to_string(e.id) + " has unknown result '" +
                                result + "'; is audit.db from a newer server?");
    }
    e.result = *parsed;
    e.correlation_id = stmt.column_text(11);
    return e;
}

// Migration 2 copies every row of a version-1 file once, which takes a
// while on a long log: say so before it starts. Only a message; a failure
// to read is left to the migration itself to report.
void announce_rebuild(store::Database& db) {
    const auto has_row = [](Result<store::Statement>& stmt) {
        if (!stmt.ok()) return false;
        auto row = stmt->step();
        return row.ok() && *row;
    };
    auto conn = db.lock();
    auto version = conn.prepare("PRAGMA user_version");
    if (!has_row(version) || version->column_int64(0) != 1) return;
    auto rows = conn.prepare("SELECT COUNT(*) FROM audit_events");
    if (!has_row(rows)) return;
    spdlog::info("audit: rebuilding audit_events for schema version 2 ({} rows) in {}",
                 rows->column_int64(0), db.path());
}

}  // namespace

Result<std::unique_ptr<SqliteAuditLog>> SqliteAuditLog::open(const std::string& data_dir,
                                                             const Clock& clock) {
    const std::string path = (std::filesystem::path(data_dir) / kStoreName).string();
    auto db = store::Database::open(path, store::OpenOptions{.sync_every_commit = true});
    if (!db.ok()) return db.status();
    announce_rebuild(**db);
    YUZU_RETURN_IF_ERROR(store::apply_migrations(**db, kStoreName, audit_migrations(), clock));
    return std::unique_ptr<SqliteAuditLog>(new SqliteAuditLog(std::move(db).value(), clock));
}

SqliteAuditLog::SqliteAuditLog(std::unique_ptr<store::Database> db, const Clock& clock)
    : db_(std::move(db)), clock_(clock) {
    open_.reserve(kMaxBatchRows);  // so joining a batch never allocates
}

SqliteAuditLog::~SqliteAuditLog() = default;

const std::string& SqliteAuditLog::path() const {
    return db_->path();
}

Status SqliteAuditLog::insert_rows(store::Conn& conn, PendingRow* const* rows, size_t n) {
    // One statement for several rows: SQLite then opens the table's and the
    // indexes' cursors and reads and writes the AUTOINCREMENT counter once
    // per statement rather than once per row. The row counts are powers of
    // two so that a few cached SQL texts cover every batch size.
    while (n > 0) {
        size_t chunk = kMaxRowsPerInsert;
        while (chunk > n) chunk /= 2;
        auto stmt = conn.prepare(insert_sql(chunk));
        if (!stmt.ok()) return stmt.status();
        int index = 1;
        for (size_t i = 0; i < chunk; ++i) {
            // The events outlive the statement, so their text is not copied.
            const AuditEvent& e = *rows[i]->event;
            stmt->bind(index, e.timestamp_ms)
                .bind_borrowed(index + 1, e.principal)
                .bind_borrowed(index + 2, e.principal_kind)
                .bind_borrowed(index + 3, e.action)
                .bind_borrowed(index + 4, e.target_type)
                .bind_borrowed(index + 5, e.target_id)
                .bind_borrowed(index + 6, e.detail)
                .bind_borrowed(index + 7, e.source_ip)
                .bind_borrowed(index + 8, e.user_agent)
                .bind_borrowed(index + 9, audit_result_name(e.result))
                .bind_borrowed(index + 10, e.correlation_id);
            index += kColumnsPerRow;
        }
        YUZU_RETURN_IF_ERROR(stmt->run());
        rows += chunk;
        n -= chunk;
    }
    return Status::Ok();
}

void SqliteAuditLog::commit_batch(PendingRow* const* rows, size_t n) noexcept {
    const auto what = [this](const AuditEvent& e) {
        return "cannot record '" + e.action + "' in " + db_->path();
    };
    try {
        auto conn = db_->lock();
        // Each row on its own: an INSERT in autocommit mode is its own
        // transaction, committed (and fsynced) when run() returns Ok.
        const auto one_by_one = [&] {
            for (size_t i = 0; i < n; ++i) {
                const Status s = insert_rows(conn, rows + i, 1);
                rows[i]->status = s.ok() ? s : with_context(s, what(*rows[i]->event));
                rows[i]->settled = true;
            }
        };
        if (n == 1) {
            one_by_one();
            return;
        }
        Status batch = Status::Ok();
        {
            auto tx = conn.transaction();
            batch = tx.status();
            if (batch.ok()) batch = insert_rows(conn, rows, n);
            if (batch.ok()) batch = tx.commit();
        }  // a failed batch is rolled back here
        if (batch.ok()) {
            for (size_t i = 0; i < n; ++i) {
                rows[i]->status = Status::Ok();
                rows[i]->settled = true;
            }
            return;
        }
        spdlog::warn("audit: a group commit of {} rows in {} failed ({}); writing them one by one",
                     n, db_->path(), batch.to_string());
        one_by_one();
    } catch (...) {
        // Out of memory. A row already committed keeps its Ok (its caller
        // must not retry it); the rest fail with a message short enough
        // not to allocate, so this handler cannot throw again.
        for (size_t i = 0; i < n; ++i) {
            if (!rows[i]->settled) rows[i]->status = Status(StatusCode::kInternal, "out of memory");
        }
    }
}

Status SqliteAuditLog::record(AuditEvent event) {
    try {
        apply_field_limits(event);
        if (event.timestamp_ms <= 0) event.timestamp_ms = clock_.now_ms();
    } catch (const std::exception& e) {  // allocation failure; keep the no-throw promise
        return Status::Internal(std::string("audit: cannot record event: ") + e.what());
    }

    PendingRow self;
    self.event = &event;
    std::unique_lock<std::mutex> lock(queue_mu_);
    room_.wait(lock, [&] { return open_.size() < kMaxBatchRows; });
    open_.push_back(&self);  // within the reserved capacity: cannot throw
    const uint64_t my_batch = open_batch_;
    std::condition_variable& committed = committed_[my_batch % 2];
    // Wait until a leader has committed this row, or no commit is running
    // and this row's batch is still open, so this caller leads it. A caller
    // that just arrived does not take the lead handed to a woken waiter:
    // that waiter would only go back to sleep.
    for (bool waited = false;; waited = true) {
        if (self.done) return std::move(self.status);
        if (!committing_ && my_batch == open_batch_ && (waited || !handing_over_)) break;
        committed.wait(lock);
    }
    handing_over_ = false;

    // Leader: take the open batch; rows that arrive while it commits open
    // the next one.
    committing_ = true;
    std::array<PendingRow*, kMaxBatchRows> batch;
    const size_t n = open_.size();
    std::copy(open_.begin(), open_.end(), batch.begin());
    open_.clear();
    ++open_batch_;
    lock.unlock();
    if (n == kMaxBatchRows) room_.notify_all();
    commit_batch(batch.data(), n);
    lock.lock();
    ++stats_.commits;
    stats_.rows += n;
    for (size_t i = 0; i < n; ++i) batch[i]->done = true;
    committing_ = false;
    // Moved, not copied: a copy could throw with the batch still asleep.
    static_assert(std::is_nothrow_move_constructible_v<Status>);
    Status status = std::move(self.status);
    const bool next_waiting = !open_.empty();
    handing_over_ = next_waiting;
    std::condition_variable& next = committed_[open_batch_ % 2];
    // From here on a woken caller may return and take its row with it; only
    // the log's own members are touched.
    lock.unlock();
    committed.notify_all();
    if (next_waiting) next.notify_one();  // its leader
    return status;
}

SqliteAuditLog::GroupCommitStats SqliteAuditLog::group_commit_stats() const {
    std::lock_guard<std::mutex> lock(queue_mu_);
    GroupCommitStats now = stats_;
    now.rows_waiting = open_.size();
    now.committing = committing_;
    return now;
}

Result<AuditPage> SqliteAuditLog::query(const AuditQuery& q) const {
    auto filter = AuditFilter::compile(q);
    if (!filter.ok()) return filter.status();
    const WhereClause where = where_clause(*filter);
    const std::string sql = "SELECT " + std::string(kColumns) + " FROM audit_events" + where.sql +
                            " ORDER BY timestamp_ms DESC, id DESC LIMIT :limit";

    std::vector<AuditEvent> rows;
    {
        auto conn = db_->lock();
        auto stmt = conn.prepare(sql);
        if (!stmt.ok()) return with_context(stmt.status(), "query failed");
        bind_filter(*stmt, *filter, where);
        stmt->bind(":limit", filter->limit + 1);  // one extra row tells whether a page follows
        for (;;) {
            auto has_row = stmt->step();
            if (!has_row.ok()) return with_context(has_row.status(), "query failed");
            if (!*has_row) break;
            auto event = read_event(*stmt);
            if (!event.ok()) return event.status();
            rows.push_back(std::move(event).value());
        }
    }
    return filter->make_page(std::move(rows));
}

Status SqliteAuditLog::ready() const {
    auto conn = db_->lock();
    auto stmt = conn.prepare("SELECT EXISTS(SELECT 1 FROM audit_events)");
    if (!stmt.ok()) return with_context(stmt.status(), "not ready");
    auto row = stmt->step();
    if (!row.ok()) return with_context(row.status(), "not ready");
    return Status::Ok();
}

size_t SqliteAuditLog::prune_older_than(int64_t cutoff_ms) {
    auto conn = db_->lock();
    const auto prune = [&]() -> Result<size_t> {
        auto tx = conn.transaction();
        if (!tx.ok()) return tx.status();
        // The gate is open only inside this transaction; the DELETE trigger
        // refuses every other delete (audit_schema.hpp).
        YUZU_RETURN_IF_ERROR(conn.exec("UPDATE audit_prune_gate SET open = 1 WHERE id = 1"));
        auto stmt = conn.prepare("DELETE FROM audit_events WHERE timestamp_ms < ?");
        if (!stmt.ok()) return stmt.status();
        YUZU_RETURN_IF_ERROR(stmt->bind(1, cutoff_ms).run());
        const auto deleted = static_cast<size_t>(conn.changes());
        YUZU_RETURN_IF_ERROR(conn.exec("UPDATE audit_prune_gate SET open = 0 WHERE id = 1"));
        YUZU_RETURN_IF_ERROR(tx.commit());
        return deleted;
    };
    auto deleted = prune();
    if (!deleted.ok()) {
        spdlog::warn(
            "audit: retention prune of rows older than {} ms in {} failed; nothing was "
            "deleted: {}",
            cutoff_ms, db_->path(), deleted.status().to_string());
        return 0;
    }
    if (*deleted > 0) {
        spdlog::info("audit: retention pruned {} row(s) older than {} ms", *deleted, cutoff_ms);
    }
    return *deleted;
}

}  // namespace yuzu::audit
