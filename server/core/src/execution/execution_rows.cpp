#include "execution/execution_rows.hpp"

#include <cassert>

namespace yuzu::execution {

bool StateTally::add(const std::string& state, int count) {
    int* slot = nullptr;
    if (state == "dispatched") slot = &dispatched;
    if (state == "responded") slot = &responded;
    if (state == "failed") slot = &failed;
    if (state == "refused") slot = &refused;
    if (state == "timed_out") slot = &timed_out;
    if (state == "offline") slot = &offline;
    if (state == "dispatch_failed") slot = &dispatch_failed;
    if (slot == nullptr) return false;
    *slot += count;
    return true;
}

ExecutionCounts to_counts(const StateTally& tally) {
    ExecutionCounts c;
    c.targeted = tally.total();
    c.responded = tally.responded + tally.failed + tally.refused;
    c.success = tally.responded;
    c.outstanding = tally.dispatched;
    c.failure = c.targeted - c.success - c.outstanding;
    c.progress_pct = c.targeted == 0 ? 100 : (c.targeted - c.outstanding) * 100 / c.targeted;
    return c;
}

std::string settled_status(const StateTally& tally) {
    const int reached = tally.responded + tally.failed + tally.refused + tally.timed_out;
    if (reached == 0) return "cancelled";
    if (tally.responded == tally.total()) return "succeeded";
    if (tally.responded == 0) return "failed";
    return "completed_with_errors";
}

Result<StateTally> tally_states(store::Conn& conn, const std::string& execution_id) {
    auto stmt = conn.prepare(
        "SELECT state, agents FROM execution_tallies WHERE execution_id = ?1 AND agents > 0");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, execution_id);
    StateTally tally;
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        [[maybe_unused]] const bool known =
            tally.add(stmt->column_text(0), static_cast<int>(stmt->column_int64(1)));
        assert(known && "the table's CHECK admits only known states");
    }
    return tally;
}

Result<std::optional<std::string>> complete_if_settled(store::Conn& conn,
                                                       const std::string& execution_id,
                                                       int64_t now_ms, StateTally* out) {
    auto tally = tally_states(conn, execution_id);
    if (!tally.ok()) return tally.status();
    if (out != nullptr) *out = *tally;
    if (tally->dispatched > 0) return std::optional<std::string>();
    const std::string status = settled_status(*tally);
    auto stmt = conn.prepare(
        "UPDATE executions SET status = ?2, completed_at_ms = ?3 WHERE execution_id = ?1 AND "
        "status = 'running'");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(stmt->bind(1, execution_id).bind(2, status).bind(3, now_ms).run());
    if (conn.changes() == 0) return std::optional<std::string>();
    return std::optional<std::string>(status);
}

const char* const kExecutionColumns =
    "execution_id, command_id, definition_id, plugin, action, params, scope_expression, "
    "dispatched_by, dispatched_at_ms, timeout_ms, deadline_ms, completed_at_ms, status";

ExecutionRecord read_execution(const store::Statement& s) {
    ExecutionRecord r;
    r.execution_id = s.column_text(0);
    r.command_id = s.column_text(1);
    r.definition_id = s.column_text(2);
    r.plugin = s.column_text(3);
    r.action = s.column_text(4);
    r.params_json = s.column_text(5);
    r.scope_expression = s.column_text(6);
    r.dispatched_by = s.column_text(7);
    r.dispatched_at_ms = s.column_int64(8);
    r.timeout_ms = s.column_int64(9);
    r.deadline_ms = s.column_int64(10);
    r.completed_at_ms = s.column_int64(11);
    r.status = s.column_text(12);
    return r;
}

Result<std::optional<ExecutionRecord>> load_execution(store::Conn& conn,
                                                      const std::string& execution_id) {
    std::optional<ExecutionRecord> record;
    {
        auto stmt = conn.prepare(std::string("SELECT ") + kExecutionColumns +
                                 " FROM executions WHERE execution_id = ?1");
        if (!stmt.ok()) return stmt.status();
        stmt->bind(1, execution_id);
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) return record;
        record = read_execution(*stmt);
    }
    auto tally = tally_states(conn, execution_id);
    if (!tally.ok()) return tally.status();
    record->counts = to_counts(*tally);
    return record;
}

Result<store::Statement> prepare_settle_agent(store::Conn& conn) {
    return conn.prepare(
        "UPDATE execution_agents SET state = ?3, error = ?4, updated_at_ms = ?5 WHERE execution_id "
        "= ?1 AND agent_id = ?2 AND state = 'dispatched'");
}

Result<bool> settle_agent(store::Conn& conn, store::Statement& prepared,
                          const std::string& execution_id, const std::string& agent_id,
                          const std::string& state, const std::string& error, int64_t now_ms) {
    prepared.bind(1, execution_id).bind(2, agent_id).bind(3, state).bind(4, error).bind(5, now_ms);
    YUZU_RETURN_IF_ERROR(prepared.run());
    return conn.changes() > 0;
}

Result<bool> settle_agent(store::Conn& conn, const std::string& execution_id,
                          const std::string& agent_id, const std::string& state,
                          const std::string& error, int64_t now_ms) {
    auto stmt = prepare_settle_agent(conn);
    if (!stmt.ok()) return stmt.status();
    return settle_agent(conn, *stmt, execution_id, agent_id, state, error, now_ms);
}

}  // namespace yuzu::execution
