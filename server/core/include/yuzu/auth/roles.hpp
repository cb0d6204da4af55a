// The built-in roles, compiled in. The grant table and its rationale live in
// roles.cpp; a role is referred to by its exact name ("Operator") in the
// database, REST bodies and audit rows.
//
// Thread-safety: pure functions over a constant table; safe from any thread.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "yuzu/auth/rbac_permission.hpp"

namespace yuzu::auth {

inline constexpr std::string_view kRoleAdministrator = "Administrator";
inline constexpr std::string_view kRoleITServiceOwner = "ITServiceOwner";
inline constexpr std::string_view kRoleOperator = "Operator";
inline constexpr std::string_view kRoleViewer = "Viewer";

// The built-in role names, most powerful first.
std::span<const std::string_view> builtin_role_names();
bool is_builtin_role(std::string_view name);

// One line saying what the role is for; "" for an unknown name.
std::string_view role_summary(std::string_view role);

// Whether the built-in role grants p. Unknown role names grant nothing.
bool role_grants(std::string_view role, Permission p);

// Every permission the role grants, ordered by type then operation (for the
// docs, the UI and tests). Empty for an unknown name.
std::vector<Permission> role_permissions(std::string_view role);

}  // namespace yuzu::auth
