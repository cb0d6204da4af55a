#include "yuzu/compliance/result_store.hpp"

#include <nlohmann/json.hpp>

#include "yuzu/common/json_text.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::compliance {
namespace {

// The view as one JSON array bound to `agent_id IN (SELECT value FROM
// json_each(?))`, however many agents it names.
std::string view_json(const std::set<std::string>& agents) {
    return dump_json(nlohmann::json(agents));
}

Result<CheckStatus> status_column(const store::Statement& s, int column) {
    auto status = parse_check_status(s.column_text(column));
    if (!status) {
        return Status::Internal("compliance.db: unknown result status '" + s.column_text(column) +
                                "'");
    }
    return *status;
}

}  // namespace

ResultStore::ResultStore(store::Database& db) : db_(db) {}

Status ResultStore::replace(const std::string& policy_id, const std::vector<CheckResult>& results) {
    auto conn = db_.lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    {
        auto exists = conn.prepare("SELECT 1 FROM policies WHERE policy_id = ?1");
        if (!exists.ok()) return exists.status();
        auto row = exists->bind(1, policy_id).step();
        if (!row.ok()) return row.status();
        if (!*row) return Status::NotFound("policy not found: " + policy_id);
    }
    auto clear = conn.prepare("DELETE FROM results WHERE policy_id = ?1");
    if (!clear.ok()) return clear.status();
    YUZU_RETURN_IF_ERROR(clear->bind(1, policy_id).run());
    auto insert = conn.prepare(
        "INSERT INTO results(policy_id, agent_id, status, "
        "detail, evaluated_at_ms) "
        "VALUES(?1, ?2, ?3, ?4, ?5)");
    if (!insert.ok()) return insert.status();
    insert->bind(1, policy_id);
    for (const CheckResult& r : results) {
        insert->bind(2, r.agent_id).bind(3, check_status_name(r.status)).bind(4, r.detail);
        YUZU_RETURN_IF_ERROR(insert->bind(5, r.evaluated_at_ms).run());
    }
    return tx.commit();
}

Result<std::pair<std::vector<CheckResult>, bool>> ResultStore::query(const ResultQuery& q) const {
    if (q.limit < 1 || q.limit > kMaxResultQueryLimit) {
        return Status::InvalidArgument("limit must be from 1 to " +
                                       std::to_string(kMaxResultQueryLimit));
    }
    std::string sql =
        "SELECT policy_id, agent_id, status, detail, "
        "evaluated_at_ms FROM results "
        "WHERE policy_id = :policy";
    if (q.status) sql += " AND status = :status";
    if (q.only_agents) sql += " AND agent_id IN (SELECT value FROM json_each(:only))";
    sql += " ORDER BY agent_id LIMIT :limit";
    auto conn = db_.lock();
    auto stmt = conn.prepare(sql);
    if (!stmt.ok()) return stmt.status();
    stmt->bind(":policy", q.policy_id).bind(":limit", q.limit + 1);
    if (q.status) stmt->bind(":status", check_status_name(*q.status));
    if (q.only_agents) stmt->bind(":only", view_json(*q.only_agents));
    std::vector<CheckResult> out;
    bool truncated = false;
    while (true) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        if (static_cast<int>(out.size()) == q.limit) {
            truncated = true;
            break;
        }
        CheckResult r;
        r.policy_id = stmt->column_text(0);
        r.agent_id = stmt->column_text(1);
        auto status = status_column(*stmt, 2);
        if (!status.ok()) return status.status();
        r.status = *status;
        r.detail = stmt->column_text(3);
        r.evaluated_at_ms = stmt->column_int64(4);
        out.push_back(std::move(r));
    }
    return std::make_pair(std::move(out), truncated);
}

Result<std::vector<StatusCount>> ResultStore::counts(const AgentView& view) const {
    std::string sql = "SELECT policy_id, status, COUNT(*), MAX(evaluated_at_ms) FROM results";
    if (view) sql += " WHERE agent_id IN (SELECT value FROM json_each(:only))";
    sql += " GROUP BY policy_id, status ORDER BY policy_id, status";
    auto conn = db_.lock();
    auto stmt = conn.prepare(sql);
    if (!stmt.ok()) return stmt.status();
    if (view) stmt->bind(":only", view_json(*view));
    std::vector<StatusCount> out;
    while (true) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        StatusCount c;
        c.policy_id = stmt->column_text(0);
        auto status = status_column(*stmt, 1);
        if (!status.ok()) return status.status();
        c.status = *status;
        c.count = stmt->column_int64(2);
        c.last_evaluated_ms = stmt->column_int64(3);
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace yuzu::compliance
