// Rule parsing: strict validation with messages naming the field, and a
// lossless round trip through JSON.
#include "yuzu/compliance/rule.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace yuzu::compliance {
namespace {

using nlohmann::json;

json root_fs_rule() {
    return json::parse(R"({"source": "disks",
        "select": [{"field": "mount", "op": "eq", "value": "/"}],
        "assert": {"field": "used_pct", "op": "lt", "value": 90}, "mode": "all"})");
}

// The refusal message for `rule`, or "" when it parsed.
std::string refusal(const json& rule) {
    auto parsed = parse_rule(rule);
    if (parsed.ok()) return "";
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    return parsed.status().message();
}

TEST(Rule, ParsesAndRoundTrips) {
    auto rule = parse_rule(root_fs_rule());
    ASSERT_TRUE(rule.ok()) << rule.status().to_string();
    EXPECT_EQ(rule->source, "disks");
    EXPECT_EQ(rule->mode, RuleMode::kAll);
    ASSERT_EQ(rule->select.size(), 1u);
    EXPECT_EQ(std::get<std::string>(rule->select[0].value), "/");
    ASSERT_TRUE(rule->assertion.has_value());
    EXPECT_EQ(rule->assertion->op, CompareOp::kLt);
    EXPECT_EQ(std::get<int64_t>(rule->assertion->value), 90);
    EXPECT_EQ(to_json(*rule), root_fs_rule());
    EXPECT_EQ(describe(*rule->assertion), "used_pct lt 90");
    EXPECT_EQ(describe(rule->select), "mount eq \"/\"");
}

TEST(Rule, KeepsFloatsAndBooleans) {
    auto rule = parse_rule(json::parse(R"({"source": "reboot_pending",
        "assert": {"field": "pending", "op": "eq", "value": false}, "mode": "all"})"));
    ASSERT_TRUE(rule.ok()) << rule.status().to_string();
    EXPECT_FALSE(std::get<bool>(rule->assertion->value));
    EXPECT_TRUE(rule->select.empty());
    auto f = parse_rule(json::parse(R"({"source": "cpu",
        "assert": {"field": "load1", "op": "le", "value": 2.5}, "mode": "all"})"));
    ASSERT_TRUE(f.ok());
    EXPECT_DOUBLE_EQ(std::get<double>(f->assertion->value), 2.5);
    EXPECT_EQ(to_json(*f)["assert"]["value"], 2.5);
}

TEST(Rule, OsReleaseTakesAnyLowerCaseKeyAsAString) {
    auto ok = parse_rule(json::parse(R"({"source": "os_release",
        "assert": {"field": "version_codename", "op": "eq", "value": "bookworm"},
        "mode": "all"})"));
    EXPECT_TRUE(ok.ok()) << ok.status().to_string();
    EXPECT_NE(refusal(json::parse(R"({"source": "os_release",
        "assert": {"field": "VERSION", "op": "eq", "value": "12"}, "mode": "all"})")),
              "");
    EXPECT_NE(refusal(json::parse(R"({"source": "os_release",
        "assert": {"field": "version_id", "op": "eq", "value": 12}, "mode": "all"})")),
              "");
}

TEST(Rule, RefusesUnknownKeysAtEveryLevel) {
    json r = root_fs_rule();
    r["severity"] = "high";
    EXPECT_NE(refusal(r).find("rule: unknown key 'severity'"), std::string::npos) << refusal(r);
    r = root_fs_rule();
    r["select"][0]["negate"] = true;
    EXPECT_NE(refusal(r).find("rule.select[0]: unknown key 'negate'"), std::string::npos);
    r = root_fs_rule();
    r["assert"]["unit"] = "%";
    EXPECT_NE(refusal(r).find("rule.assert: unknown key 'unit'"), std::string::npos);
}

