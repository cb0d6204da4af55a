// PolicyStore: the seeded policies (first open only), CRUD with strict
// validation, and results that go away with the policy they describe.
#include "yuzu/compliance/policy_store.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "compliance_fixture.hpp"
#include "yuzu/compliance/compliance_json.hpp"

namespace yuzu::compliance::testing {
namespace {

using nlohmann::json;

NewPolicy ssh_unit_policy(const std::string& name = "ssh unit active") {
    NewPolicy p;
    p.name = name;
    p.description = "ssh.service is active";
    p.scope_expression = "os = \"linux\"";
    auto rule = parse_rule_text(R"({"source": "systemd_units",
        "select": [{"field": "unit", "op": "eq", "value": "ssh.service"}],
        "assert": {"field": "active", "op": "eq", "value": "active"}, "mode": "any"})");
    EXPECT_TRUE(rule.ok());
    if (rule.ok()) p.rule = *rule;
    p.created_by = "alice";
    return p;
}

TEST_F(ComplianceTest, SeedsThreeRealPoliciesOnFirstOpen) {
    auto all = compliance_->policies().list();
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 3u);
    const Policy reboot = seeded(kNoRebootPolicy);
    EXPECT_EQ(reboot.rule.source, "reboot_pending");
    EXPECT_EQ(reboot.rule.mode, RuleMode::kAll);
    EXPECT_TRUE(reboot.enabled);
    EXPECT_EQ(reboot.scope_expression, "");
    EXPECT_EQ(reboot.created_by, "system");
    EXPECT_TRUE(std::regex_match(reboot.id, std::regex("^[0-9a-f]{12}$"))) << reboot.id;
    const Policy root = seeded(kRootFsPolicy);
    EXPECT_EQ(describe(root.rule.select), "mount eq \"/\"");
    EXPECT_EQ(describe(*root.rule.assertion), "used_pct lt 90");
    const Policy sshd = seeded(kSshdPolicy);
    EXPECT_EQ(sshd.rule.mode, RuleMode::kNone);
    EXPECT_EQ(describe(sshd.rule.select), "port eq 22 and address eq \"0.0.0.0\"");
    EXPECT_FALSE(sshd.rule.assertion.has_value());
}

TEST_F(ComplianceTest, SeedsNeverComeBack) {
    const Policy reboot = seeded(kNoRebootPolicy);
    ASSERT_TRUE(compliance_->policies().remove(reboot.id).ok());
    open();
    auto all = compliance_->policies().list();
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(all->size(), 2u);
    for (const auto& p : *all) EXPECT_NE(p.name, kNoRebootPolicy);
}

TEST_F(ComplianceTest, CreatesGetsListsUpdatesAndRemoves) {
    clock_.advance_ms(5000);
    auto created = compliance_->policies().create(ssh_unit_policy());
    ASSERT_TRUE(created.ok()) << created.status().to_string();
    EXPECT_EQ(created->created_at_ms, clock_.now_ms());
    auto got = compliance_->policies().get(created->id);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(to_json(*got), to_json(*created));
    EXPECT_EQ(got->created_by, "alice");

    clock_.advance_ms(1000);
    PolicyUpdate u;
    u.description = "the SSH daemon runs";
    u.enabled = false;
    auto updated = compliance_->policies().update(created->id, u);
    ASSERT_TRUE(updated.ok()) << updated.status().to_string();
    EXPECT_EQ(updated->description, "the SSH daemon runs");
    EXPECT_FALSE(updated->enabled);
    EXPECT_EQ(updated->name, "ssh unit active");
    EXPECT_EQ(updated->updated_at_ms, clock_.now_ms());
    EXPECT_FALSE(compliance_->policies().get(created->id)->enabled);

    auto all = compliance_->policies().list();
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(all->size(), 4u);
    ASSERT_TRUE(compliance_->policies().remove(created->id).ok());
    EXPECT_EQ(compliance_->policies().get(created->id).status().code(), StatusCode::kNotFound);
    EXPECT_EQ(compliance_->policies().remove(created->id).code(), StatusCode::kNotFound);
    EXPECT_EQ(compliance_->policies().update(created->id, u).status().code(),
              StatusCode::kNotFound);
}

