// RBAC over real HTTP: global roles allow and deny, group-scoped roles reach
// only the group's agents, and the rbac/check self-check reports both.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "identity_test_helpers.hpp"
#include "support/server_process.hpp"

namespace yuzu::testing::identity {
namespace {

bool check(httplib::Client& c, const httplib::Headers& who, const json& body) {
    auto res = c.Post("/api/v1/rbac/check", who, body.dump(), "application/json");
    EXPECT_TRUE(res);
    if (!res) return false;
    EXPECT_EQ(res->status, 200) << res->body;
    return res->status == 200 && json::parse(res->body)["allowed"].get<bool>();
}

TEST(IdentityRbac, ViewerIsDeniedGroupCreationAdminIsAllowed) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const std::string admin = create_token(c, login(c, "admin", kAdminPassword), "admin-cli");
    create_user(c, admin, "vera", "vera-long-password", {"Viewer"});
    const Session vera = login(c, "vera", "vera-long-password");

    const std::string group = json{{"name", "Berlin"}, {"description", "office"}}.dump();
    auto denied = c.Post("/api/v1/management-groups", vera.headers(), group, "application/json");
    ASSERT_TRUE(denied);
    EXPECT_EQ(denied->status, 403) << denied->body;
    EXPECT_NE(json::parse(denied->body)["error"]["message"].get<std::string>().find(
                  "ManagementGroup:Write"),
              std::string::npos);
    auto allowed = c.Post("/api/v1/management-groups", bearer(admin), group, "application/json");
    ASSERT_TRUE(allowed);
    ASSERT_EQ(allowed->status, 201) << allowed->body;
    const json g = json::parse(allowed->body);
    EXPECT_EQ(g["name"], "Berlin");
    EXPECT_EQ(g["parent_id"], "000000000000");
    EXPECT_EQ(g["membership_type"], "static");

    auto listed = c.Get("/api/v1/management-groups", vera.headers(false));
    ASSERT_TRUE(listed);
    EXPECT_EQ(listed->status, 200);
    EXPECT_EQ(json::parse(listed->body)["groups"].size(), 2u);  // root and Berlin
    auto one = c.Get("/api/v1/management-groups/" + g["id"].get<std::string>(), vera.headers());
    ASSERT_TRUE(one);
    EXPECT_EQ(one->status, 200);
    auto users = c.Get("/api/v1/users", vera.headers(false));
    ASSERT_TRUE(users);
    EXPECT_EQ(users->status, 403);

    auto update = c.Put("/api/v1/management-groups/" + g["id"].get<std::string>(), bearer(admin),
                        json{{"description", "HQ"}}.dump(), "application/json");
    ASSERT_TRUE(update);
    ASSERT_EQ(update->status, 200) << update->body;
    EXPECT_EQ(json::parse(update->body)["description"], "HQ");

    const json denials = audit_events(c, admin, "action=mgmt_group.create&result=denied");
    ASSERT_EQ(denials.size(), 1u);
    EXPECT_EQ(denials[0]["principal"], "vera");
    EXPECT_EQ(audit_events(c, admin, "action=mgmt_group.create&result=success").size(), 1u);
    EXPECT_EQ(audit_events(c, admin, "action=mgmt_group.update").size(), 1u);
}

TEST(IdentityRbac, GroupScopedOperatorReachesOnlyTheGroupsAgents) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const std::string admin = create_token(c, login(c, "admin", kAdminPassword), "admin-cli");
    create_user(c, admin, "otto", "otto-long-password", {});
    create_user(c, admin, "iris", "iris-long-password", {});

    auto made = c.Post("/api/v1/management-groups", bearer(admin), json{{"name", "Lab"}}.dump(),
                       "application/json");
    ASSERT_TRUE(made);
    ASSERT_EQ(made->status, 201) << made->body;
    const std::string gid = json::parse(made->body)["id"];
    const std::string base = "/api/v1/management-groups/" + gid;
    auto member = c.Post(base + "/members", bearer(admin), json{{"agent_id", "agent-in"}}.dump(),
                         "application/json");
    ASSERT_TRUE(member);
    EXPECT_EQ(member->status, 204) << member->body;
    auto role = c.Post(
        base + "/roles", bearer(admin),
        json{{"principal_type", "user"}, {"principal_id", "otto"}, {"role", "Operator"}}.dump(),
        "application/json");
    ASSERT_TRUE(role);
    EXPECT_EQ(role->status, 204) << role->body;
    auto bad_role =
        c.Post(base + "/roles", bearer(admin),
               json{{"principal_id", "otto"}, {"role", "Emperor"}}.dump(), "application/json");
    ASSERT_TRUE(bad_role);
    EXPECT_EQ(bad_role->status, 400);