TEST(Rule, RefusesUnknownSourcesFieldsAndOperators) {
    json r = root_fs_rule();
    r["source"] = "disk";
    EXPECT_NE(refusal(r).find("rule.source: unknown inventory source 'disk'"), std::string::npos);
    r = root_fs_rule();
    r["assert"]["field"] = "used_percent";
    EXPECT_NE(refusal(r).find("rule.assert.field: source 'disks' has no field 'used_percent'"),
              std::string::npos)
        << refusal(r);
    r = root_fs_rule();
    r["assert"]["op"] = "<";
    EXPECT_NE(refusal(r).find("rule.assert.op: unknown operator '<'"), std::string::npos);
    r = root_fs_rule();
    r["mode"] = "every";
    EXPECT_NE(refusal(r).find("rule.mode: unknown mode 'every'"), std::string::npos);
    r = root_fs_rule();
    r.erase("mode");
    EXPECT_NE(refusal(r).find("rule.mode: missing"), std::string::npos);
    r = root_fs_rule();
    r.erase("source");
    EXPECT_NE(refusal(r).find("rule.source: missing"), std::string::npos);
}

TEST(Rule, RefusesValuesOfTheWrongType) {
    json r = root_fs_rule();
    r["assert"]["value"] = "90";
    EXPECT_NE(refusal(r).find("rule.assert.value: field 'used_pct' needs a number"),
              std::string::npos);
    r = root_fs_rule();
    r["select"][0]["value"] = json::array({"/"});
    EXPECT_NE(refusal(r).find("rule.select[0].value: field 'mount' needs a string"),
              std::string::npos);
    r = root_fs_rule();
    r["select"][0]["value"] = nullptr;
    EXPECT_NE(refusal(r).find("rule.select[0].value"), std::string::npos);
    json b = json::parse(R"({"source": "reboot_pending",
        "assert": {"field": "pending", "op": "eq", "value": 0}, "mode": "all"})");
    EXPECT_NE(refusal(b).find("rule.assert.value: field 'pending' needs true or false"),
              std::string::npos);
    r = root_fs_rule();
    r["select"][0]["value"] = std::string(kMaxRuleStringValueBytes + 1, 'x');
    EXPECT_NE(refusal(r).find("longer than"), std::string::npos);
}

TEST(Rule, OrderingOperatorsNeedNumericFields) {
    json r = root_fs_rule();
    r["select"][0]["op"] = "gt";
    EXPECT_NE(refusal(r).find("rule.select[0].op: 'gt' compares numbers; field 'mount' is a "
                              "string"),
              std::string::npos)
        << refusal(r);
}

TEST(Rule, ModesConstrainTheAssertion) {
    json r = root_fs_rule();
    r["assert"] = nullptr;
    EXPECT_NE(refusal(r).find("rule.assert: mode 'all' needs"), std::string::npos);
    r = root_fs_rule();
    r["mode"] = "none";
    EXPECT_NE(refusal(r).find("rule.assert: must be null in mode 'none'"), std::string::npos);
    r["assert"] = nullptr;
    EXPECT_EQ(refusal(r), "");
    r["mode"] = "any";
    EXPECT_EQ(refusal(r), "") << "any without assert means: some element is selected";
}

TEST(Rule, RefusesMalformedShapes) {
    EXPECT_NE(refusal(json::array()).find("rule: must be an object"), std::string::npos);
    json r = root_fs_rule();
    r["select"] = r["select"][0];
    EXPECT_NE(refusal(r).find("rule.select: must be an array"), std::string::npos);
    r = root_fs_rule();
    r["select"] = json::array();
    for (size_t i = 0; i <= kMaxSelectConditions; ++i)
        r["select"].push_back(root_fs_rule()["select"][0]);
    EXPECT_NE(refusal(r).find("at most"), std::string::npos);
    r = root_fs_rule();
    r["assert"].erase("value");
    EXPECT_NE(refusal(r).find("rule.assert.value: missing"), std::string::npos);
    EXPECT_FALSE(parse_rule_text("{not json").ok());
}

TEST(Rule, EverySourceIsKnownAndShaped) {
    EXPECT_EQ(rule_sources().size(), 12u);
    ASSERT_NE(find_source("listening_sockets"), nullptr);
    EXPECT_TRUE(find_source("listening_sockets")->is_array);
    ASSERT_NE(find_source("memory"), nullptr);
    EXPECT_FALSE(find_source("memory")->is_array);
    EXPECT_EQ(find_source("registry"), nullptr);
}

}  // namespace
}  // namespace yuzu::compliance
