// ManagementGroupStore: agent membership, group-scoped role assignments and
// the queries group-scoped RBAC is built on. The tree itself is in
// management_group_store.cpp.
#include "auth/management_group_sql.hpp"
#include "yuzu/auth/management_group.hpp"
#include "yuzu/auth/roles.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::auth {
namespace {

Status validate_principal(store::Conn& conn, const std::string& principal_type,
                          const std::string& principal_id) {
    if (principal_type != kPrincipalUser) {
        return Status::InvalidArgument("principal_type must be 'user', not '" + principal_type +
                                       "'");
    }
    auto exists = group_sql::user_exists(conn, principal_id);
    if (!exists.ok()) return exists.status();
    if (!*exists) return Status::NotFound("user '" + principal_id + "' does not exist");
    return Status::Ok();
}

Result<std::vector<GroupRoleAssignment>> read_assignments(store::Statement& stmt) {
    std::vector<GroupRoleAssignment> out;
    while (true) {
        auto row = stmt.step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        out.push_back({stmt.column_text(0), stmt.column_text(1), stmt.column_text(2),
                       stmt.column_text(3), stmt.column_int64(4)});
    }
    return out;
}

constexpr std::string_view kAssignmentColumns =
    "group_id, principal_type, principal_id, role_name, granted_at_ms";

}  // namespace

Status ManagementGroupStore::add_member(const std::string& group_id, const std::string& agent_id,
                                        const std::string& source) {
    YUZU_RETURN_IF_ERROR(group_sql::validate_agent_id(agent_id));
    if (source != kMembershipStatic && source != kMembershipDynamic) {
        return Status::InvalidArgument("member source must be 'static' or 'dynamic', not '" +
                                       source + "'");
    }
    if (group_id == kRootGroupId) {
        return Status::InvalidArgument("the root group '" + group_id +
                                       "' contains every agent implicitly; add agents to a "
                                       "group below it");
    }
    auto conn = db_.lock();
    auto tx = conn.transaction();
    YUZU_RETURN_IF_ERROR(tx.status());
    auto group = group_sql::load_group(conn, group_id);
    if (!group.ok()) return group.status();
    if (!*group) return Status::NotFound("management group '" + group_id + "' does not exist");
    if ((*group)->membership_type != source) {
        return Status::FailedPrecondition(
            "group '" + group_id + "' is " + (*group)->membership_type + "; it takes only " +
            (*group)->membership_type + " members, not " + source + " ones");
    }
    auto stmt = conn.prepare(
        "INSERT INTO management_group_members(group_id, agent_id, source, added_at_ms)"
        " VALUES(?, ?, ?, ?) ON CONFLICT DO NOTHING");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(
        stmt->bind(1, group_id).bind(2, agent_id).bind(3, source).bind(4, clock_.now_ms()).run());
    if (conn.changes() == 0) {
        return Status::AlreadyExists("agent '" + agent_id + "' is already in group '" + group_id +
                                     "'");
    }
    return tx.commit();
}

Status ManagementGroupStore::remove_member(const std::string& group_id,
                                           const std::string& agent_id) {
    auto conn = db_.lock();
    auto stmt =
        conn.prepare("DELETE FROM management_group_members WHERE group_id = ? AND agent_id = ?");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(stmt->bind(1, group_id).bind(2, agent_id).run());
    if (conn.changes() == 0) {
        return Status::NotFound("agent '" + agent_id + "' is not in group '" + group_id + "'");
    }
    return Status::Ok();
}

Result<std::vector<GroupMember>> ManagementGroupStore::members(const std::string& group_id) const {
    auto conn = db_.lock();
    YUZU_RETURN_IF_ERROR(group_sql::require_group(conn, group_id));
    auto stmt = conn.prepare(
        "SELECT group_id, agent_id, source, added_at_ms FROM management_group_members"
        " WHERE group_id = ? ORDER BY agent_id");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, group_id);
    std::vector<GroupMember> out;
    while (true) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        out.push_back({stmt->column_text(0), stmt->column_text(1), stmt->column_text(2),
                       stmt->column_int64(3)});
    }
    return out;
}

Result<std::vector<std::string>> ManagementGroupStore::groups_of_agent(
    const std::string& agent_id) const {
    auto conn = db_.read();
    auto stmt = conn.prepare(
        "SELECT group_id FROM management_group_members WHERE agent_id = ? ORDER BY group_id");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, agent_id);
    return store::read_text_column(*stmt);
}

