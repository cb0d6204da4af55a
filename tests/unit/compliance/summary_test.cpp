// Per-policy and fleet-wide counts, restricted to the agents a caller may
// see (a management-group view).
#include "yuzu/compliance/summary.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compliance_fixture.hpp"
#include "yuzu/compliance/compliance_json.hpp"

namespace yuzu::compliance::testing {
namespace {

TEST_F(ComplianceTest, SummariesCountPerPolicyWithinAView) {
    const std::string a = enroll("web-01");
    const std::string b = enroll("web-02");
    const std::string c = enroll("db-01");
    report(a, "reboot_pending", kNoReboot);
    report(b, "reboot_pending", kRebootNeeded);
    report(a, "disks", kDisksRootFull);
    report(b, "disks", kDisksHealthy);
    report(c, "disks", kDisksHealthy);
    ASSERT_TRUE(compliance_->evaluator().evaluate_all(clock_.now_ms()).ok());

    const Policy reboot = seeded(kNoRebootPolicy);
    auto all = compliance_->summary(reboot.id, std::nullopt);
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(all->compliant, 1);
    EXPECT_EQ(all->non_compliant, 1);
    EXPECT_EQ(all->unknown, 1);
    EXPECT_EQ(all->total, 3);
    EXPECT_EQ(all->last_evaluated_ms, clock_.now_ms());

    const AgentView view = std::set<std::string>{a, c};
    auto scoped = compliance_->summary(reboot.id, view);
    ASSERT_TRUE(scoped.ok());
    EXPECT_EQ(scoped->compliant, 1);
    EXPECT_EQ(scoped->non_compliant, 0);
    EXPECT_EQ(scoped->unknown, 1);
    EXPECT_EQ(scoped->total, 2);

    auto nobody = compliance_->summary(reboot.id, std::set<std::string>{});
    ASSERT_TRUE(nobody.ok());
    EXPECT_EQ(nobody->total, 0);
    EXPECT_EQ(nobody->last_evaluated_ms, 0);
    EXPECT_TRUE(to_json(*nobody)["last_evaluated"].is_null());

    EXPECT_EQ(compliance_->summary("ffffffffffff", std::nullopt).status().code(),
              StatusCode::kNotFound);
    auto every = compliance_->summaries(view);
    ASSERT_TRUE(every.ok());
    EXPECT_EQ(every->size(), 3u);
}

TEST_F(ComplianceTest, FleetComplianceOverEnabledPolicies) {
    const std::string a = enroll("web-01");
    const std::string b = enroll("web-02");
    report(a, "reboot_pending", kNoReboot);
    report(b, "reboot_pending", kRebootNeeded);
    report(a, "disks", kDisksHealthy);
    report(b, "disks", kDisksHealthy);
    report(a, "listening_sockets", kSocketsSshdLocal);
    report(b, "listening_sockets", kSocketsSshdLocal);
    ASSERT_TRUE(compliance_->evaluator().evaluate_all(clock_.now_ms()).ok());

    auto fleet = compliance_->fleet_compliance(std::nullopt);
    ASSERT_TRUE(fleet.ok());
    EXPECT_EQ(fleet->policies, 3);
    EXPECT_EQ(fleet->total_checks, 6);
    EXPECT_EQ(fleet->compliant, 5);
    EXPECT_EQ(fleet->non_compliant, 1);
    EXPECT_EQ(fleet->unknown, 0);
    ASSERT_TRUE(fleet->compliance_pct.has_value());
    EXPECT_DOUBLE_EQ(*fleet->compliance_pct, 83.3);

    auto only_b = compliance_->fleet_compliance(std::set<std::string>{b});
    ASSERT_TRUE(only_b.ok());
    EXPECT_EQ(only_b->total_checks, 3);
    EXPECT_DOUBLE_EQ(*only_b->compliance_pct, 66.7);

    PolicyUpdate off;
    off.enabled = false;
    ASSERT_TRUE(compliance_->policies().update(seeded(kNoRebootPolicy).id, off).ok());
    auto after = compliance_->fleet_compliance(std::nullopt);
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(after->policies, 2);
    EXPECT_EQ(after->total_checks, 4);
    EXPECT_DOUBLE_EQ(*after->compliance_pct, 100.0);
}

TEST_F(ComplianceTest, CompliancePctIsNullWhenNothingWasJudged) {
    auto empty = compliance_->fleet_compliance(std::nullopt);
    ASSERT_TRUE(empty.ok());
    EXPECT_EQ(empty->total_checks, 0);
    EXPECT_FALSE(empty->compliance_pct.has_value());
    EXPECT_TRUE(to_json(*empty)["compliance_pct"].is_null());

    enroll("silent-01");  // never reports: every check is unknown
    ASSERT_TRUE(compliance_->evaluator().evaluate_all(clock_.now_ms()).ok());
    auto unknown = compliance_->fleet_compliance(std::nullopt);
    ASSERT_TRUE(unknown.ok());
    EXPECT_EQ(unknown->total_checks, 3);
    EXPECT_EQ(unknown->unknown, 3);
    EXPECT_FALSE(unknown->compliance_pct.has_value());
}

TEST(Summary, PureCountingIgnoresDeletedPolicies) {
    Policy p;
    p.id = "aaaaaaaaaaaa";
    p.name = "p";
    std::vector<StatusCount> counts = {{"aaaaaaaaaaaa", CheckStatus::kCompliant, 4, 10'000},
                                       {"aaaaaaaaaaaa", CheckStatus::kUnknown, 1, 12'000},
                                       {"bbbbbbbbbbbb", CheckStatus::kCompliant, 9, 1}};
    auto s = summarize({p}, counts);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].total, 5);
    EXPECT_EQ(s[0].last_evaluated_ms, 12'000);
    FleetCompliance f = fleet_compliance_of(s);
    EXPECT_DOUBLE_EQ(*f.compliance_pct, 100.0);
}

}  // namespace
}  // namespace yuzu::compliance::testing
