// Private helpers shared by the ManagementGroupStore sources: row loading and
// the bounded tree walks. Every function runs on a Conn the caller holds.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "yuzu/auth/management_group.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::auth::group_sql {

// Bound on every recursive walk: one more than the deepest legal path, so a
// walk over legal data never reaches it and one over corrupt (cyclic) data
// still ends.
inline constexpr int kWalkLimit = kMaxGroupDepth + 1;

// The columns group_from_row() reads, in order.
inline constexpr std::string_view kGroupColumns =
    "id, name, description, COALESCE(parent_id, ''), membership_type, scope_expression,"
    " created_by, created_at_ms, updated_at_ms";
ManagementGroup group_from_row(const store::Statement& stmt);

Result<std::optional<ManagementGroup>> load_group(store::Conn& conn, const std::string& id);
// NotFound naming the group unless it exists.
Status require_group(store::Conn& conn, const std::string& id);
Result<bool> user_exists(store::Conn& conn, const std::string& username);

// Parent first, root last; empty for the root. Walks at most
// kMaxGroupDepth + 1 steps whatever the data says.
Result<std::vector<std::string>> ancestor_ids(store::Conn& conn, const std::string& id);
// (id, levels below `id`) for every group beneath, nearest levels first.
Result<std::vector<std::pair<std::string, int>>> descendant_ids(store::Conn& conn,
                                                                const std::string& id);

Status validate_agent_id(std::string_view agent_id);

}  // namespace yuzu::auth::group_sql
