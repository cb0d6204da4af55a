// Applying rules to agent data: each mode, the unknown cases and the detail
// a person reads.
#include "yuzu/compliance/rule_check.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compliance_fixture.hpp"

namespace yuzu::compliance {
namespace {

using nlohmann::json;
namespace t = testing;

Rule rule(const char* text) {
    auto r = parse_rule_text(text);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? *r : Rule{};
}

const char kRootFs[] = R"({"source": "disks",
    "select": [{"field": "mount", "op": "eq", "value": "/"}],
    "assert": {"field": "used_pct", "op": "lt", "value": 90}, "mode": "all"})";
const char kSshd[] = R"({"source": "listening_sockets",
    "select": [{"field": "port", "op": "eq", "value": 22},
               {"field": "address", "op": "eq", "value": "0.0.0.0"}],
    "assert": null, "mode": "none"})";
const char kNoReboot[] = R"({"source": "reboot_pending",
    "assert": {"field": "pending", "op": "eq", "value": false}, "mode": "all"})";

TEST(RuleCheck, AllModeJudgesEverySelectedElement) {
    const Rule r = rule(kRootFs);
    CheckOutcome ok = apply_rule(r, json::parse(t::kDisksHealthy));
    EXPECT_EQ(ok.status, CheckStatus::kCompliant);
    EXPECT_EQ(ok.detail, "used_pct 41.2 on /");
    CheckOutcome full = apply_rule(r, json::parse(t::kDisksRootFull));
    EXPECT_EQ(full.status, CheckStatus::kNonCompliant);
    EXPECT_EQ(full.detail, "used_pct 93.5 on /");
}

TEST(RuleCheck, AllModeNeedsASelectedElement) {
    CheckOutcome none = apply_rule(rule(kRootFs), json::parse(R"([{"mount": "/home",
        "used_pct": 12.0}])"));
    EXPECT_EQ(none.status, CheckStatus::kNonCompliant);
    EXPECT_EQ(none.detail, "no disks entry matches mount eq \"/\"");
}

TEST(RuleCheck, AllModeOverManyElementsCountsViolations) {
    const Rule r = rule(R"({"source": "disks", "select": [],
        "assert": {"field": "used_pct", "op": "lt", "value": 90}, "mode": "all"})");
    CheckOutcome bad = apply_rule(r, json::parse(R"([{"mount": "/", "used_pct": 95},
        {"mount": "/var", "used_pct": 91.5}, {"mount": "/srv", "used_pct": 3}])"));
    EXPECT_EQ(bad.status, CheckStatus::kNonCompliant);
    EXPECT_EQ(bad.detail, "used_pct 95 on / (and 1 more)");
    CheckOutcome good = apply_rule(r, json::parse(t::kDisksHealthy));
    EXPECT_EQ(good.status, CheckStatus::kCompliant);
    EXPECT_EQ(good.detail, "2 disks entries meet used_pct lt 90");
}

TEST(RuleCheck, MissingFieldIsUnknownNotFalse) {
    CheckOutcome o = apply_rule(rule(kRootFs), json::parse(R"([{"mount": "/"}])"));
    EXPECT_EQ(o.status, CheckStatus::kUnknown);
    EXPECT_EQ(o.detail, "used_pct missing on /");
    CheckOutcome typed = apply_rule(rule(kRootFs), json::parse(R"([{"mount": "/",
        "used_pct": "93"}])"));
    EXPECT_EQ(typed.status, CheckStatus::kUnknown);
    // A violation elsewhere still decides.
    CheckOutcome mixed =
        apply_rule(rule(R"({"source": "disks", "select": [],
            "assert": {"field": "used_pct", "op": "lt", "value": 90}, "mode": "all"})"),
                   json::parse(R"([{"mount": "/a"}, {"mount": "/b", "used_pct": 99}])"));
    EXPECT_EQ(mixed.status, CheckStatus::kNonCompliant);
}

TEST(RuleCheck, NoneModeFindsForbiddenElements) {
    const Rule r = rule(kSshd);
    CheckOutcome ok = apply_rule(r, json::parse(t::kSocketsSshdLocal));
    EXPECT_EQ(ok.status, CheckStatus::kCompliant);
    EXPECT_EQ(ok.detail,
              "no listening_sockets entry matches port eq 22 and address eq \"0.0.0.0\"");
    CheckOutcome bad = apply_rule(r, json::parse(t::kSocketsSshdEverywhere));
    EXPECT_EQ(bad.status, CheckStatus::kNonCompliant);
    EXPECT_EQ(bad.detail, "found tcp 0.0.0.0:22");
    EXPECT_EQ(apply_rule(r, json::array()).status, CheckStatus::kCompliant);
}

TEST(RuleCheck, AnyModeNeedsOneSatisfyingElement) {
    const Rule r = rule(R"({"source": "systemd_units",
        "select": [{"field": "unit", "op": "eq", "value": "ssh.service"}],
        "assert": {"field": "active", "op": "eq", "value": "active"}, "mode": "any"})");
    CheckOutcome ok = apply_rule(r, json::parse(R"([
        {"unit": "cron.service", "load": "loaded", "active": "active", "sub": "running"},
        {"unit": "ssh.service", "load": "loaded", "active": "active", "sub": "running"}])"));
    EXPECT_EQ(ok.status, CheckStatus::kCompliant);
    EXPECT_EQ(ok.detail, "active \"active\" on ssh.service");
    CheckOutcome down = apply_rule(r, json::parse(R"([
        {"unit": "ssh.service", "load": "loaded", "active": "failed", "sub": "failed"}])"));
    EXPECT_EQ(down.status, CheckStatus::kNonCompliant);
    CheckOutcome absent = apply_rule(r, json::array());
    EXPECT_EQ(absent.status, CheckStatus::kNonCompliant);
    EXPECT_EQ(absent.detail, "no systemd_units entry matches unit eq \"ssh.service\"");
}

