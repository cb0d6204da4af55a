#include "auth/role_queries.hpp"

namespace yuzu::auth {

Result<std::vector<std::string>> query_global_roles(store::Conn& conn,
                                                    const std::string& username) {
    auto stmt =
        conn.prepare("SELECT role_name FROM user_roles WHERE username = ? ORDER BY role_name");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, username);
    return store::read_text_column(*stmt);
}

}  // namespace yuzu::auth
