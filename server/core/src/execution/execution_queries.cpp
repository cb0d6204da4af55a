// ExecutionTracker: reads (status, per-agent states, lists).
#include <algorithm>
#include <charconv>
#include <limits>

#include "execution/execution_rows.hpp"
#include "yuzu/execution/execution_tracker.hpp"

namespace yuzu::execution {
namespace {

Status execution_not_found(const std::string& id) {
    return Status::NotFound("execution '" + id + "' not found");
}

// A cursor is the `seq` of the last execution of the previous page.
Result<int64_t> parse_cursor(const std::string& cursor) {
    if (cursor.empty()) return int64_t{0};
    int64_t seq = 0;
    const auto [end, ec] = std::from_chars(cursor.data(), cursor.data() + cursor.size(), seq);
    if (ec != std::errc() || end != cursor.data() + cursor.size() || seq <= 0) {
        return Status::InvalidArgument("cursor is malformed; pass next_cursor as returned");
    }
    return seq;
}

}  // namespace

bool is_execution_status(const std::string& status) {
    return status == "running" || is_terminal_status(status);
}

bool is_terminal_status(const std::string& status) {
    return status == "succeeded" || status == "completed_with_errors" || status == "failed" ||
           status == "cancelled";
}

Result<ExecutionRecord> ExecutionTracker::get(const std::string& execution_id) const {
    auto conn = db_.lock();
    auto record = load_execution(conn, execution_id);
    if (!record.ok()) return record.status();
    if (!record->has_value()) return execution_not_found(execution_id);
    return std::move(**record);
}

Result<std::vector<AgentExecutionState>> ExecutionTracker::agent_states(
    const std::string& execution_id, const AgentRange& range) const {
    auto conn = db_.lock();
    {
        auto exists = conn.prepare("SELECT 1 FROM executions WHERE execution_id = ?1");
        if (!exists.ok()) return exists.status();
        auto row = exists->bind(1, execution_id).step();
        if (!row.ok()) return row.status();
        if (!*row) return execution_not_found(execution_id);
    }
    // Served in order by the execution_agents_in_order index.
    auto stmt = conn.prepare(
        "SELECT agent_id, command_id, state, error, updated_at_ms, ordinal FROM execution_agents "
        "WHERE execution_id = ?1 AND ordinal > ?2 ORDER BY ordinal LIMIT ?3");
    if (!stmt.ok()) return stmt.status();
    const auto limit = static_cast<int64_t>(
        std::min<size_t>(range.limit, static_cast<size_t>(std::numeric_limits<int64_t>::max())));
    stmt->bind(1, execution_id).bind(2, range.after).bind(3, limit);
    std::vector<AgentExecutionState> out;
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        AgentExecutionState s;
        s.agent_id = stmt->column_text(0);
        s.agent_command_id = stmt->column_text(1);
        s.state = stmt->column_text(2);
        s.error = stmt->column_text(3);
        s.updated_at_ms = stmt->column_int64(4);
        s.ordinal = static_cast<int>(stmt->column_int64(5));
        out.push_back(std::move(s));
    }
    return out;
}

Result<int64_t> ExecutionTracker::running_count() const {
    auto conn = db_.lock();
    // Served by the executions_running index.
    auto stmt = conn.prepare("SELECT COUNT(*) FROM executions WHERE status = 'running'");
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    return *row ? stmt->column_int64(0) : int64_t{0};
}

Result<ExecutionPage> ExecutionTracker::list(const ExecutionFilter& filter) const {
    if (!filter.status.empty() && !is_execution_status(filter.status)) {
        return Status::InvalidArgument(
            "status must be one of running, succeeded, completed_with_errors, failed, cancelled");
    }
    auto before = parse_cursor(filter.cursor);
    if (!before.ok()) return before.status();
    const int limit = std::clamp(filter.limit, 1, kMaxListLimit);

    ExecutionPage page;
    std::vector<int64_t> seqs;
    auto conn = db_.lock();
    {
        auto stmt = conn.prepare(std::string("SELECT ") + kExecutionColumns +
                                 ", seq FROM executions WHERE (?1 = '' OR definition_id = ?1) AND "
                                 "(?2 = '' OR status = ?2) AND (?3 = '' OR dispatched_by = ?3) AND "
                                 "(?4 = 0 OR seq < ?4) ORDER BY seq DESC LIMIT ?5");
        if (!stmt.ok()) return stmt.status();
        stmt->bind(1, filter.definition_id).bind(2, filter.status).bind(3, filter.dispatched_by);
        stmt->bind(4, *before).bind(5, limit + 1);
        for (;;) {
            auto row = stmt->step();
            if (!row.ok()) return row.status();
            if (!*row) break;
            page.executions.push_back(read_execution(*stmt));
            seqs.push_back(stmt->column_int64(13));
        }
    }
    if (page.executions.size() > static_cast<size_t>(limit)) {
        page.executions.pop_back();
        page.next_cursor = std::to_string(seqs[static_cast<size_t>(limit) - 1]);
    }
    for (auto& record : page.executions) {
        auto tally = tally_states(conn, record.execution_id);
        if (!tally.ok()) return tally.status();
        record.counts = to_counts(*tally);
    }
    return page;
}

}  // namespace yuzu::execution