TEST_F(ComplianceTest, RefusesBadPolicies) {
    NewPolicy p = ssh_unit_policy(kRootFsPolicy);
    EXPECT_EQ(compliance_->policies().create(p).status().code(), StatusCode::kAlreadyExists);
    p = ssh_unit_policy("");
    auto empty = compliance_->policies().create(p);
    EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(empty.status().message().find("name"), std::string::npos);
    p = ssh_unit_policy("bell\a");
    EXPECT_EQ(compliance_->policies().create(p).status().code(), StatusCode::kInvalidArgument);
    p = ssh_unit_policy();
    p.scope_expression = "os = ";
    auto scope = compliance_->policies().create(p);
    EXPECT_EQ(scope.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(scope.status().message().rfind("scope_expression: ", 0), 0u)
        << scope.status().message();
    p = ssh_unit_policy();
    p.rule.assertion->op = CompareOp::kGt;  // ordering on a string field
    EXPECT_EQ(compliance_->policies().create(p).status().code(), StatusCode::kInvalidArgument);
    p = ssh_unit_policy();
    p.description = std::string(kMaxPolicyDescriptionBytes + 1, 'd');
    EXPECT_EQ(compliance_->policies().create(p).status().code(), StatusCode::kInvalidArgument);

    auto created = compliance_->policies().create(ssh_unit_policy());
    ASSERT_TRUE(created.ok());
    PolicyUpdate rename;
    rename.name = kSshdPolicy;
    EXPECT_EQ(compliance_->policies().update(created->id, rename).status().code(),
              StatusCode::kAlreadyExists);
    rename.name = "ssh unit active";  // its own name is fine
    EXPECT_TRUE(compliance_->policies().update(created->id, rename).ok());
}

TEST_F(ComplianceTest, ChangingARuleOrDeletingDropsItsResults) {
    const std::string a = enroll("web-01");
    report(a, "reboot_pending", kNoReboot);
    const Policy reboot = seeded(kNoRebootPolicy);
    ASSERT_TRUE(compliance_->evaluator().evaluate_policy(reboot.id).ok());
    EXPECT_EQ(results_of(reboot.id).size(), 1u);

    PolicyUpdate cosmetic;
    cosmetic.description = "reworded";
    ASSERT_TRUE(compliance_->policies().update(reboot.id, cosmetic).ok());
    EXPECT_EQ(results_of(reboot.id).size(), 1u) << "a description change keeps results";

    PolicyUpdate scope;
    scope.scope_expression = "hostname LIKE \"web-%\"";
    ASSERT_TRUE(compliance_->policies().update(reboot.id, scope).ok());
    EXPECT_TRUE(results_of(reboot.id).empty());

    ASSERT_TRUE(compliance_->evaluator().evaluate_policy(reboot.id).ok());
    EXPECT_EQ(results_of(reboot.id).size(), 1u);
    ASSERT_TRUE(compliance_->policies().remove(reboot.id).ok());
    EXPECT_TRUE(results_of(reboot.id).empty());
    std::vector<CheckResult> late{{reboot.id, a, CheckStatus::kCompliant, "x", 1}};
    EXPECT_EQ(compliance_->results().replace(reboot.id, late).code(), StatusCode::kNotFound);
}

TEST_F(ComplianceTest, PolicyJsonBodiesAreStrict) {
    json body = {{"name", "ssh"}, {"rule", json::parse(R"({"source": "listening_sockets", "select":
                    [{"field": "port", "op": "eq", "value": 22}], "assert": null,
                    "mode": "none"})")}};
    auto spec = new_policy_from_json(body, "bob");
    ASSERT_TRUE(spec.ok()) << spec.status().to_string();
    EXPECT_TRUE(spec->enabled);
    EXPECT_EQ(spec->created_by, "bob");
    body["colour"] = "red";
    EXPECT_EQ(new_policy_from_json(body, "bob").status().message(), "unknown field 'colour'");
    body.erase("colour");
    body["enabled"] = "yes";
    EXPECT_EQ(new_policy_from_json(body, "bob").status().message(), "enabled must be a boolean");
    body.erase("enabled");
    body.erase("rule");
    EXPECT_EQ(new_policy_from_json(body, "bob").status().message(), "rule: missing");
    auto update = policy_update_from_json(json{{"enabled", false}});
    ASSERT_TRUE(update.ok());
    EXPECT_EQ(update->enabled, false);
    EXPECT_FALSE(update->rule.has_value());
    EXPECT_FALSE(policy_update_from_json(json{{"rule", {{"source", "disks"}}}}).ok());
}

}  // namespace
}  // namespace yuzu::compliance::testing
