// InventoryStore::count_condition: pending reboots and failed services
// counted in SQLite over the stored JSON, inside a view.
#include <gtest/gtest.h>

#include "fleet_fixture.hpp"
#include "yuzu/fleet/inventory_store.hpp"

namespace yuzu::fleet {
namespace {

InventoryItem item(const std::string& source, const std::string& json) {
    InventoryItem it;
    it.source = source;
    it.status = "ok";
    it.data_json = json;
    it.collected_at_ms = 1'000;
    return it;
}

InventoryItem unavailable(const std::string& source) {
    InventoryItem it;
    it.source = source;
    it.status = "unavailable";
    it.reason = "no systemd";
    return it;
}

class InventoryConditionsTest : public FleetTest {
  protected:
    ConditionCount count(InventoryCondition c,
                         const std::optional<std::set<std::string>>& view = std::nullopt,
                         int sample = 10) {
        auto r = fleet_->inventory().count_condition(c, view, sample);
        EXPECT_TRUE(r.ok()) << r.status().to_string();
        return r.ok() ? *r : ConditionCount{};
    }
};

TEST_F(InventoryConditionsTest, CountsPendingRebootsAmongAgentsThatReportedTheSource) {
    auto a = enroll("web-01");
    auto b = enroll("web-02");
    auto c = enroll("web-03");
    auto d = enroll("db-01");  // never reported the source
    auto& inv = fleet_->inventory();
    ASSERT_TRUE(
        inv.replace(a.agent_id, {item("reboot_pending", R"({"pending":true,"packages":[]})")})
            .ok());
    ASSERT_TRUE(
        inv.replace(b.agent_id, {item("reboot_pending", R"({"pending":false,"packages":[]})")})
            .ok());
    ASSERT_TRUE(inv.replace(c.agent_id, {unavailable("reboot_pending")}).ok());
    (void)d;

    const auto all = count(InventoryCondition::kRebootPending);
    EXPECT_EQ(all.reporting, 2);
    EXPECT_EQ(all.unavailable, 1);
    EXPECT_EQ(all.affected, 1);
    ASSERT_EQ(all.first_affected.size(), 1u);
    EXPECT_EQ(all.first_affected[0].agent_id, a.agent_id);
    EXPECT_TRUE(all.first_affected[0].units.empty());

    // Inside a view, agents outside it are not counted at all.
    const auto scoped =
        count(InventoryCondition::kRebootPending, std::set<std::string>{b.agent_id});
    EXPECT_EQ(scoped.reporting, 1);
    EXPECT_EQ(scoped.affected, 0);
    const auto empty = count(InventoryCondition::kRebootPending, std::set<std::string>{});
    EXPECT_EQ(empty.reporting, 0);
}

TEST_F(InventoryConditionsTest, CountsFailedServiceUnitsAndNamesThem) {
    auto a = enroll("web-01");
    auto b = enroll("web-02");
    auto& inv = fleet_->inventory();
    ASSERT_TRUE(
        inv.replace(a.agent_id, {item("systemd_units",
                                      R"([{"unit":"ssh.service","active":"active","sub":"running"},
                                      {"unit":"orders.service","active":"failed","sub":"failed"},
                                      {"unit":"cron.service","active":"failed","sub":"failed"}])")})
            .ok());
    ASSERT_TRUE(inv.replace(b.agent_id,
                            {item("systemd_units",
                                  R"([{"unit":"ssh.service","active":"active","sub":"running"}])")})
                    .ok());
    const auto counted = count(InventoryCondition::kFailedService);
    EXPECT_EQ(counted.reporting, 2);
    EXPECT_EQ(counted.affected, 1);
    ASSERT_EQ(counted.first_affected.size(), 1u);
    EXPECT_EQ(counted.first_affected[0].agent_id, a.agent_id);
    EXPECT_EQ(counted.first_affected[0].units,
              (std::vector<std::string>{"orders.service", "cron.service"}));
}

TEST_F(InventoryConditionsTest, NoAgentPayloadFailsTheCountOrGrowsTheAnswer) {
    auto a = enroll("web-01");
    auto b = enroll("web-02");
    auto c = enroll("web-03");
    auto& inv = fleet_->inventory();
    // Elements of every JSON type beside the one failed unit: strings and
    // numbers must not abort the statement for the whole fleet.
    ASSERT_TRUE(
        inv.replace(a.agent_id,
                    {item("systemd_units",
                          R"(["x", 5, null, true, [1], {"unit":"a.service","active":"failed"}])")})
            .ok());
    // A non-string name is not named; a long one is cut; at most 8 named.
    std::string many =
        "["
        R"({"unit":5,"active":"failed"},)"
        R"({"unit":")" +
        std::string(5000, 'u') + R"(","active":"failed"})";
    for (int i = 0; i < 12; ++i) {
        many += R"(,{"unit":"s)" + std::to_string(i) + R"(.service","active":"failed"})";
    }
    many += "]";
    ASSERT_TRUE(inv.replace(b.agent_id, {item("systemd_units", many)}).ok());
    ASSERT_TRUE(inv.replace(c.agent_id, {item("reboot_pending", R"(["pending", true])")}).ok());

