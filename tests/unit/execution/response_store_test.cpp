#include "yuzu/execution/response_store.hpp"

#include <gtest/gtest.h>

#include <set>

#include "unit/execution/execution_fixture.hpp"

namespace yuzu::execution::testing {
namespace {

class ResponseStoreTest : public ExecutionFixture {
  protected:
    void SetUp() override {
        ExecutionFixture::SetUp();
        a_ = enroll("web-01");
        b_ = enroll("web-02");
        c_ = enroll("db-01");
    }

    // Dispatches plugin.action to the agents and answers with the outputs
    // given, one per agent, in that order.
    DispatchResult run(const std::string& plugin, const std::string& action,
                       const std::vector<std::pair<std::string, std::string>>& answers) {
        std::vector<std::string> agents;
        for (const auto& [agent, output] : answers) agents.push_back(agent);
        auto d = tracker().dispatch(spec_for(agents, plugin, action));
        EXPECT_TRUE(d.ok()) << d.status().to_string();
        for (const auto& [agent, output] : answers) {
            clock_.advance_ms(10);
            const bool ok = output != "FAIL";
            Status answered = answer(agent, ok ? "success" : "failure", ok ? output : "null",
                                     ok ? "" : "it broke");
            EXPECT_TRUE(answered.ok()) << answered.to_string();
        }
        return d.ok() ? *d : DispatchResult{};
    }

    ResponseStore& responses() { return executions_->responses(); }

