// The access layer over real sockets: the "may I?" question has one answer
// on both surfaces, and an approval-gated call that could never run is
// refused before a ticket is minted.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "approval_test_helpers.hpp"

namespace yuzu::testing::approvals {
namespace {

TEST(AccessParity, CheckPermissionAndRbacCheckGiveOneAnswer) {
    ApprovalFixture f;
    for (const char* permission :
         {"Execution:Execute", "Tag:Delete", "Infrastructure:Read", "AuditLog:Read"}) {
        SCOPED_TRACE(permission);
        auto rest = f.client->Post("/api/v1/rbac/check", identity::bearer(f.supervised),
                                   json{{"permission", permission}}.dump(), "application/json");
        ASSERT_TRUE(rest);
        ASSERT_EQ(rest->status, 200) << rest->body;
        const json over_rest = json::parse(rest->body);
        const json over_mcp = f.mcp(f.supervised, "check_permission",
                                    {{"permission", permission}})["result"]["structuredContent"];
        EXPECT_EQ(over_rest, over_mcp);
    }
    auto gated =
        f.client->Post("/api/v1/rbac/check", identity::bearer(f.supervised),
                       json{{"permission", "Execution:Execute"}}.dump(), "application/json");
    ASSERT_TRUE(gated);
    const json answer = json::parse(gated->body);
    EXPECT_EQ(answer["allowed"], false);
    EXPECT_EQ(answer["requires_approval"], true);
}

TEST(AccessParity, AGatedCallThatCanNeverRunMintsNothing) {
    ApprovalFixture f;
    const json bad = f.mcp(f.supervised, "execute_instruction",
                           {{"plugin", "file"}, {"action", "exists"}, {"params", json::object()}});
    EXPECT_EQ(bad["error"]["code"], -32602) << bad.dump();
    auto list = f.client->Get("/api/v1/approvals", f.admin.headers());
    ASSERT_TRUE(list);
    ASSERT_EQ(list->status, 200) << list->body;
    EXPECT_TRUE(json::parse(list->body)["approvals"].empty()) << list->body;
}

TEST(AccessParity, AnItServiceOwnerAssignsRolesOnItsGroupOverRestToo) {
    ApprovalFixture f;
    auto make_group = [&](const std::string& name) {
        auto res = f.client->Post("/api/v1/management-groups", identity::bearer(f.admin_api),
                                  json{{"name", name}}.dump(), "application/json");
        EXPECT_TRUE(res);
        EXPECT_EQ(res->status, 201) << res->body;
        return json::parse(res->body)["id"].get<std::string>();
    };
    const std::string web = make_group("web");
    const std::string db = make_group("db");
    identity::create_user(*f.client, f.admin_api, "olga", "olga-long-password", {});
    auto owner = f.client->Post(
        "/api/v1/management-groups/" + web + "/roles", identity::bearer(f.admin_api),
        json{{"principal_id", "olga"}, {"role", "ITServiceOwner"}}.dump(), "application/json");
    ASSERT_TRUE(owner);
    ASSERT_EQ(owner->status, 204) << owner->body;
    const identity::Session olga = identity::login(*f.client, "olga", "olga-long-password");
    const std::string grant = json{{"principal_id", "admin"}, {"role", "Viewer"}}.dump();
    auto own = f.client->Post("/api/v1/management-groups/" + web + "/roles", olga.headers(), grant,
                              "application/json");
    ASSERT_TRUE(own);
    EXPECT_EQ(own->status, 204) << own->body;
    auto other = f.client->Post("/api/v1/management-groups/" + db + "/roles", olga.headers(), grant,
                                "application/json");
    ASSERT_TRUE(other);
    EXPECT_EQ(other->status, 403) << other->body;
}

}  // namespace
}  // namespace yuzu::testing::approvals
