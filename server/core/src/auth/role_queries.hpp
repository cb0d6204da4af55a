// SQL over user_roles shared by UserStore and Rbac (private to auth/).
#pragma once

#include <string>
#include <vector>

#include "yuzu/common/status.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::auth {

// The global roles of `username`, sorted by name. Caller holds `conn`.
Result<std::vector<std::string>> query_global_roles(store::Conn& conn, const std::string& username);

}  // namespace yuzu::auth
