#include "yuzu/auth/rbac.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <span>

#include "yuzu/auth/auth_schema.hpp"
#include "yuzu/auth/user_store.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::auth {
namespace {

using O = Operation;
using S = Securable;

constexpr int kTestLogN = 10;
const std::string kRoot(kRootGroupId);

// ---- vocabulary -------------------------------------------------------------

TEST(RbacPermission, NamesRoundTrip) {
    EXPECT_EQ(all_securables().size(), 17u);
    EXPECT_EQ(all_operations().size(), 6u);
    for (Securable type : all_securables()) {
        EXPECT_EQ(parse_securable(securable_name(type)), type) << securable_name(type);
        for (Operation op : all_operations()) {
            const Permission p{type, op};
            EXPECT_EQ(parse_permission(permission_name(p)), p) << permission_name(p);
        }
    }
    for (Operation op : all_operations()) EXPECT_EQ(parse_operation(operation_name(op)), op);
}

TEST(RbacPermission, ExactSpellings) {
    EXPECT_EQ(securable_name(S::kManagementGroup), "ManagementGroup");
    EXPECT_EQ(securable_name(S::kInstructionDefinition), "InstructionDefinition");
    EXPECT_EQ(securable_name(S::kDeviceToken), "DeviceToken");
    EXPECT_EQ(operation_name(O::kRead), "Read");
    EXPECT_EQ(operation_name(O::kRotate), "Rotate");
    EXPECT_EQ(permission_name({S::kExecution, O::kExecute}), "Execution:Execute");
    for (const char* name : {"Infrastructure", "Tag", "Execution", "InstructionDefinition",
                             "InstructionSet", "Response", "Policy", "AuditLog", "Approval",
                             "ApiToken", "UserManagement", "ManagementGroup", "Security",
                             "Schedule", "GuaranteedState", "Inventory", "DeviceToken"}) {
        EXPECT_TRUE(parse_securable(name).has_value()) << name;
    }
}

TEST(RbacPermission, ParseRejectsNearMisses) {
    for (const char* bad : {"", "Tag", "Tag:", ":Read", "tag:Read", "Tag:read", "Tag:Read ",
                            "Tag::Read", "Tag:Push", "Nothing:Read", "Tag:Read:Write"}) {
        EXPECT_FALSE(parse_permission(bad).has_value()) << bad;
    }
    EXPECT_FALSE(parse_securable("managementgroup").has_value());
    EXPECT_FALSE(parse_operation("READ").has_value());
}

// ---- built-in roles ---------------------------------------------------------

struct RoleCase {
    std::string_view role;
    Permission permission;
    bool allowed;
};

TEST(BuiltinRoles, GrantTable) {
    const RoleCase cases[] = {
        {kRoleViewer, {S::kInfrastructure, O::kRead}, true},
        {kRoleViewer, {S::kInfrastructure, O::kWrite}, false},
        {kRoleViewer, {S::kAuditLog, O::kRead}, true},
        {kRoleViewer, {S::kExecution, O::kExecute}, false},
        {kRoleViewer, {S::kTag, O::kWrite}, false},
        {kRoleViewer, {S::kApproval, O::kApprove}, false},
        {kRoleViewer, {S::kUserManagement, O::kRead}, false},
        {kRoleViewer, {S::kSecurity, O::kRead}, false},
        {kRoleViewer, {S::kApiToken, O::kWrite}, true},
        {kRoleViewer, {S::kApiToken, O::kRotate}, true},
        {kRoleOperator, {S::kExecution, O::kExecute}, true},
        {kRoleOperator, {S::kTag, O::kDelete}, true},
        {kRoleOperator, {S::kInstructionDefinition, O::kWrite}, true},
        {kRoleOperator, {S::kSchedule, O::kWrite}, true},
        {kRoleOperator, {S::kApproval, O::kApprove}, true},
        {kRoleOperator, {S::kApproval, O::kWrite}, false},
        {kRoleOperator, {S::kPolicy, O::kExecute}, true},
        {kRoleOperator, {S::kPolicy, O::kWrite}, false},
        {kRoleOperator, {S::kResponse, O::kRead}, true},
        {kRoleOperator, {S::kResponse, O::kDelete}, false},
        {kRoleOperator, {S::kInfrastructure, O::kWrite}, false},
        {kRoleOperator, {S::kManagementGroup, O::kWrite}, false},
        {kRoleOperator, {S::kUserManagement, O::kRead}, false},
        {kRoleOperator, {S::kSecurity, O::kRead}, false},
        {kRoleOperator, {S::kApiToken, O::kRotate}, true},
        {kRoleITServiceOwner, {S::kUserManagement, O::kWrite}, false},
        {kRoleITServiceOwner, {S::kUserManagement, O::kRead}, false},
        {kRoleITServiceOwner, {S::kSecurity, O::kWrite}, false},
        {kRoleITServiceOwner, {S::kInfrastructure, O::kDelete}, true},
        {kRoleITServiceOwner, {S::kManagementGroup, O::kWrite}, true},
        {kRoleITServiceOwner, {S::kPolicy, O::kWrite}, true},
        {kRoleITServiceOwner, {S::kApproval, O::kApprove}, true},
        {kRoleITServiceOwner, {S::kApproval, O::kDelete}, false},
        {kRoleITServiceOwner, {S::kAuditLog, O::kRead}, true},
        {kRoleITServiceOwner, {S::kAuditLog, O::kDelete}, false},
        {kRoleITServiceOwner, {S::kApiToken, O::kRotate}, true},
        {kRoleITServiceOwner, {S::kApiToken, O::kExecute}, false},
        {kRoleAdministrator, {S::kUserManagement, O::kWrite}, true},
        {kRoleAdministrator, {S::kSecurity, O::kDelete}, true},
        {"NotARole", {S::kInfrastructure, O::kRead}, false},
        {"administrator", {S::kInfrastructure, O::kRead}, false},
    };
    for (const RoleCase& c : cases) {
        EXPECT_EQ(role_grants(c.role, c.permission), c.allowed)
            << c.role << " " << permission_name(c.permission);
    }
}

TEST(BuiltinRoles, AdministratorCanDoEverything) {
    for (Securable type : all_securables()) {
        for (Operation op : all_operations()) {
            EXPECT_TRUE(role_grants(kRoleAdministrator, {type, op})) << permission_name({type, op});
        }
    }
}

TEST(BuiltinRoles, OnlyAdministratorTouchesUsersAndSecurity) {
    for (std::string_view role : builtin_role_names()) {
        if (role == kRoleAdministrator) continue;
        for (Operation op : all_operations()) {
            EXPECT_FALSE(role_grants(role, {S::kUserManagement, op})) << role;
            EXPECT_FALSE(role_grants(role, {S::kSecurity, op})) << role;
        }
    }
}

TEST(BuiltinRoles, EveryRoleManagesItsOwnTokens) {
    for (std::string_view role : builtin_role_names()) {
        for (Operation op : {O::kRead, O::kWrite, O::kDelete, O::kRotate}) {
            EXPECT_TRUE(role_grants(role, {S::kApiToken, op})) << role << " " << operation_name(op);
        }
    }
}

TEST(BuiltinRoles, ViewerOnlyReadsBeyondItsOwnTokens) {
    for (const Permission& p : role_permissions(kRoleViewer)) {
        if (p.type == S::kApiToken) continue;
        EXPECT_EQ(p.op, O::kRead) << permission_name(p);
    }
    // ...and reads every type except users and security.
    for (Securable type : all_securables()) {
        const bool expected = type != S::kUserManagement && type != S::kSecurity;
        EXPECT_EQ(role_grants(kRoleViewer, {type, O::kRead}), expected) << securable_name(type);
    }
}

TEST(BuiltinRoles, RolesNest) {
    // Each role's grants include the next weaker role's.
    const std::string_view order[] = {kRoleAdministrator, kRoleITServiceOwner, kRoleOperator,
                                      kRoleViewer};
    for (size_t i = 1; i < std::size(order); ++i) {
        for (const Permission& p : role_permissions(order[i])) {
            EXPECT_TRUE(role_grants(order[i - 1], p))
                << order[i - 1] << " lacks " << permission_name(p) << " held by " << order[i];
        }
    }
}

TEST(BuiltinRoles, NamesAndSummaries) {
    ASSERT_EQ(builtin_role_names().size(), 4u);
    EXPECT_EQ(builtin_role_names()[0], "Administrator");
    for (std::string_view role : builtin_role_names()) {
        EXPECT_TRUE(is_builtin_role(role));
        EXPECT_FALSE(role_summary(role).empty());
        EXPECT_FALSE(role_permissions(role).empty());
    }
    EXPECT_FALSE(is_builtin_role("Root"));
    EXPECT_TRUE(role_permissions("Root").empty());
    EXPECT_EQ(role_permissions(kRoleAdministrator).size(), 17u * 6u);
}

// ---- Rbac over auth.db ------------------------------------------------------

class RbacTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto db = store::Database::open(":memory:");
        ASSERT_TRUE(db.ok()) << db.status().to_string();
        db_ = std::move(*db);
        Status migrated = store::apply_migrations(*db_, "auth.db", auth_migrations());
        ASSERT_TRUE(migrated.ok()) << migrated.to_string();
        users_ = std::make_unique<UserStore>(*db_, clock_, UserStoreOptions{kTestLogN});
        groups_ = std::make_unique<ManagementGroupStore>(*db_, clock_);
        rbac_ = std::make_unique<Rbac>(*db_, *groups_, clock_);
        ASSERT_TRUE(
            users_->create_user("root-admin", "the admin password", {"Administrator"}).ok());
        ASSERT_TRUE(users_->create_user("olga", "olga's long password", {}).ok());
        ASSERT_TRUE(users_->create_user("victor", "victor's long password", {"Viewer"}).ok());
    }

    std::string make_group(const std::string& name, const std::string& parent) {
        NewManagementGroup spec;
        spec.name = name;
        spec.parent_id = parent;
        spec.created_by = "root-admin";
        auto g = groups_->create(spec);
        EXPECT_TRUE(g.ok()) << g.status().to_string();
        return g.ok() ? g->id : "";
    }

    bool allowed(const std::string& user, Permission p) {
        auto r = rbac_->check(user, p);
        EXPECT_TRUE(r.ok()) << r.status().to_string();
        return r.ok() && *r;
    }

    bool allowed_on(const std::string& user, Permission p, const std::string& agent) {
        auto r = rbac_->check_for_agent(user, p, agent);
        EXPECT_TRUE(r.ok()) << r.status().to_string();
        return r.ok() && *r;
    }

    ManualClock clock_;
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<UserStore> users_;
    std::unique_ptr<ManagementGroupStore> groups_;
    std::unique_ptr<Rbac> rbac_;
};

