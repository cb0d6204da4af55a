#include "auth/role_queries.hpp"

namespace yuzu::auth {

Result<std::vector<std::string>> query_global_roles(store::Conn& conn,
                                                    const std::string& username) {
    auto stmt =
        conn.prepare("SELECT role_name FROM user_roles WHERE username = ? ORDER BY role_name");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, username);
    std::vector<std::string> roles;
    while (true) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        roles.push_back(stmt->column_text(0));
    }
    return roles;
}

}  // namespace yuzu::auth
