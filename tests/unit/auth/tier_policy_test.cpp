#include "yuzu/auth/tier_policy.hpp"

#include <gtest/gtest.h>

namespace yuzu::auth {
namespace {

using O = Operation;
using S = Securable;

TEST(TierPolicy, ValidTiers) {
    for (const char* t : {"", "readonly", "operator", "supervised"}) EXPECT_TRUE(is_valid_tier(t));
    for (const char* t : {"admin", "Readonly", " operator", "x"}) EXPECT_FALSE(is_valid_tier(t));
}

TEST(TierPolicy, EmptyTierDefersToRbac) {
    EXPECT_TRUE(tier_allows("", S::kUserManagement, O::kDelete));
    EXPECT_FALSE(requires_approval("", S::kExecution, O::kExecute));
}

TEST(TierPolicy, ReadonlyAllowsOnlyRead) {
    EXPECT_TRUE(tier_allows("readonly", S::kInfrastructure, O::kRead));
    EXPECT_TRUE(tier_allows("readonly", S::kAuditLog, O::kRead));
    EXPECT_FALSE(tier_allows("readonly", S::kTag, O::kWrite));
    EXPECT_FALSE(tier_allows("readonly", S::kExecution, O::kExecute));
    EXPECT_FALSE(tier_allows("readonly", S::kApiToken, O::kRotate));
}

TEST(TierPolicy, OperatorAllowsTagsExecutionAndRotation) {
    EXPECT_TRUE(tier_allows("operator", S::kPolicy, O::kRead));
    EXPECT_TRUE(tier_allows("operator", S::kTag, O::kWrite));
    EXPECT_TRUE(tier_allows("operator", S::kTag, O::kDelete));
    EXPECT_TRUE(tier_allows("operator", S::kExecution, O::kExecute));
    EXPECT_TRUE(tier_allows("operator", S::kApiToken, O::kRotate));
    EXPECT_FALSE(tier_allows("operator", S::kApiToken, O::kWrite));
    EXPECT_FALSE(tier_allows("operator", S::kSecurity, O::kWrite));
    EXPECT_FALSE(tier_allows("operator", S::kManagementGroup, O::kWrite));
    EXPECT_FALSE(tier_allows("operator", S::kExecution, O::kDelete));
    EXPECT_TRUE(requires_approval("operator", S::kTag, O::kDelete));
    EXPECT_FALSE(requires_approval("operator", S::kTag, O::kWrite));
    EXPECT_FALSE(requires_approval("operator", S::kExecution, O::kExecute));
}

TEST(TierPolicy, SupervisedAllowsEverythingButGatesTheDangerousOnes) {
    EXPECT_TRUE(tier_allows("supervised", S::kUserManagement, O::kWrite));
    EXPECT_TRUE(requires_approval("supervised", S::kExecution, O::kExecute));
    EXPECT_TRUE(requires_approval("supervised", S::kTag, O::kDelete));
    EXPECT_TRUE(requires_approval("supervised", S::kApiToken, O::kDelete));
    EXPECT_TRUE(requires_approval("supervised", S::kApiToken, O::kWrite));
    EXPECT_TRUE(requires_approval("supervised", S::kUserManagement, O::kWrite));
    EXPECT_TRUE(requires_approval("supervised", S::kManagementGroup, O::kWrite));
    EXPECT_TRUE(requires_approval("supervised", S::kSecurity, O::kExecute));
    EXPECT_TRUE(requires_approval("supervised", S::kPolicy, O::kWrite));
    EXPECT_FALSE(requires_approval("supervised", S::kTag, O::kWrite));
    EXPECT_FALSE(requires_approval("supervised", S::kApiToken, O::kRotate));
    EXPECT_FALSE(requires_approval("supervised", S::kApproval, O::kWrite));
    EXPECT_FALSE(requires_approval("supervised", S::kInfrastructure, O::kRead));
}

TEST(TierPolicy, UnknownTierRefusesEverythingIncludingRead) {
    EXPECT_FALSE(tier_allows("root", S::kInfrastructure, O::kRead));
    EXPECT_FALSE(tier_allows("READONLY", S::kInfrastructure, O::kRead));
}

}  // namespace
}  // namespace yuzu::auth
