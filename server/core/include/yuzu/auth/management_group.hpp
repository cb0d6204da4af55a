// Management groups: a tree of agent groups rooted at "All devices"
// (id "000000000000", created by the auth.db migration), the agents in each
// group, and roles granted to users on a group.
//
// A role held on a group applies to the agents in that group and in every
// group below it. The root contains every agent implicitly, so a role on the
// root applies fleet-wide; agents are never added to it explicitly.
//
// Static groups list their agents by hand. Dynamic groups carry a scope
// expression (stored verbatim; the fleet module evaluates it and records the
// resulting members with source "dynamic").
//
// The tree is at most kMaxGroupDepth levels below the root, and a re-parent
// that would put a group beneath itself is refused, so every walk terminates
// (the queries are bounded by the depth limit as well).
//
// Thread-safety: safe to call from any thread. Each call is atomic; a
// sequence of calls is not.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}  // namespace yuzu::store

namespace yuzu::auth {

inline constexpr std::string_view kRootGroupId = "000000000000";
inline constexpr std::string_view kRootGroupName = "All devices";
inline constexpr int kMaxGroupDepth = 32;
inline constexpr size_t kMaxGroupNameLength = 128;
inline constexpr size_t kMaxGroupDescriptionLength = 1024;
inline constexpr size_t kMaxScopeExpressionLength = 4096;
inline constexpr size_t kMaxAgentIdLength = 128;

inline constexpr std::string_view kMembershipStatic = "static";
inline constexpr std::string_view kMembershipDynamic = "dynamic";
inline constexpr std::string_view kPrincipalUser = "user";

struct ManagementGroup {
    std::string id;                // 12 lowercase hex characters
    std::string name;              // 1..128 bytes, unique among its siblings
    std::string description;       // 0..1024 bytes
    std::string parent_id;         // "" only for the root
    std::string membership_type;   // "static" | "dynamic"
    std::string scope_expression;  // dynamic groups only
    std::string created_by;
    int64_t created_at_ms = 0;
    int64_t updated_at_ms = 0;

    bool is_root() const { return id == kRootGroupId; }
};

struct NewManagementGroup {
    std::string name;
    std::string description;
    std::string parent_id = std::string(kRootGroupId);  // "" also means the root
    std::string membership_type = std::string(kMembershipStatic);
    std::string scope_expression;  // required for dynamic groups, empty for static ones
    std::string created_by;        // the acting username
};

// Fields left empty are not changed.
struct ManagementGroupUpdate {
    std::optional<std::string> name;
    std::optional<std::string> description;
    std::optional<std::string> parent_id;  // "" means the root; the root itself accepts only ""
    std::optional<std::string> scope_expression;  // dynamic groups only
};

struct GroupMember {
    std::string group_id;
    std::string agent_id;
    std::string source;  // "static" | "dynamic"
    int64_t added_at_ms = 0;
};

struct GroupRoleAssignment {
    std::string group_id;
    std::string principal_type;  // "user"
    std::string principal_id;    // the username
    std::string role_name;       // a built-in role
    int64_t granted_at_ms = 0;
};

class ManagementGroupStore {
  public:
    // db must already be migrated with kIdentitySchemaMigration and outlive
    // the store; so must clock.
    explicit ManagementGroupStore(store::Database& db,
                                  const Clock& clock = SystemClock::instance());

    // InvalidArgument (field rules), NotFound (parent), AlreadyExists (a
    // sibling has the name), FailedPrecondition (too deep).
    Result<ManagementGroup> create(const NewManagementGroup& spec);
    Result<ManagementGroup> get(const std::string& id) const;  // NotFound
    // As create, plus FailedPrecondition for a parent change that would make
    // a cycle or move the root, and InvalidArgument for a scope expression on
    // a static group. Answers the updated group.
    Result<ManagementGroup> update(const std::string& id, const ManagementGroupUpdate& change);
    // Root first, then by name.
    Result<std::vector<ManagementGroup>> list() const;

    // source must match the group's membership type ("static" members go
    // into static groups; the fleet module records "dynamic" ones).
    // NotFound (group), AlreadyExists (already a member), InvalidArgument
    // (agent id, source, or the root group).
    Status add_member(const std::string& group_id, const std::string& agent_id,
                      const std::string& source = std::string(kMembershipStatic));
    Status remove_member(const std::string& group_id, const std::string& agent_id);  // NotFound
    // Direct members, by agent id. NotFound if the group does not exist.
    Result<std::vector<GroupMember>> members(const std::string& group_id) const;
    // Groups the agent was added to directly, by id (the root is implicit).
    Result<std::vector<std::string>> groups_of_agent(const std::string& agent_id) const;
    // Parent, grandparent, ..., root. Empty for the root. NotFound.
    Result<std::vector<std::string>> ancestors(const std::string& group_id) const;
    // Every group below, nearest levels first. NotFound.
    Result<std::vector<std::string>> descendants(const std::string& group_id) const;

    // role_name must be a built-in role and principal_type "user" naming an
    // existing user (InvalidArgument / NotFound). AlreadyExists on a repeat.
    Status assign_role(const std::string& group_id, const std::string& principal_type,
                       const std::string& principal_id, const std::string& role_name);
    Status revoke_role(const std::string& group_id, const std::string& principal_type,
                       const std::string& principal_id, const std::string& role_name);  // NotFound
    Result<std::vector<GroupRoleAssignment>> list_roles(const std::string& group_id) const;

    // Queries behind group-scoped RBAC (see rbac.hpp).
    // Every group-role assignment a principal holds.
    Result<std::vector<GroupRoleAssignment>> roles_held_by(const std::string& principal_type,
                                                           const std::string& principal_id) const;
    // The groups whose roles apply to the agent: its direct groups, all their
    // ancestors, and the root.
    Result<std::set<std::string>> groups_covering_agent(const std::string& agent_id) const;
    // Agents recorded in the group or any group below it. For the root this
    // is only the agents some group lists, not "every agent".
    Result<std::set<std::string>> agents_in_subtree(const std::string& group_id) const;

  private:
    store::Database& db_;
    const Clock& clock_;
};

}  // namespace yuzu::auth