    const auto counted = count(InventoryCondition::kFailedService);
    EXPECT_EQ(counted.reporting, 2);
    EXPECT_EQ(counted.affected, 2);
    ASSERT_EQ(counted.first_affected.size(), 2u);
    const auto& first = counted.first_affected[0].agent_id == a.agent_id
                            ? counted.first_affected[0]
                            : counted.first_affected[1];
    const auto& second = counted.first_affected[0].agent_id == a.agent_id
                             ? counted.first_affected[1]
                             : counted.first_affected[0];
    EXPECT_EQ(first.units, std::vector<std::string>{"a.service"});
    ASSERT_EQ(second.units.size(), static_cast<size_t>(kMaxConditionUnits));
    EXPECT_EQ(second.units[0].size(), static_cast<size_t>(kMaxConditionUnitChars));
    // A reboot_pending payload of the wrong shape reports, but is not pending.
    const auto reboot = count(InventoryCondition::kRebootPending);
    EXPECT_EQ(reboot.reporting, 1);
    EXPECT_EQ(reboot.affected, 0);
}

TEST_F(InventoryConditionsTest, AnUnexpectedShapeCountsAsReportingButNotAffected) {
    auto a = enroll("web-01");
    // An object instead of the array of units: data, but no unit to judge.
    ASSERT_TRUE(fleet_->inventory()
                    .replace(a.agent_id, {item("systemd_units", R"({"active":"failed"})")})
                    .ok());
    const auto counted = count(InventoryCondition::kFailedService);
    EXPECT_EQ(counted.reporting, 1);
    EXPECT_EQ(counted.affected, 0);
}

TEST_F(InventoryConditionsTest, TheSampleIsBoundedAndChecked) {
    auto& inv = fleet_->inventory();
    for (int i = 0; i < 5; ++i) {
        auto a = enroll("web-0" + std::to_string(i));
        ASSERT_TRUE(inv.replace(a.agent_id, {item("reboot_pending", R"({"pending":true})")}).ok());
    }
    const auto two = count(InventoryCondition::kRebootPending, std::nullopt, 2);
    EXPECT_EQ(two.affected, 5);
    EXPECT_EQ(two.first_affected.size(), 2u);
    EXPECT_LT(two.first_affected[0].agent_id, two.first_affected[1].agent_id);
    EXPECT_EQ(
        inv.count_condition(InventoryCondition::kRebootPending, std::nullopt, 101).status().code(),
        StatusCode::kInvalidArgument);
    EXPECT_EQ(
        inv.count_condition(InventoryCondition::kRebootPending, std::nullopt, -1).status().code(),
        StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace yuzu::fleet
