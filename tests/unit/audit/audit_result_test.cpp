#include "yuzu/audit/audit_result.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace yuzu::audit {
namespace {

TEST(AuditResult, NamesRoundTrip) {
    const std::pair<AuditResult, std::string_view> expected[] = {
        {AuditResult::kSuccess, "success"},   {AuditResult::kFailure, "failure"},
        {AuditResult::kDenied, "denied"},     {AuditResult::kError, "error"},
        {AuditResult::kPending, "pending"},   {AuditResult::kApproved, "approved"},
        {AuditResult::kRejected, "rejected"}, {AuditResult::kConsumed, "consumed"},
    };
    std::set<std::string_view> names;
    for (const auto& [value, name] : expected) {
        EXPECT_EQ(audit_result_name(value), name);
        EXPECT_EQ(parse_audit_result(name), value) << name;
        names.insert(name);
    }
    EXPECT_EQ(names.size(), 8u);
}

TEST(AuditResult, ParseIsExactAndCaseSensitive) {
    EXPECT_EQ(parse_audit_result(""), std::nullopt);
    EXPECT_EQ(parse_audit_result("Success"), std::nullopt);
    EXPECT_EQ(parse_audit_result("success "), std::nullopt);
    EXPECT_EQ(parse_audit_result("ok"), std::nullopt);
}

}  // namespace
}  // namespace yuzu::audit