TEST_F(RbacTest, GlobalRolesDecideCheck) {
    EXPECT_TRUE(allowed("root-admin", {S::kUserManagement, O::kWrite}));
    EXPECT_TRUE(allowed("victor", {S::kInfrastructure, O::kRead}));
    EXPECT_FALSE(allowed("victor", {S::kInfrastructure, O::kWrite}));
    EXPECT_FALSE(allowed("olga", {S::kInfrastructure, O::kRead}));
    EXPECT_FALSE(allowed("nobody", {S::kInfrastructure, O::kRead}));

    ASSERT_TRUE(rbac_->assign_global_role("olga", "Operator").ok());
    EXPECT_TRUE(allowed("olga", {S::kExecution, O::kExecute}));
    ASSERT_TRUE(rbac_->revoke_global_role("olga", "Operator").ok());
    EXPECT_FALSE(allowed("olga", {S::kExecution, O::kExecute}));
}

TEST_F(RbacTest, GlobalRoleAssignmentRules) {
    EXPECT_EQ(rbac_->assign_global_role("olga", "Wizard").code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(rbac_->assign_global_role("nobody", "Viewer").code(), StatusCode::kNotFound);
    ASSERT_TRUE(rbac_->assign_global_role("olga", "Viewer").ok());
    EXPECT_EQ(rbac_->assign_global_role("olga", "Viewer").code(), StatusCode::kAlreadyExists);
    ASSERT_TRUE(rbac_->assign_global_role("olga", "ITServiceOwner").ok());

    auto roles = rbac_->roles_of("olga");
    ASSERT_TRUE(roles.ok());
    EXPECT_EQ(*roles, (std::vector<std::string>{"ITServiceOwner", "Viewer"}));
    EXPECT_EQ(users_->get_user("olga")->global_roles, *roles);
    EXPECT_EQ(rbac_->roles_of("nobody").status().code(), StatusCode::kNotFound);

    EXPECT_EQ(rbac_->revoke_global_role("olga", "Operator").code(), StatusCode::kNotFound);
    ASSERT_TRUE(rbac_->revoke_global_role("olga", "Viewer").ok());
    EXPECT_EQ(*rbac_->roles_of("olga"), std::vector<std::string>{"ITServiceOwner"});
}

TEST_F(RbacTest, TheLastAdministratorCannotBeRevoked) {
    Status s = rbac_->revoke_global_role("root-admin", "Administrator");
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(s.message().find("last Administrator"), std::string::npos);
    EXPECT_TRUE(allowed("root-admin", {S::kUserManagement, O::kWrite}));
    // With a second administrator the first can step down.
    ASSERT_TRUE(rbac_->assign_global_role("olga", "Administrator").ok());
    EXPECT_TRUE(rbac_->revoke_global_role("root-admin", "Administrator").ok());
    EXPECT_FALSE(allowed("root-admin", {S::kUserManagement, O::kWrite}));
}

TEST_F(RbacTest, GroupRoleReachesAgentsInTheGroupAndBelow) {
    const std::string g = make_group("Berlin", kRoot);
    const std::string child = make_group("Berlin servers", g);
    const std::string grandchild = make_group("Berlin db", child);
    const std::string other = make_group("Paris", kRoot);
    ASSERT_TRUE(groups_->add_member(g, "agent-in-g").ok());
    ASSERT_TRUE(groups_->add_member(child, "agent-in-child").ok());
    ASSERT_TRUE(groups_->add_member(grandchild, "agent-in-grandchild").ok());
    ASSERT_TRUE(groups_->add_member(other, "agent-in-paris").ok());
    ASSERT_TRUE(groups_->assign_role(g, "user", "olga", "Operator").ok());

    const Permission execute{S::kExecution, O::kExecute};
    EXPECT_TRUE(allowed_on("olga", execute, "agent-in-g"));
    EXPECT_TRUE(allowed_on("olga", execute, "agent-in-child"));
    EXPECT_TRUE(allowed_on("olga", execute, "agent-in-grandchild"));
    EXPECT_FALSE(allowed_on("olga", execute, "agent-in-paris"));
    EXPECT_FALSE(allowed_on("olga", execute, "agent-nowhere"));
    // The group role is not a fleet-wide one.
    EXPECT_FALSE(allowed("olga", execute));
    // Operator on the group does not grant what Operator lacks.
    EXPECT_FALSE(allowed_on("olga", {S::kInfrastructure, O::kDelete}, "agent-in-g"));

    // An agent in two groups is reachable through either.
    ASSERT_TRUE(groups_->add_member(other, "agent-in-g").ok());
    EXPECT_TRUE(allowed_on("olga", execute, "agent-in-g"));

    // Revoking takes effect on the next check.
    ASSERT_TRUE(groups_->revoke_role(g, "user", "olga", "Operator").ok());
    EXPECT_FALSE(allowed_on("olga", execute, "agent-in-child"));
}

TEST_F(RbacTest, GlobalPermissionCoversEveryAgent) {
    EXPECT_TRUE(allowed_on("root-admin", {S::kExecution, O::kExecute}, "any-agent"));
    EXPECT_TRUE(allowed_on("victor", {S::kInfrastructure, O::kRead}, "any-agent"));
    EXPECT_FALSE(allowed_on("victor", {S::kExecution, O::kExecute}, "any-agent"));
    EXPECT_FALSE(allowed_on("nobody", {S::kInfrastructure, O::kRead}, "any-agent"));
}

TEST_F(RbacTest, RoleOnTheRootCoversEveryAgent) {
    const std::string g = make_group("Tokyo", kRoot);
    ASSERT_TRUE(groups_->add_member(g, "agent-in-tokyo").ok());
    ASSERT_TRUE(groups_->assign_role(kRoot, "user", "olga", "Operator").ok());
    EXPECT_TRUE(allowed_on("olga", {S::kExecution, O::kExecute}, "agent-in-tokyo"));
    EXPECT_TRUE(allowed_on("olga", {S::kExecution, O::kExecute}, "agent-in-no-group"));
    auto scope = rbac_->agents_visible_to("olga", {S::kExecution, O::kExecute});
    ASSERT_TRUE(scope.ok());
    EXPECT_TRUE(scope->all);
    EXPECT_TRUE(scope->contains("anything"));
}

TEST_F(RbacTest, AgentsVisibleTo) {
    const std::string g = make_group("Lyon", kRoot);
    const std::string child = make_group("Lyon labs", g);
    const std::string other = make_group("Oslo", kRoot);
    ASSERT_TRUE(groups_->add_member(g, "a1").ok());
    ASSERT_TRUE(groups_->add_member(child, "a2").ok());
    ASSERT_TRUE(groups_->add_member(other, "a3").ok());
    ASSERT_TRUE(groups_->assign_role(g, "user", "olga", "Operator").ok());
    ASSERT_TRUE(groups_->assign_role(other, "user", "olga", "Viewer").ok());

    auto exec = rbac_->agents_visible_to("olga", {S::kExecution, O::kExecute});
    ASSERT_TRUE(exec.ok()) << exec.status().to_string();
    EXPECT_FALSE(exec->all);
    EXPECT_EQ(exec->agent_ids, (std::set<std::string>{"a1", "a2"}));
    EXPECT_TRUE(exec->contains("a2"));
    EXPECT_FALSE(exec->contains("a3"));

    auto read = rbac_->agents_visible_to("olga", {S::kInfrastructure, O::kRead});
    ASSERT_TRUE(read.ok());
    EXPECT_FALSE(read->all);
    EXPECT_EQ(read->agent_ids, (std::set<std::string>{"a1", "a2", "a3"}));

    auto global = rbac_->agents_visible_to("victor", {S::kInfrastructure, O::kRead});
    ASSERT_TRUE(global.ok());
    EXPECT_TRUE(global->all);

    auto none = rbac_->agents_visible_to("victor", {S::kExecution, O::kExecute});
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->all);
    EXPECT_TRUE(none->agent_ids.empty());
    EXPECT_FALSE(none->contains("a1"));

    auto nobody = rbac_->agents_visible_to("nobody", {S::kInfrastructure, O::kRead});
    ASSERT_TRUE(nobody.ok());
    EXPECT_FALSE(nobody->all);
    EXPECT_TRUE(nobody->agent_ids.empty());
}

}  // namespace
}  // namespace yuzu::auth
