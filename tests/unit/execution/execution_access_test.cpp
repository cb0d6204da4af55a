// resolve_targets, execution_visible and the shared JSON of a dispatch: what
// REST and MCP both rely on to decide who is reached and who sees what.
#include "yuzu/execution/execution_access.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "execution_fixture.hpp"
#include "yuzu/execution/execution_json.hpp"

namespace yuzu::execution::testing {
namespace {

using Access = ExecutionFixture;

TEST_F(Access, EveryAgentInTheViewSkippingRevokedButKeepingOffline) {
    const std::string a = enroll("web-01");
    const std::string b = enroll("web-02");
    const std::string revoked = enroll("old-01");
    ASSERT_TRUE(fleet_->enrollment().revoke_device(revoked).ok());
    clock_.advance_ms(60'000);  // everyone offline now
    const std::string fresh = enroll("web-03");

    auto all = resolve_targets(*fleet_, nullptr, std::nullopt, TargetSelection{});
    ASSERT_TRUE(all.ok()) << all.status().to_string();
    std::vector<std::string> expected = {a, b, fresh};
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(all->agent_ids, expected) << "offline agents are targeted, revoked ones are not";
    EXPECT_EQ(all->scope_expression, kAllAgentsScope);

    const AgentView only_a = std::set<std::string>{a};
    auto scoped = resolve_targets(*fleet_, nullptr, only_a, TargetSelection{"__all__", {}});
    ASSERT_TRUE(scoped.ok());
    EXPECT_EQ(scoped->agent_ids, std::vector<std::string>{a});
}

TEST_F(Access, ExplicitIdsOutsideTheViewReadExactlyLikeUnknownOnes) {
    const std::string a = enroll("web-01");
    const std::string b = enroll("web-02");
    const AgentView only_a = std::set<std::string>{a};
    TargetSelection outside;
    outside.agent_ids = std::vector<std::string>{a, b};
    auto refused = resolve_targets(*fleet_, nullptr, only_a, outside);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kNotFound);
    EXPECT_EQ(refused.status().message(), "agent not found: " + b);

    const std::string ghost(32, 'e');
    TargetSelection unknown;
    unknown.agent_ids = std::vector<std::string>{ghost};
    auto missing = resolve_targets(*fleet_, nullptr, std::nullopt, unknown);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.status().message(), "agent not found: " + ghost);

    TargetSelection twice;
    twice.agent_ids = std::vector<std::string>{a, a};
    auto deduped = resolve_targets(*fleet_, nullptr, only_a, twice);
    ASSERT_TRUE(deduped.ok());
    EXPECT_EQ(deduped->agent_ids, std::vector<std::string>{a});
}

TEST_F(Access, ScopesResolveWithinTheViewAndCannotBeCombinedWithIds) {
    const std::string web = enroll("web-01");
    enroll("db-01");
    auto match = resolve_targets(*fleet_, nullptr, std::nullopt,
                                 TargetSelection{"hostname LIKE \"web-%\"", {}});
    ASSERT_TRUE(match.ok()) << match.status().to_string();
    EXPECT_EQ(match->agent_ids, std::vector<std::string>{web});
    EXPECT_NE(match->scope_expression.find("hostname"), std::string::npos);
    auto hidden = resolve_targets(*fleet_, nullptr, std::set<std::string>{},
                                  TargetSelection{"hostname LIKE \"web-%\"", {}});
    ASSERT_TRUE(hidden.ok());
    EXPECT_TRUE(hidden->agent_ids.empty());

    auto bad = resolve_targets(*fleet_, nullptr, std::nullopt, TargetSelection{"hostname ==", {}});
    EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
    TargetSelection both{"os = \"linux\"", std::vector<std::string>{web}};
    EXPECT_EQ(resolve_targets(*fleet_, nullptr, std::nullopt, both).status().code(),
              StatusCode::kInvalidArgument);
}

TEST_F(Access, AnExecutionIsVisibleToItsDispatcherAndToViewsThatShareAnAgent) {
    ExecutionRecord record;
    record.dispatched_by = "alice";
    std::vector<AgentExecutionState> agents(2);
    agents[0].agent_id = "a";
    agents[1].agent_id = "b";
    auth::Principal alice;
    alice.username = "alice";
    auth::Principal bob;
    bob.username = "bob";
    EXPECT_TRUE(execution_visible(record, agents, bob, std::nullopt));
    EXPECT_TRUE(execution_visible(record, agents, alice, std::set<std::string>{}));
    EXPECT_TRUE(execution_visible(record, agents, bob, std::set<std::string>{"b"}));
    EXPECT_FALSE(execution_visible(record, agents, bob, std::set<std::string>{"c"}));
    auto kept = states_in_view(agents, std::set<std::string>{"b"});
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(kept[0].agent_id, "b");
}

TEST_F(Access, ADispatchThatReachedNobodyIsStillAResult) {
    auto none = tracker().dispatch(spec_for({}));
    ASSERT_TRUE(none.ok()) << none.status().to_string();
    nlohmann::json out = to_json(*none);
    EXPECT_EQ(out["status"], "no_agents_reached");
    EXPECT_EQ(out["execution_status"], "cancelled");
    EXPECT_EQ(out["agents_reached"], 0);
    EXPECT_EQ(out["execution_id"], none->execution_id);

    const std::string a = enroll("web-01");
    auto one = tracker().dispatch(spec_for({a}));
    ASSERT_TRUE(one.ok());
    nlohmann::json running = to_json(*one);
    EXPECT_EQ(running["status"], "running");
    EXPECT_FALSE(running.contains("message"));
    auto record = tracker().get(one->execution_id);
    ASSERT_TRUE(record.ok());
    nlohmann::json as_json = to_json(*record);
    EXPECT_EQ(as_json["params"], nlohmann::json::object()) << "params are embedded, not text";
    EXPECT_EQ(as_json["completed_at"], nullptr);
    EXPECT_EQ(as_json["agents_outstanding"], 1);
}

}  // namespace
}  // namespace yuzu::execution::testing
