// Rbac: role assignments and the permission question.
//
// A user's permissions come from built-in roles (roles.hpp):
// - global roles (user_roles in auth.db) apply everywhere;
// - roles held on a management group apply to the agents in that group and
//   in every group below it; a role on the root group applies to all agents.
// Grants only add up; there is no deny rule.
//
// check() answers fleet-wide questions from global roles alone.
// check_for_agent() is the question for an action on one agent: the global
// permission first, otherwise a role on any group covering the agent.
// agents_visible_to() turns the same rule into the set of agents a list
// endpoint may show.
//
// Unknown users simply hold no roles: checks answer false, not NotFound.
// Permissions are re-read from auth.db on every call, so a revoked role takes
// effect on the next request.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "yuzu/auth/management_group.hpp"
#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/auth/roles.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}  // namespace yuzu::store

namespace yuzu::auth {

// The agents a permission reaches: all of them, or an explicit set.
struct AgentScope {
    bool all = false;
    std::set<std::string> agent_ids;  // meaningful only when !all

    bool contains(const std::string& agent_id) const {
        return all || agent_ids.count(agent_id) != 0;
    }
};

class Rbac {
  public:
    // db (migrated with kIdentitySchemaMigration), groups and clock must
    // outlive the Rbac.
    Rbac(store::Database& db, const ManagementGroupStore& groups,
         const Clock& clock = SystemClock::instance());

    // InvalidArgument (not a built-in role), NotFound (no such user),
    // AlreadyExists (already held).
    Status assign_global_role(const std::string& username, const std::string& role);
    // NotFound (not held). FailedPrecondition when it would leave no user
    // with a global Administrator role.
    Status revoke_global_role(const std::string& username, const std::string& role);
    // The user's global roles, sorted. NotFound if no such user.
    Result<std::vector<std::string>> roles_of(const std::string& username) const;

    // Global roles only.
    Result<bool> check(const std::string& username, Permission p) const;
    // Global roles, or roles held on a group containing the agent or on an
    // ancestor of such a group (the root included).
    Result<bool> check_for_agent(const std::string& username, Permission p,
                                 const std::string& agent_id) const;
    // all = true when a global role or a role on the root grants p;
    // otherwise the agents in (or below) the groups where a role grants p.
    Result<AgentScope> agents_visible_to(const std::string& username, Permission p) const;

  private:
    // The groups on which one of the user's roles grants p.
    Result<std::set<std::string>> granting_groups(const std::string& username, Permission p) const;

    store::Database& db_;
    const ManagementGroupStore& groups_;
    const Clock& clock_;
};

}  // namespace yuzu::auth
