#include "yuzu/auth/rbac.hpp"

#include <algorithm>

#include "auth/management_group_sql.hpp"
#include "auth/role_queries.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::auth {
namespace {

bool any_grants(const std::vector<std::string>& roles, Permission p) {
    return std::any_of(roles.begin(), roles.end(),
                       [&](const std::string& role) { return role_grants(role, p); });
}

}  // namespace

Rbac::Rbac(store::Database& db, const ManagementGroupStore& groups, const Clock& clock)
    : db_(db), groups_(groups), clock_(clock) {}

Status Rbac::assign_global_role(const std::string& username, const std::string& role) {
    if (!is_builtin_role(role)) {
        return Status::InvalidArgument("unknown role '" + role +
                                       "'; built-in roles are Administrator, ITServiceOwner, "
                                       "Operator, Viewer");
    }
    auto conn = db_.lock();
    auto tx = conn.transaction();
    YUZU_RETURN_IF_ERROR(tx.status());
    auto exists = group_sql::user_exists(conn, username);
    if (!exists.ok()) return exists.status();
    if (!*exists) return Status::NotFound("user '" + username + "' does not exist");
    auto stmt = conn.prepare(
        "INSERT INTO user_roles(username, role_name, granted_at_ms) VALUES(?, ?, ?)"
        " ON CONFLICT DO NOTHING");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(stmt->bind(1, username).bind(2, role).bind(3, clock_.now_ms()).run());
    if (conn.changes() == 0) {
        return Status::AlreadyExists("user '" + username + "' already holds " + role);
    }
    return tx.commit();
}

Status Rbac::revoke_global_role(const std::string& username, const std::string& role) {
    auto conn = db_.lock();
    auto tx = conn.transaction();
    YUZU_RETURN_IF_ERROR(tx.status());
    auto stmt = conn.prepare("DELETE FROM user_roles WHERE username = ? AND role_name = ?");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(stmt->bind(1, username).bind(2, role).run());
    if (conn.changes() == 0) {
        return Status::NotFound("user '" + username + "' does not hold " + role);
    }
    if (role == kRoleAdministrator) {
        auto remaining =
            conn.prepare("SELECT EXISTS(SELECT 1 FROM user_roles WHERE role_name = ?)");
        if (!remaining.ok()) return remaining.status();
        auto row = remaining->bind(1, role).step();
        if (!row.ok()) return row.status();
        const bool any_left = *row && remaining->column_int64(0) != 0;
        remaining->reset();
        if (!any_left) {
            return Status::FailedPrecondition(
                "'" + username +
                "' is the last Administrator; grant Administrator to another user first");
        }
    }
    return tx.commit();
}

Result<std::vector<std::string>> Rbac::roles_of(const std::string& username) const {
    auto conn = db_.read();
    auto exists = group_sql::user_exists(conn, username);
    if (!exists.ok()) return exists.status();
    if (!*exists) return Status::NotFound("user '" + username + "' does not exist");
    return query_global_roles(conn, username);
}

Result<bool> Rbac::check(const std::string& username, Permission p) const {
    auto conn = db_.read();
    auto roles = query_global_roles(conn, username);
    if (!roles.ok()) return roles.status();
    return any_grants(*roles, p);
}

Result<std::set<std::string>> Rbac::granting_groups(const std::string& username,
                                                    Permission p) const {
    auto held = groups_.roles_held_by(std::string(kPrincipalUser), username);
    if (!held.ok()) return held.status();
    std::set<std::string> out;
    for (const GroupRoleAssignment& a : *held) {
        if (role_grants(a.role_name, p)) out.insert(a.group_id);
    }
    return out;
}

Result<bool> Rbac::check_for_agent(const std::string& username, Permission p,
                                   const std::string& agent_id) const {
    auto global = check(username, p);
    if (!global.ok() || *global) return global;
    auto granting = granting_groups(username, p);
    if (!granting.ok()) return granting.status();
    if (granting->empty()) return false;
    auto covering = groups_.groups_covering_agent(agent_id);
    if (!covering.ok()) return covering.status();
    return std::any_of(granting->begin(), granting->end(),
                       [&](const std::string& g) { return covering->count(g) != 0; });
}

Result<AgentScope> Rbac::agents_visible_to(const std::string& username, Permission p) const {
    AgentScope scope;
    auto global = check(username, p);
    if (!global.ok()) return global.status();
    if (*global) {
        scope.all = true;
        return scope;
    }
    auto granting = granting_groups(username, p);
    if (!granting.ok()) return granting.status();
    if (granting->count(std::string(kRootGroupId)) != 0) {
        scope.all = true;
        return scope;
    }
    for (const std::string& group_id : *granting) {
        auto agents = groups_.agents_in_subtree(group_id);
        if (!agents.ok()) return agents.status();
        scope.agent_ids.merge(*agents);
    }
    return scope;
}

}  // namespace yuzu::auth