    // Without a global role otto may not even create a token: use the session.
    const httplib::Headers otto = login(c, "otto", "otto-long-password").headers();
    EXPECT_TRUE(check(c, otto, {{"permission", "Execution:Execute"}, {"agent_id", "agent-in"}}));
    EXPECT_FALSE(check(c, otto, {{"permission", "Execution:Execute"}, {"agent_id", "agent-out"}}));
    EXPECT_FALSE(check(c, otto, {{"permission", "Execution:Execute"}}));
    EXPECT_TRUE(check(
        c, otto, {{"securable", "Execution"}, {"operation", "Execute"}, {"agent_id", "agent-in"}}));
    EXPECT_TRUE(
        check(c, bearer(admin), {{"permission", "Execution:Execute"}, {"agent_id", "agent-out"}}));
    auto unknown = c.Post("/api/v1/rbac/check", otto, json{{"permission", "Nope:Read"}}.dump(),
                          "application/json");
    ASSERT_TRUE(unknown);
    EXPECT_EQ(unknown->status, 400);

    // Listing a group's roles: fleet-wide ManagementGroup:Read, or
    // ITServiceOwner on that group.
    auto otto_roles = c.Get(base + "/roles", otto);
    ASSERT_TRUE(otto_roles);
    EXPECT_EQ(otto_roles->status, 403);
    auto iso = c.Post(base + "/roles", bearer(admin),
                      json{{"principal_id", "iris"}, {"role", "ITServiceOwner"}}.dump(),
                      "application/json");
    ASSERT_TRUE(iso);
    ASSERT_EQ(iso->status, 204);
    const httplib::Headers iris = login(c, "iris", "iris-long-password").headers();
    auto iris_roles = c.Get(base + "/roles", iris);
    ASSERT_TRUE(iris_roles);
    ASSERT_EQ(iris_roles->status, 200) << iris_roles->body;
    EXPECT_EQ(json::parse(iris_roles->body)["roles"].size(), 2u);
    auto iris_root = c.Get("/api/v1/management-groups/000000000000/roles", iris);
    ASSERT_TRUE(iris_root);
    EXPECT_EQ(iris_root->status, 403);

    EXPECT_GE(audit_events(c, admin, "action=rbac.check&principal=otto").size(), 4u);
    EXPECT_EQ(audit_events(c, admin, "action=mgmt_group.add_member&target_id=" + gid).size(), 1u);
    EXPECT_EQ(
        audit_events(c, admin, "action=mgmt_group.assign_role&result=success&target_id=" + gid)
            .size(),
        2u);
}

TEST(IdentityRbac, AdminAssignsGlobalRoles) {
    ServerProcess server(server_options());
    httplib::Client c(server.base_url());
    const std::string admin = create_token(c, login(c, "admin", kAdminPassword), "admin-cli");
    create_user(c, admin, "una", "una-long-password", {});
    const httplib::Headers una = login(c, "una", "una-long-password").headers();
    EXPECT_FALSE(check(c, una, {{"permission", "AuditLog:Read"}}));
    auto assign = c.Post("/api/v1/users/una/roles", bearer(admin), json{{"role", "Viewer"}}.dump(),
                         "application/json");
    ASSERT_TRUE(assign);
    EXPECT_EQ(assign->status, 204) << assign->body;
    EXPECT_TRUE(check(c, una, {{"permission", "AuditLog:Read"}}));
    auto audit = c.Get("/api/v1/audit?action=user.assign_role", una);
    ASSERT_TRUE(audit);
    EXPECT_EQ(audit->status, 200);
    auto bad_limit = c.Get("/api/v1/audit?limit=abc", una);
    ASSERT_TRUE(bad_limit);
    EXPECT_EQ(bad_limit->status, 400);
}

}  // namespace
}  // namespace yuzu::testing::identity