    std::string a_, b_, c_;
};

TEST_F(ResponseStoreTest, QueryByExecutionReturnsItsRowsOldestFirst) {
    auto first =
        run("os", "info", {{b_, R"({"kernel":"6.1"})"}, {a_, R"({"kernel":"6.2"})"}, {c_, "FAIL"}});
    run("os", "info", {{a_, R"({"kernel":"6.3"})"}});

    ResponseQuery q;
    q.execution_id = first.execution_id;
    auto page = responses().query(q);
    ASSERT_TRUE(page.ok()) << page.status().to_string();
    ASSERT_EQ(page->rows.size(), 3u);
    EXPECT_FALSE(page->truncated);
    EXPECT_EQ(page->rows[0].agent_id, b_);
    EXPECT_EQ(page->rows[0].output_json, R"({"kernel":"6.1"})");
    EXPECT_EQ(page->rows[0].status, "success");
    EXPECT_EQ(page->rows[0].execution_id, first.execution_id);
    EXPECT_EQ(page->rows[0].duration_ms, 5);
    EXPECT_LT(page->rows[0].timestamp_ms, page->rows[1].timestamp_ms);
    EXPECT_EQ(page->rows[2].status, "failure");
    EXPECT_EQ(page->rows[2].error, "it broke");
    EXPECT_EQ(page->rows[2].output_json, "null");

    q.agent_id = a_;
    EXPECT_EQ(responses().query(q)->rows.size(), 1u);
    q.agent_id.clear();
    q.status = "failure";
    EXPECT_EQ(responses().query(q)->rows.size(), 1u);
}

TEST_F(ResponseStoreTest, InstructionIdMatchesCommandIdOrDefinitionAndExecutionIdWins) {
    auto first = run("os", "info", {{a_, "{}"}, {b_, "{}"}});
    auto second = run("os", "info", {{c_, "{}"}});
    run("disk", "usage", {{a_, "[]"}});

    ResponseQuery by_command;
    by_command.instruction_id = first.command_id;
    EXPECT_EQ(responses().query(by_command)->rows.size(), 2u);
    ResponseQuery by_definition;
    by_definition.instruction_id = "os.info";
    EXPECT_EQ(responses().query(by_definition)->rows.size(), 3u);
    ResponseQuery both;
    both.instruction_id = "os.info";
    both.execution_id = second.execution_id;
    auto rows = responses().query(both);
    ASSERT_EQ(rows->rows.size(), 1u);
    EXPECT_EQ(rows->rows[0].agent_id, c_);

    ResponseQuery none;
    EXPECT_EQ(responses().query(none).status().code(), StatusCode::kInvalidArgument);
    ResponseQuery bad_status;
    bad_status.instruction_id = "os.info";
    bad_status.status = "great";
    EXPECT_EQ(responses().query(bad_status).status().code(), StatusCode::kInvalidArgument);
    ResponseQuery unknown;
    unknown.execution_id = "0000";
    EXPECT_TRUE(responses().query(unknown)->rows.empty());
}

TEST_F(ResponseStoreTest, LimitIsClampedAndTruncationReported) {
    auto d = run("os", "info", {{a_, "{}"}, {b_, "{}"}, {c_, "{}"}});
    ResponseQuery q;
    q.execution_id = d.execution_id;
    q.limit = 0;  // clamps to 1
    auto one = responses().query(q);
    EXPECT_EQ(one->rows.size(), 1u);
    EXPECT_TRUE(one->truncated);
    q.limit = -1;
    EXPECT_EQ(responses().query(q)->rows.size(), 1u);
    q.limit = 5'000'000'000;  // clamps to the cap, not to 1
    auto all = responses().query(q);
    EXPECT_EQ(all->rows.size(), 3u);
    EXPECT_FALSE(all->truncated);
    q.limit = 3;
    EXPECT_FALSE(responses().query(q)->truncated);
}

TEST_F(ResponseStoreTest, OnlyAgentsRestrictsBeforeTheLimit) {
    auto d = run("os", "info", {{a_, "{}"}, {b_, "{}"}, {c_, "{}"}});
    ResponseQuery q;
    q.execution_id = d.execution_id;
    q.only_agents = std::set<std::string>{c_};
    q.limit = 1;
    auto page = responses().query(q);
    ASSERT_EQ(page->rows.size(), 1u);
    EXPECT_EQ(page->rows[0].agent_id, c_);
    EXPECT_FALSE(page->truncated);
    q.only_agents = std::set<std::string>{};
    EXPECT_TRUE(responses().query(q)->rows.empty());
}

TEST_F(ResponseStoreTest, AggregatesOutputRecordsByField) {
    auto d = run("process", "list",
                 {{a_, R"([{"name":"sshd","rss_bytes":100},{"name":"bash","rss_bytes":50}])"},
                  {b_, R"([{"name":"sshd","rss_bytes":300},{"name":"cron"}])"},
                  {c_, "FAIL"}});
    AggregateQuery q;
    q.execution_id = d.execution_id;
    q.group_by = "name";
    auto counted = responses().aggregate(q);
    ASSERT_TRUE(counted.ok()) << counted.status().to_string();
    EXPECT_EQ(counted->responses_scanned, 3);
    EXPECT_EQ(counted->records, 4);
    ASSERT_EQ(counted->groups.size(), 3u);
    EXPECT_EQ(counted->groups[0].group_value, "sshd");
    EXPECT_EQ(counted->groups[0].count, 2);
    EXPECT_EQ(counted->groups[0].value, 2.0);
    EXPECT_EQ(counted->groups[1].group_value, "bash");  // ties by value
    EXPECT_EQ(counted->groups[2].group_value, "cron");

    q.field = "rss_bytes";
    const std::pair<AggregateFn, double> expectations[] = {{AggregateFn::kSum, 400},
                                                           {AggregateFn::kAvg, 200},
                                                           {AggregateFn::kMin, 100},
                                                           {AggregateFn::kMax, 300}};
    for (const auto& [fn, expected] : expectations) {
        q.fn = fn;
        auto result = responses().aggregate(q);
        ASSERT_TRUE(result.ok());
        EXPECT_EQ(result->groups[0].value, expected);
        EXPECT_EQ(result->groups[2].group_value, "cron");
        EXPECT_FALSE(result->groups[2].value.has_value());  // no numeric rss_bytes
    }
    q.field.clear();
    EXPECT_EQ(responses().aggregate(q).status().code(), StatusCode::kInvalidArgument);
    q.group_by.clear();
    q.fn = AggregateFn::kCount;
    EXPECT_EQ(responses().aggregate(q).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ResponseStoreTest, AggregatesByStatusAndAgentWithinTheView) {
    run("perf", "snapshot", {{a_, R"({"cpu_pct":10})"}, {b_, R"({"cpu_pct":30})"}, {c_, "FAIL"}});
    run("perf", "snapshot", {{a_, R"({"cpu_pct":20})"}});

    AggregateQuery by_status;
    by_status.instruction_id = "perf.snapshot";
    by_status.group_by = "status";
    by_status.fn = AggregateFn::kAvg;
    by_status.field = "cpu_pct";
    auto statuses = responses().aggregate(by_status);
    ASSERT_TRUE(statuses.ok());
    ASSERT_EQ(statuses->groups.size(), 2u);
    EXPECT_EQ(statuses->groups[0].group_value, "success");
    EXPECT_EQ(statuses->groups[0].count, 3);  // responses, not records
    EXPECT_EQ(statuses->groups[0].value, 20.0);
    EXPECT_EQ(statuses->groups[1].group_value, "failure");
    EXPECT_FALSE(statuses->groups[1].value.has_value());

    AggregateQuery by_agent = by_status;
    by_agent.group_by = "agent_id";
    by_agent.fn = AggregateFn::kMax;
    by_agent.only_agents = std::set<std::string>{a_, c_};
    auto agents = responses().aggregate(by_agent);
    ASSERT_TRUE(agents.ok());
    ASSERT_EQ(agents->groups.size(), 2u);
    EXPECT_EQ(agents->groups[0].group_value, a_);
    EXPECT_EQ(agents->groups[0].count, 2);
    EXPECT_EQ(agents->groups[0].value, 20.0);
    EXPECT_EQ(agents->groups[1].group_value, c_);
    EXPECT_EQ(agents->responses_scanned, 3);

    AggregateQuery only_success = by_status;
    only_success.status = "success";
    only_success.group_by = "missing_field";
    only_success.fn = AggregateFn::kCount;
    auto missing = responses().aggregate(only_success);
    ASSERT_EQ(missing->groups.size(), 1u);
    EXPECT_EQ(missing->groups[0].group_value, "null");
    EXPECT_EQ(missing->groups[0].count, 3);
    EXPECT_FALSE(missing->truncated);
}

TEST_F(ResponseStoreTest, ParsesAggregateFunctionNames) {
    EXPECT_EQ(parse_aggregate_fn("count"), AggregateFn::kCount);
    EXPECT_EQ(parse_aggregate_fn("sum"), AggregateFn::kSum);
    EXPECT_EQ(parse_aggregate_fn("avg"), AggregateFn::kAvg);
    EXPECT_EQ(parse_aggregate_fn("min"), AggregateFn::kMin);
    EXPECT_EQ(parse_aggregate_fn("max"), AggregateFn::kMax);
    EXPECT_FALSE(parse_aggregate_fn("median").has_value());
}

TEST_F(ResponseStoreTest, GetReturnsOneAgentsAnswer) {
    auto d = run("os", "info", {{a_, R"({"kernel":"6.1"})"}});
    auto row = responses().get(d.execution_id, a_);
    ASSERT_TRUE(row.ok());
    EXPECT_EQ(row->output_json, R"({"kernel":"6.1"})");
    EXPECT_EQ(responses().get(d.execution_id, b_).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace yuzu::execution::testing