TEST(RuleCheck, AnyModeWithoutAssertionIsPresence) {
    const Rule r = rule(R"({"source": "packages",
        "select": [{"field": "name", "op": "eq", "value": "openssh-server"}],
        "assert": null, "mode": "any"})");
    CheckOutcome has = apply_rule(r, json::parse(R"([{"name": "openssh-server",
        "version": "1:9.2p1-2+deb12u2", "arch": "amd64"}])"));
    EXPECT_EQ(has.status, CheckStatus::kCompliant);
    EXPECT_EQ(has.detail, "found openssh-server 1:9.2p1-2+deb12u2");
    EXPECT_EQ(apply_rule(r, json::parse(R"([{"name": "bash", "version": "5.2", "arch":
        "amd64"}])"))
                  .status,
              CheckStatus::kNonCompliant);
}

TEST(RuleCheck, ObjectSourceIsOneElement) {
    const Rule r = rule(kNoReboot);
    CheckOutcome ok = apply_rule(r, json::parse(t::kNoReboot));
    EXPECT_EQ(ok.status, CheckStatus::kCompliant);
    EXPECT_EQ(ok.detail, "pending false");
    CheckOutcome bad = apply_rule(r, json::parse(t::kRebootNeeded));
    EXPECT_EQ(bad.status, CheckStatus::kNonCompliant);
    EXPECT_EQ(bad.detail, "pending true");
}

TEST(RuleCheck, NumbersCompareAcrossIntegerAndFloat) {
    const Rule r = rule(R"({"source": "memory",
        "assert": {"field": "available_bytes", "op": "ge", "value": 1073741824}, "mode": "all"})");
    EXPECT_EQ(apply_rule(r, json::parse(R"({"available_bytes": 1073741824})")).status,
              CheckStatus::kCompliant);
    EXPECT_EQ(apply_rule(r, json::parse(R"({"available_bytes": 1073741823.5})")).status,
              CheckStatus::kNonCompliant);
    EXPECT_EQ(apply_rule(r, json::parse(R"({"available_bytes": 18446744073709551615})")).status,
              CheckStatus::kCompliant);
}

TEST(RuleCheck, WrongDataShapeIsUnknown) {
    EXPECT_EQ(apply_rule(rule(kRootFs), json::parse(R"({"mount": "/"})")).status,
              CheckStatus::kUnknown);
    EXPECT_EQ(apply_rule(rule(kNoReboot), json::array()).status, CheckStatus::kUnknown);
}

TEST(RuleCheck, InventoryMissingUnavailableOrStaleIsUnknown) {
    const Rule r = rule(kNoReboot);
    const int64_t now = 1'700'000'000'000;
    const int64_t bound = 900'000;
    CheckOutcome missing = check_inventory(r, nullptr, now, bound);
    EXPECT_EQ(missing.status, CheckStatus::kUnknown);
    EXPECT_EQ(missing.detail, "no reboot_pending inventory reported");

    fleet::InventoryItem item;
    item.source = "reboot_pending";
    item.status = "unavailable";
    item.reason = "no reboot-required marker on this host family";
    item.data_json = "null";
    item.received_at_ms = now;
    CheckOutcome unavailable = check_inventory(r, &item, now, bound);
    EXPECT_EQ(unavailable.status, CheckStatus::kUnknown);
    EXPECT_EQ(unavailable.detail,
              "reboot_pending unavailable: no reboot-required marker on this host family");

    item.status = "ok";
    item.reason.clear();
    item.data_json = t::kRebootNeeded;
    item.received_at_ms = now - bound;
    EXPECT_EQ(check_inventory(r, &item, now, bound).status, CheckStatus::kNonCompliant)
        << "exactly at the bound is still fresh";
    item.received_at_ms = now - bound - 1000;
    CheckOutcome stale = check_inventory(r, &item, now, bound);
    EXPECT_EQ(stale.status, CheckStatus::kUnknown);
    EXPECT_EQ(stale.detail, "reboot_pending inventory is 15m old (limit 15m)");
}

TEST(RuleCheck, DetailIsBounded) {
    const Rule r = rule(R"({"source": "packages",
        "select": [{"field": "arch", "op": "eq", "value": "amd64"}],
        "assert": null, "mode": "none"})");
    json pkgs =
        json::array({{{"name", std::string(600, 'p')}, {"version", "1"}, {"arch", "amd64"}}});
    CheckOutcome o = apply_rule(r, pkgs);
    EXPECT_EQ(o.status, CheckStatus::kNonCompliant);
    EXPECT_EQ(o.detail.size(), kMaxDetailBytes);
}

TEST(RuleCheck, HumanDurations) {
    EXPECT_EQ(human_duration_ms(45'000), "45s");
    EXPECT_EQ(human_duration_ms(12 * 60'000), "12m");
    EXPECT_EQ(human_duration_ms((3 * 60 + 5) * 60'000), "3h 5m");
    EXPECT_EQ(human_duration_ms(int64_t{52} * 3600'000), "2d 4h");
    EXPECT_EQ(human_duration_ms(-5), "0s");
}

TEST(RuleCheck, StatusNamesRoundTrip) {
    for (auto s : {CheckStatus::kCompliant, CheckStatus::kNonCompliant, CheckStatus::kUnknown}) {
        EXPECT_EQ(parse_check_status(check_status_name(s)), s);
    }
    EXPECT_FALSE(parse_check_status("error").has_value());
}

}  // namespace
}  // namespace yuzu::compliance