Status ManagementGroupStore::assign_role(const std::string& group_id,
                                         const std::string& principal_type,
                                         const std::string& principal_id,
                                         const std::string& role_name) {
    if (!is_builtin_role(role_name)) {
        return Status::InvalidArgument("unknown role '" + role_name +
                                       "'; built-in roles are Administrator, ITServiceOwner, "
                                       "Operator, Viewer");
    }
    auto conn = db_.lock();
    auto tx = conn.transaction();
    YUZU_RETURN_IF_ERROR(tx.status());
    YUZU_RETURN_IF_ERROR(group_sql::require_group(conn, group_id));
    YUZU_RETURN_IF_ERROR(validate_principal(conn, principal_type, principal_id));
    auto stmt = conn.prepare(
        "INSERT INTO management_group_roles(group_id, principal_type, principal_id, role_name,"
        " granted_at_ms) VALUES(?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(stmt->bind(1, group_id)
                             .bind(2, principal_type)
                             .bind(3, principal_id)
                             .bind(4, role_name)
                             .bind(5, clock_.now_ms())
                             .run());
    if (conn.changes() == 0) {
        return Status::AlreadyExists(principal_type + " '" + principal_id + "' already holds " +
                                     role_name + " on group '" + group_id + "'");
    }
    return tx.commit();
}

Status ManagementGroupStore::revoke_role(const std::string& group_id,
                                         const std::string& principal_type,
                                         const std::string& principal_id,
                                         const std::string& role_name) {
    auto conn = db_.lock();
    auto stmt = conn.prepare(
        "DELETE FROM management_group_roles WHERE group_id = ? AND principal_type = ?"
        " AND principal_id = ? AND role_name = ?");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(stmt->bind(1, group_id)
                             .bind(2, principal_type)
                             .bind(3, principal_id)
                             .bind(4, role_name)
                             .run());
    if (conn.changes() == 0) {
        return Status::NotFound(principal_type + " '" + principal_id + "' does not hold " +
                                role_name + " on group '" + group_id + "'");
    }
    return Status::Ok();
}

Result<std::vector<GroupRoleAssignment>> ManagementGroupStore::list_roles(
    const std::string& group_id) const {
    auto conn = db_.lock();
    YUZU_RETURN_IF_ERROR(group_sql::require_group(conn, group_id));
    auto stmt = conn.prepare("SELECT " + std::string(kAssignmentColumns) +
                             " FROM management_group_roles WHERE group_id = ?"
                             " ORDER BY principal_type, principal_id, role_name");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, group_id);
    return read_assignments(*stmt);
}

Result<std::vector<GroupRoleAssignment>> ManagementGroupStore::roles_held_by(
    const std::string& principal_type, const std::string& principal_id) const {
    auto conn = db_.read();
    auto stmt = conn.prepare("SELECT " + std::string(kAssignmentColumns) +
                             " FROM management_group_roles"
                             " WHERE principal_type = ? AND principal_id = ?"
                             " ORDER BY group_id, role_name");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, principal_type).bind(2, principal_id);
    return read_assignments(*stmt);
}

Result<std::set<std::string>> ManagementGroupStore::groups_covering_agent(
    const std::string& agent_id) const {
    auto conn = db_.read();
    auto stmt = conn.prepare(
        "WITH RECURSIVE up(id, depth) AS ("
        "  SELECT group_id, 0 FROM management_group_members WHERE agent_id = ?1"
        "  UNION"
        "  SELECT g.parent_id, up.depth + 1 FROM management_groups g JOIN up ON g.id = up.id"
        "  WHERE g.parent_id IS NOT NULL AND up.depth < ?2)"
        " SELECT DISTINCT id FROM up");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, agent_id).bind(2, group_sql::kWalkLimit);
    std::set<std::string> out{std::string(kRootGroupId)};
    while (true) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        out.insert(stmt->column_text(0));
    }
    return out;
}

Result<std::set<std::string>> ManagementGroupStore::agents_in_subtree(
    const std::string& group_id) const {
    auto conn = db_.read();
    YUZU_RETURN_IF_ERROR(group_sql::require_group(conn, group_id));
    auto stmt = conn.prepare(
        "WITH RECURSIVE down(id, depth) AS ("
        "  SELECT ?1, 0"
        "  UNION ALL"
        "  SELECT g.id, down.depth + 1 FROM management_groups g JOIN down ON g.parent_id = down.id"
        "  WHERE down.depth < ?2)"
        " SELECT DISTINCT m.agent_id FROM management_group_members m"
        " JOIN down ON m.group_id = down.id");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, group_id).bind(2, group_sql::kWalkLimit);
    std::set<std::string> out;
    while (true) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        out.insert(stmt->column_text(0));
    }
    return out;
}

}  // namespace yuzu::auth
