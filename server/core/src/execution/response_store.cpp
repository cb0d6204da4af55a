#include "yuzu/execution/response_store.hpp"

#include <algorithm>

#include "execution/response_rows.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::execution {
namespace {

constexpr const char* kColumns =
    "SELECT r.response_id, r.execution_id, r.agent_id, r.status, r.output, r.error, r.duration_ms, "
    "r.received_at_ms FROM responses r ";

}  // namespace

Status check_selection(const ResponseSelection& s) {
    if (s.execution_id.empty() && s.instruction_id.empty()) {
        return Status::InvalidArgument("give an execution_id or an instruction_id");
    }
    if (!s.status.empty() && s.status != "success" && s.status != "failure" &&
        s.status != "refused" && s.status != "timeout") {
        return Status::InvalidArgument("status must be success, failure, refused or timeout");
    }
    return Status::Ok();
}

Result<store::Statement> select_responses(store::Conn& conn, const ResponseSelection& s) {
    std::string sql = kColumns;
    if (!s.execution_id.empty()) {
        sql += "WHERE r.execution_id = ?1 ";
    } else {
        sql +=
            "JOIN executions e ON e.execution_id = r.execution_id WHERE (e.command_id = ?1 OR "
            "e.definition_id = ?1) ";
    }
    sql +=
        "AND (?2 = '' OR r.agent_id = ?2) AND (?3 = '' OR r.status = ?3) ORDER BY "
        "r.received_at_ms, r.response_id LIMIT ?4";
    auto stmt = conn.prepare(sql);
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, s.execution_id.empty() ? s.instruction_id : s.execution_id);
    stmt->bind(2, s.agent_id).bind(3, s.status).bind(4, s.sql_limit);
    return std::move(stmt).value();
}

ResponseRow read_response(const store::Statement& s) {
    ResponseRow row;
    row.id = s.column_int64(0);
    row.execution_id = s.column_text(1);
    row.agent_id = s.column_text(2);
    row.status = s.column_text(3);
    row.output_json = s.column_text(4);
    row.error = s.column_text(5);
    row.duration_ms = s.column_int64(6);
    row.timestamp_ms = s.column_int64(7);
    return row;
}

ResponseStore::ResponseStore(store::Database& db) : db_(db) {}

Result<ResponsePage> ResponseStore::query(const ResponseQuery& query) const {
    const int64_t limit = std::clamp<int64_t>(query.limit, 1, kMaxResponseLimit);
    ResponseSelection selection{query.execution_id, query.instruction_id, query.agent_id,
                                query.status, -1};
    YUZU_RETURN_IF_ERROR(check_selection(selection));
    // With a view restriction the rows to skip are unknown up front, so the
    // limit is applied while reading.
    if (!query.only_agents) selection.sql_limit = limit + 1;

    ResponsePage page;
    auto conn = db_.lock();
    auto stmt = select_responses(conn, selection);
    if (!stmt.ok()) return stmt.status();
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        if (query.only_agents && !query.only_agents->contains(stmt->column_text(2))) continue;
        if (static_cast<int64_t>(page.rows.size()) == limit) {
            page.truncated = true;
            break;
        }
        page.rows.push_back(read_response(*stmt));
    }
    return page;
}

Result<ResponseRow> ResponseStore::get(const std::string& execution_id,
                                       const std::string& agent_id) const {
    auto conn = db_.lock();
    ResponseSelection selection{execution_id, "", agent_id, "", 1};
    if (execution_id.empty() || agent_id.empty()) {
        return Status::NotFound("no response without an execution and an agent");
    }
    auto stmt = select_responses(conn, selection);
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    if (!*row) {
        return Status::NotFound("agent '" + agent_id + "' has not answered execution '" +
                                execution_id + "'");
    }
    return read_response(*stmt);
}

}  // namespace yuzu::execution
