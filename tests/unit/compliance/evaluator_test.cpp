// Evaluation of the seeded policies against real-looking inventory from a
// real fleet: compliant, non-compliant and each kind of unknown.
#include "yuzu/compliance/evaluator.hpp"

#include <gtest/gtest.h>

#include "compliance_fixture.hpp"
#include "yuzu/fleet/tag_store.hpp"

namespace yuzu::compliance::testing {
namespace {

TEST_F(ComplianceTest, SeededPoliciesJudgeRealInventory) {
    const std::string healthy = enroll("web-01");
    const std::string troubled = enroll("db-01");
    const std::string silent = enroll("new-01");
    const std::string stale = enroll("old-01");
    const std::string rhel = enroll("rhel-01");

    report(stale, "reboot_pending", kNoReboot);
    report(stale, "disks", kDisksHealthy);
    clock_.advance_ms(20 * 60 * 1000);  // past the 15-minute bound for `stale`
    report(healthy, "reboot_pending", kNoReboot);
    report(healthy, "disks", kDisksHealthy);
    report(healthy, "listening_sockets", kSocketsSshdLocal);
    report(troubled, "reboot_pending", kRebootNeeded);
    report(troubled, "disks", kDisksRootFull);
    report(troubled, "listening_sockets", kSocketsSshdEverywhere);
    report_unavailable(rhel, "reboot_pending",
                       "no reboot-required marker on this host family and needs-restarting was "
                       "not found");

    auto report = compliance_->evaluator().evaluate_all(clock_.now_ms());
    ASSERT_TRUE(report.ok()) << report.status().to_string();
    EXPECT_EQ(report->policies, 3);
    EXPECT_EQ(report->checks, 15);
    EXPECT_EQ(report->compliant, 3);
    EXPECT_EQ(report->non_compliant, 3);
    EXPECT_EQ(report->unknown, 9);

    auto reboot = results_of(seeded(kNoRebootPolicy).id);
    ASSERT_EQ(reboot.size(), 5u);
    EXPECT_EQ(reboot[healthy].status, CheckStatus::kCompliant);
    EXPECT_EQ(reboot[healthy].detail, "pending false");
    EXPECT_EQ(reboot[healthy].evaluated_at_ms, clock_.now_ms());
    EXPECT_EQ(reboot[troubled].status, CheckStatus::kNonCompliant);
    EXPECT_EQ(reboot[troubled].detail, "pending true");
    EXPECT_EQ(reboot[silent].status, CheckStatus::kUnknown);
    EXPECT_EQ(reboot[silent].detail, "no reboot_pending inventory reported");
    EXPECT_EQ(reboot[stale].status, CheckStatus::kUnknown);
    EXPECT_EQ(reboot[stale].detail, "reboot_pending inventory is 20m old (limit 15m)");
    EXPECT_EQ(reboot[rhel].status, CheckStatus::kUnknown);
    EXPECT_EQ(reboot[rhel].detail.rfind("reboot_pending unavailable: no reboot-required", 0), 0u);

    auto root = results_of(seeded(kRootFsPolicy).id);
    EXPECT_EQ(root[healthy].status, CheckStatus::kCompliant);
    EXPECT_EQ(root[healthy].detail, "used_pct 41.2 on /");
    EXPECT_EQ(root[troubled].status, CheckStatus::kNonCompliant);
    EXPECT_EQ(root[troubled].detail, "used_pct 93.5 on /");
    EXPECT_EQ(root[stale].status, CheckStatus::kUnknown);

    auto sshd = results_of(seeded(kSshdPolicy).id);
    EXPECT_EQ(sshd[healthy].status, CheckStatus::kCompliant);
    EXPECT_EQ(sshd[troubled].status, CheckStatus::kNonCompliant);
    EXPECT_EQ(sshd[troubled].detail, "found tcp 0.0.0.0:22");
    EXPECT_EQ(sshd[silent].status, CheckStatus::kUnknown);
}

TEST_F(ComplianceTest, OfflineAgentsAreJudgedOnTheirLastInventory) {
    const std::string a = enroll("web-01");
    report(a, "reboot_pending", kRebootNeeded);
    ASSERT_TRUE(fleet_->registry().sign_off(a).ok());
    clock_.advance_ms(10 * 60 * 1000);
    ASSERT_FALSE(fleet_->registry().get(a)->online);
    const Policy reboot = seeded(kNoRebootPolicy);
    ASSERT_TRUE(compliance_->evaluator().evaluate_policy(reboot.id).ok());
    EXPECT_EQ(results_of(reboot.id)[a].status, CheckStatus::kNonCompliant);
    clock_.advance_ms(6 * 60 * 1000);  // 16 minutes: past the bound
    ASSERT_TRUE(compliance_->evaluator().evaluate_policy(reboot.id).ok());
    EXPECT_EQ(results_of(reboot.id)[a].status, CheckStatus::kUnknown);
}

TEST_F(ComplianceTest, StalenessBoundIsAParameter) {
    ComplianceOptions options;
    options.stale_after_ms = 60'000;
    open(options);
    EXPECT_EQ(compliance_->evaluator().stale_after_ms(), 60'000);
    const std::string a = enroll("web-01");
    report(a, "reboot_pending", kNoReboot);
    clock_.advance_ms(61'000);
    const Policy reboot = seeded(kNoRebootPolicy);
    ASSERT_TRUE(compliance_->evaluator().evaluate_policy(reboot.id).ok());
    EXPECT_EQ(results_of(reboot.id)[a].status, CheckStatus::kUnknown);
}

TEST_F(ComplianceTest, ScopeSelectsAgentsAndResultsAreReplaced) {
    const std::string web = enroll("web-01");
    const std::string db = enroll("db-01");
    report(web, "reboot_pending", kNoReboot);
    report(db, "reboot_pending", kNoReboot);
    const Policy reboot = seeded(kNoRebootPolicy);
    ASSERT_TRUE(compliance_->evaluator().evaluate_policy(reboot.id).ok());
    EXPECT_EQ(results_of(reboot.id).size(), 2u);

    ASSERT_TRUE(fleet_->tags().set(db, "env", "prod", "api").ok());
    PolicyUpdate u;
    u.scope_expression = "tag:env = \"prod\"";
    ASSERT_TRUE(compliance_->policies().update(reboot.id, u).ok());
    auto report = compliance_->evaluator().evaluate_policy(reboot.id);
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->checks, 1);
    auto rows = results_of(reboot.id);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows.count(db), 1u);

    ASSERT_TRUE(fleet_->tags().remove(db, "env").ok());
    ASSERT_TRUE(compliance_->evaluator().evaluate_policy(reboot.id).ok());
    EXPECT_TRUE(results_of(reboot.id).empty()) << "an agent that left the scope leaves";
}

TEST_F(ComplianceTest, DisabledPoliciesAreNotEvaluated) {
    const std::string a = enroll("web-01");
    report(a, "reboot_pending", kNoReboot);
    const Policy reboot = seeded(kNoRebootPolicy);
    PolicyUpdate off;
    off.enabled = false;
    ASSERT_TRUE(compliance_->policies().update(reboot.id, off).ok());
    EXPECT_EQ(compliance_->evaluator().evaluate_policy(reboot.id).status().code(),
              StatusCode::kFailedPrecondition);
    auto all = compliance_->evaluator().evaluate_all(clock_.now_ms());
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(all->policies, 2);
    EXPECT_TRUE(results_of(reboot.id).empty());
    EXPECT_EQ(compliance_->evaluator().evaluate_policy("000000000000").status().code(),
              StatusCode::kNotFound);
}

TEST_F(ComplianceTest, CancelStopsAPassBetweenPolicies) {
    enroll("web-01");
    std::atomic<bool> cancel{true};
    auto report = compliance_->evaluator().evaluate_all(clock_.now_ms(), &cancel);
    ASSERT_TRUE(report.ok());
    EXPECT_TRUE(report->cancelled);
    EXPECT_EQ(report->policies, 0);
}

TEST_F(ComplianceTest, ManyAgentsAreLoadedInChunks) {
    // More agents than one inventory query returns: every one is judged.
    std::vector<std::string> agents;
    for (int i = 0; i < fleet::kMaxInventoryQueryLimit + 5; ++i) {
        agents.push_back(enroll("node-" + std::to_string(i)));
        report(agents.back(), "reboot_pending", i % 2 == 0 ? kNoReboot : kRebootNeeded);
    }
    const Policy reboot = seeded(kNoRebootPolicy);
    auto report = compliance_->evaluator().evaluate_policy(reboot.id);
    ASSERT_TRUE(report.ok()) << report.status().to_string();
    EXPECT_EQ(report->checks, static_cast<int64_t>(agents.size()));
    EXPECT_EQ(report->unknown, 0);
    EXPECT_EQ(report->compliant, (fleet::kMaxInventoryQueryLimit + 6) / 2);
}

}  // namespace
}  // namespace yuzu::compliance::testing
