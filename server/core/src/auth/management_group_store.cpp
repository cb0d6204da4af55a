// ManagementGroupStore: the group tree (create, get, update, list, walks).
// Membership and role assignments are in management_group_members.cpp.
#include <algorithm>
#include <cassert>

#include "auth/management_group_sql.hpp"
#include "yuzu/auth/management_group.hpp"
#include "yuzu/auth/random.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::auth {
namespace {

constexpr size_t kGroupIdBytes = 6;  // 12 hex characters
constexpr size_t kMaxCreatedByLength = 128;
constexpr int kIdAttempts = 4;

bool has_control_char(std::string_view text, bool allow_newlines) {
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (allow_newlines && (c == '\n' || c == '\r' || c == '\t')) continue;
        if (u < 0x20 || u == 0x7f) return true;
    }
    return false;
}

Status validate_name(std::string_view name) {
    if (name.empty() || name.size() > kMaxGroupNameLength || has_control_char(name, false)) {
        return Status::InvalidArgument("group name must be 1 to " +
                                       std::to_string(kMaxGroupNameLength) +
                                       " bytes without control characters");
    }
    return Status::Ok();
}

Status validate_description(std::string_view description) {
    if (description.size() > kMaxGroupDescriptionLength || has_control_char(description, true)) {
        return Status::InvalidArgument("group description must be at most " +
                                       std::to_string(kMaxGroupDescriptionLength) +
                                       " bytes without control characters other than newlines");
    }
    return Status::Ok();
}

Status validate_scope(std::string_view membership_type, std::string_view scope) {
    if (membership_type == kMembershipStatic) {
        if (!scope.empty()) {
            return Status::InvalidArgument(
                "a static group takes no scope expression; create a dynamic group instead");
        }
        return Status::Ok();
    }
    if (scope.empty() || scope.size() > kMaxScopeExpressionLength) {
        return Status::InvalidArgument("a dynamic group needs a scope expression of 1 to " +
                                       std::to_string(kMaxScopeExpressionLength) + " bytes");
    }
    return Status::Ok();
}

std::string effective_parent(const std::string& parent_id) {
    return parent_id.empty() ? std::string(kRootGroupId) : parent_id;
}

// NotFound unless the parent exists; FailedPrecondition if a subtree of
// `height` levels would end up deeper than kMaxGroupDepth beneath it.
Status check_parent(store::Conn& conn, const std::string& parent_id, int height) {
    auto parent = group_sql::load_group(conn, parent_id);
    if (!parent.ok()) return parent.status();
    if (!*parent) return Status::NotFound("parent group '" + parent_id + "' does not exist");
    auto above = group_sql::ancestor_ids(conn, parent_id);
    if (!above.ok()) return above.status();
    const int parent_depth = static_cast<int>(above->size());
    if (parent_depth + 1 + height > kMaxGroupDepth) {
        return Status::FailedPrecondition(
            "management groups nest at most " + std::to_string(kMaxGroupDepth) +
            " levels below the root; '" + parent_id + "' is too deep to hold this group");
    }
    return Status::Ok();
}

// AlreadyExists if another child of parent_id is called name.
Status check_sibling_name(store::Conn& conn, const std::string& parent_id, const std::string& name,
                          const std::string& self_id) {
    auto stmt = conn.prepare(
        "SELECT 1 FROM management_groups WHERE parent_id = ? AND name = ? AND id != ?");
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->bind(1, parent_id).bind(2, name).bind(3, self_id).step();
    if (!row.ok()) return row.status();
    if (*row) {
        return Status::AlreadyExists("group '" + parent_id + "' already has a child named '" +
                                     name + "'");
    }
    return Status::Ok();
}

Result<std::string> fresh_group_id(store::Conn& conn) {
    for (int attempt = 0; attempt < kIdAttempts; ++attempt) {
        auto id = random_hex(kGroupIdBytes);
        if (!id.ok()) return id.status();
        auto existing = group_sql::load_group(conn, *id);
        if (!existing.ok()) return existing.status();
        if (!*existing) return std::move(*id);
    }
    return Status::Internal("could not find an unused management group id");
}

}  // namespace

ManagementGroupStore::ManagementGroupStore(store::Database& db, const Clock& clock)
    : db_(db), clock_(clock) {}

