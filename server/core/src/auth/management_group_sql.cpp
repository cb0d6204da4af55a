#include "auth/management_group_sql.hpp"

namespace yuzu::auth::group_sql {
namespace {

bool has_control_char(std::string_view text) {
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) return true;
    }
    return false;
}

}  // namespace

ManagementGroup group_from_row(const store::Statement& stmt) {
    ManagementGroup g;
    g.id = stmt.column_text(0);
    g.name = stmt.column_text(1);
    g.description = stmt.column_text(2);
    g.parent_id = stmt.column_text(3);
    g.membership_type = stmt.column_text(4);
    g.scope_expression = stmt.column_text(5);
    g.created_by = stmt.column_text(6);
    g.created_at_ms = stmt.column_int64(7);
    g.updated_at_ms = stmt.column_int64(8);
    return g;
}

Result<std::optional<ManagementGroup>> load_group(store::Conn& conn, const std::string& id) {
    auto stmt = conn.prepare("SELECT " + std::string(kGroupColumns) +
                             " FROM management_groups WHERE id = ?");
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->bind(1, id).step();
    if (!row.ok()) return row.status();
    if (!*row) return std::optional<ManagementGroup>();
    std::optional<ManagementGroup> group = group_from_row(*stmt);
    stmt->reset();
    return group;
}

Status require_group(store::Conn& conn, const std::string& id) {
    auto stmt = conn.prepare("SELECT 1 FROM management_groups WHERE id = ?");
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->bind(1, id).step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::NotFound("management group '" + id + "' does not exist");
    stmt->reset();
    return Status::Ok();
}

Result<bool> user_exists(store::Conn& conn, const std::string& username) {
    auto stmt = conn.prepare("SELECT 1 FROM users WHERE username = ?");
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->bind(1, username).step();
    if (!row.ok()) return row.status();
    const bool found = *row;
    stmt->reset();
    return found;
}

Result<std::vector<std::string>> ancestor_ids(store::Conn& conn, const std::string& id) {
    auto stmt = conn.prepare(
        "WITH RECURSIVE up(id, depth) AS ("
        "  SELECT parent_id, 1 FROM management_groups WHERE id = ?1 AND parent_id IS NOT NULL"
        "  UNION ALL"
        "  SELECT g.parent_id, up.depth + 1 FROM management_groups g JOIN up ON g.id = up.id"
        "  WHERE g.parent_id IS NOT NULL AND up.depth < ?2)"
        " SELECT id FROM up ORDER BY depth");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, id).bind(2, kWalkLimit);
    return store::read_text_column(*stmt);
}

Result<std::vector<std::pair<std::string, int>>> descendant_ids(store::Conn& conn,
                                                                const std::string& id) {
    auto stmt = conn.prepare(
        "WITH RECURSIVE down(id, depth) AS ("
        "  SELECT id, 1 FROM management_groups WHERE parent_id = ?1"
        "  UNION ALL"
        "  SELECT g.id, down.depth + 1 FROM management_groups g JOIN down ON g.parent_id = down.id"
        "  WHERE down.depth < ?2)"
        " SELECT id, depth FROM down ORDER BY depth, id");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, id).bind(2, kWalkLimit);
    std::vector<std::pair<std::string, int>> out;
    while (true) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        out.emplace_back(stmt->column_text(0), static_cast<int>(stmt->column_int64(1)));
    }
    return out;
}

Status validate_agent_id(std::string_view agent_id) {
    if (agent_id.empty() || agent_id.size() > kMaxAgentIdLength || has_control_char(agent_id)) {
        return Status::InvalidArgument("agent id must be 1 to " +
                                       std::to_string(kMaxAgentIdLength) +
                                       " bytes without control characters");
    }
    return Status::Ok();
}

}  // namespace yuzu::auth::group_sql
