// The access layer's answers, the same for every surface.
#include "yuzu/access/permission_check.hpp"

#include <gtest/gtest.h>

#include "yuzu/auth/authorizer.hpp"

namespace yuzu::access {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;

struct AllowAll : auth::Authorizer {
    Result<bool> allowed(const auth::Principal&, Permission) const override { return true; }
    Result<bool> allowed_on_agent(const auth::Principal&, Permission,
                                  const std::string&) const override {
        return true;
    }
};

auth::Principal token(const std::string& tier) {
    auth::Principal p;
    p.username = "alice";
    p.kind = auth::PrincipalKind::kMcpToken;
    p.mcp_tier = tier;
    return p;
}

TEST(AnswerPermission, AnApprovalGatedPermissionIsNotAllowedOutrightButSaysSo) {
    AllowAll rbac;
    auto a = answer_permission(rbac, token("supervised"),
                               Permission{Securable::kExecution, Operation::kExecute}, "");
    ASSERT_TRUE(a.ok());
    EXPECT_TRUE(a->allowed_by_role);
    EXPECT_TRUE(a->allowed_by_tier);
    EXPECT_TRUE(a->requires_approval);
    EXPECT_FALSE(a->allowed);
    // REST's check agrees: the same permission is refused there.
    EXPECT_EQ(require_permission(rbac, token("supervised"),
                                 Permission{Securable::kExecution, Operation::kExecute})
                  .code(),
              StatusCode::kPermissionDenied);
    auto direct = answer_permission(rbac, token("operator"),
                                    Permission{Securable::kExecution, Operation::kExecute}, "");
    ASSERT_TRUE(direct.ok());
    EXPECT_TRUE(direct->allowed);
    EXPECT_FALSE(direct->requires_approval);
    auto tiered = answer_permission(rbac, token("readonly"),
                                    Permission{Securable::kTag, Operation::kWrite}, "agent-1");
    ASSERT_TRUE(tiered.ok());
    EXPECT_FALSE(tiered->allowed_by_tier);
    EXPECT_FALSE(tiered->allowed);
}

}  // namespace
}  // namespace yuzu::access