Result<ManagementGroup> ManagementGroupStore::create(const NewManagementGroup& spec) {
    YUZU_RETURN_IF_ERROR(validate_name(spec.name));
    YUZU_RETURN_IF_ERROR(validate_description(spec.description));
    if (spec.membership_type != kMembershipStatic && spec.membership_type != kMembershipDynamic) {
        return Status::InvalidArgument("membership_type must be 'static' or 'dynamic', not '" +
                                       spec.membership_type + "'");
    }
    YUZU_RETURN_IF_ERROR(validate_scope(spec.membership_type, spec.scope_expression));
    if (spec.created_by.empty() || spec.created_by.size() > kMaxCreatedByLength) {
        return Status::InvalidArgument("created_by must name the acting principal");
    }
    const std::string parent_id = effective_parent(spec.parent_id);

    auto conn = db_.lock();
    auto tx = conn.transaction();
    YUZU_RETURN_IF_ERROR(tx.status());
    YUZU_RETURN_IF_ERROR(check_parent(conn, parent_id, 0));
    YUZU_RETURN_IF_ERROR(check_sibling_name(conn, parent_id, spec.name, ""));
    auto id = fresh_group_id(conn);
    if (!id.ok()) return id.status();

    const int64_t now = clock_.now_ms();
    auto insert = conn.prepare(
        "INSERT INTO management_groups(id, name, description, parent_id, membership_type,"
        " scope_expression, created_by, created_at_ms, updated_at_ms)"
        " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!insert.ok()) return insert.status();
    YUZU_RETURN_IF_ERROR(insert->bind(1, *id)
                             .bind(2, spec.name)
                             .bind(3, spec.description)
                             .bind(4, parent_id)
                             .bind(5, spec.membership_type)
                             .bind(6, spec.scope_expression)
                             .bind(7, spec.created_by)
                             .bind(8, now)
                             .bind(9, now)
                             .run());
    auto created = group_sql::load_group(conn, *id);
    if (!created.ok()) return created.status();
    assert(*created && "the row was inserted in this transaction");
    YUZU_RETURN_IF_ERROR(tx.commit());
    return std::move(**created);
}

Result<ManagementGroup> ManagementGroupStore::get(const std::string& id) const {
    auto conn = db_.lock();
    auto group = group_sql::load_group(conn, id);
    if (!group.ok()) return group.status();
    if (!*group) return Status::NotFound("management group '" + id + "' does not exist");
    return std::move(**group);
}

Result<ManagementGroup> ManagementGroupStore::update(const std::string& id,
                                                     const ManagementGroupUpdate& change) {
    if (change.name) YUZU_RETURN_IF_ERROR(validate_name(*change.name));
    if (change.description) YUZU_RETURN_IF_ERROR(validate_description(*change.description));

    auto conn = db_.lock();
    auto tx = conn.transaction();
    YUZU_RETURN_IF_ERROR(tx.status());
    auto loaded = group_sql::load_group(conn, id);
    if (!loaded.ok()) return loaded.status();
    if (!*loaded) return Status::NotFound("management group '" + id + "' does not exist");
    ManagementGroup group = std::move(**loaded);

    if (change.scope_expression) {
        YUZU_RETURN_IF_ERROR(validate_scope(group.membership_type, *change.scope_expression));
        group.scope_expression = *change.scope_expression;
    }
    if (change.description) group.description = *change.description;
    const bool renamed = change.name && *change.name != group.name;
    if (change.name) group.name = *change.name;

    bool moved = false;
    if (change.parent_id && group.is_root() && !change.parent_id->empty()) {
        return Status::FailedPrecondition("the root group '" + std::string(kRootGroupId) +
                                          "' cannot be moved");
    }
    if (change.parent_id && !group.is_root()) {
        const std::string new_parent = effective_parent(*change.parent_id);
        if (new_parent != group.parent_id) {
            if (new_parent == id) {
                return Status::FailedPrecondition("group '" + id + "' cannot be its own parent");
            }
            auto above = group_sql::ancestor_ids(conn, new_parent);
            if (!above.ok()) return above.status();
            if (std::find(above->begin(), above->end(), id) != above->end()) {
                return Status::FailedPrecondition("moving group '" + id + "' under '" + new_parent +
                                                  "' would make a cycle: '" + new_parent +
                                                  "' is below '" + id + "'");
            }
            auto below = group_sql::descendant_ids(conn, id);
            if (!below.ok()) return below.status();
            int height = 0;
            for (const auto& entry : *below) height = std::max(height, entry.second);
            YUZU_RETURN_IF_ERROR(check_parent(conn, new_parent, height));
            group.parent_id = new_parent;
            moved = true;
        }
    }
    if ((renamed || moved) && !group.is_root()) {
        YUZU_RETURN_IF_ERROR(check_sibling_name(conn, group.parent_id, group.name, id));
    }

    group.updated_at_ms = clock_.now_ms();
    auto stmt = conn.prepare(
        "UPDATE management_groups SET name = ?, description = ?, parent_id = ?,"
        " scope_expression = ?, updated_at_ms = ? WHERE id = ?");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, group.name).bind(2, group.description);
    if (group.is_root()) {
        stmt->bind_null(3);
    } else {
        stmt->bind(3, group.parent_id);
    }
    YUZU_RETURN_IF_ERROR(
        stmt->bind(4, group.scope_expression).bind(5, group.updated_at_ms).bind(6, id).run());
    YUZU_RETURN_IF_ERROR(tx.commit());
    return group;
}

Result<std::vector<ManagementGroup>> ManagementGroupStore::list() const {
    auto conn = db_.lock();
    auto stmt = conn.prepare("SELECT " + std::string(group_sql::kGroupColumns) +
                             " FROM management_groups ORDER BY parent_id IS NOT NULL, name, id");
    if (!stmt.ok()) return stmt.status();
    std::vector<ManagementGroup> out;
    while (true) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        out.push_back(group_sql::group_from_row(*stmt));
    }
    return out;
}

Result<std::vector<std::string>> ManagementGroupStore::ancestors(
    const std::string& group_id) const {
    auto conn = db_.read();
    YUZU_RETURN_IF_ERROR(group_sql::require_group(conn, group_id));
    return group_sql::ancestor_ids(conn, group_id);
}

Result<std::vector<std::string>> ManagementGroupStore::descendants(
    const std::string& group_id) const {
    auto conn = db_.read();
    YUZU_RETURN_IF_ERROR(group_sql::require_group(conn, group_id));
    auto below = group_sql::descendant_ids(conn, group_id);
    if (!below.ok()) return below.status();
    std::vector<std::string> out;
    out.reserve(below->size());
    for (auto& entry : *below) out.push_back(std::move(entry.first));
    return out;
}

}  // namespace yuzu::auth
