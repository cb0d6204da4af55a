// execution_tallies holds, per execution, how many agents are in each state.
// Triggers keep it; these tests hold it against a GROUP BY of
// execution_agents after every kind of transition, and check that the
// migration that adds it counts the executions already on disk.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "support/temp_dir.hpp"
#include "unit/execution/execution_fixture.hpp"
#include "yuzu/execution/execution_schema.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::execution::testing {
namespace {

using Counts = std::map<std::string, int64_t>;  // state -> agents

Counts read_counts(store::Database& db, const std::string& sql, const std::string& id) {
    Counts out;
    auto conn = db.lock();
    auto stmt = conn.prepare(sql);
    EXPECT_TRUE(stmt.ok()) << stmt.status().to_string();
    if (!stmt.ok()) return out;
    stmt->bind(1, id);
    for (;;) {
        auto row = stmt->step();
        EXPECT_TRUE(row.ok()) << row.status().to_string();
        if (!row.ok() || !*row) break;
        out[stmt->column_text(0)] = stmt->column_int64(1);
    }
    return out;
}

Counts kept(store::Database& db, const std::string& id) {
    return read_counts(
        db, "SELECT state, agents FROM execution_tallies WHERE execution_id = ?1 AND agents > 0",
        id);
}

Counts counted(store::Database& db, const std::string& id) {
    return read_counts(
        db, "SELECT state, COUNT(*) FROM execution_agents WHERE execution_id = ?1 GROUP BY state",
        id);
}

class ExecutionTalliesTest : public ExecutionFixture {
  protected:
    void SetUp() override {
        ExecutionFixture::SetUp();
        for (const char* host : {"web-01", "web-02", "web-03", "db-01", "db-02"}) {
            agents_.push_back(enroll(host));
        }
        auto db = store::Database::open((dir_ / "executions" / "executions.db").string());
        ASSERT_TRUE(db.ok()) << db.status().to_string();
        db_ = std::move(db).value();
    }

    // The kept counts equal a fresh count, and get() reports them.
    void expect_consistent(const std::string& id) {
        const Counts fresh = counted(*db_, id);
        EXPECT_EQ(kept(*db_, id), fresh);
        auto record = tracker().get(id);
        ASSERT_TRUE(record.ok()) << record.status().to_string();
        int64_t targeted = 0;
        for (const auto& [state, n] : fresh) targeted += n;
        EXPECT_EQ(record->counts.targeted, targeted);
        EXPECT_EQ(record->counts.outstanding,
                  fresh.contains("dispatched") ? fresh.at("dispatched") : 0);
    }

    std::vector<std::string> agents_;
    std::unique_ptr<store::Database> db_;
};

TEST_F(ExecutionTalliesTest, FollowDispatchResultsAndTimeouts) {
    ASSERT_TRUE(registry().sign_off(agents_[4]).ok());
    std::vector<std::string> targets = agents_;
    targets.push_back("agent-nobody-knows");
    auto d = tracker().dispatch(spec_for(targets));
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    const std::string id = d->execution_id;
    EXPECT_EQ(kept(*db_, id), (Counts{{"dispatched", 4}, {"offline", 1}, {"dispatch_failed", 1}}));
    expect_consistent(id);

    ASSERT_TRUE(answer(agents_[0], "success", "{}").ok());
    ASSERT_TRUE(answer(agents_[1], "failure", "{}", "exit 1").ok());
    ASSERT_TRUE(answer(agents_[2], "refused", "{}", "quarantined").ok());
    expect_consistent(id);

    // A second answer for a settled agent changes nothing.
    auto s = tracker().agent_states(id);
    ASSERT_TRUE(s.ok());
    fleet::CommandResult again;
    again.command_id = s->front().agent_command_id;
    again.status = "failure";
    again.output_json = "{}";
    EXPECT_EQ(tracker().on_result(s->front().agent_id, again).code(),
              StatusCode::kFailedPrecondition);
    expect_consistent(id);

    clock_.advance_ms(kDefaultExecutionTimeoutMs);
    ASSERT_EQ(*tracker().sweep(clock_.now_ms()), 1);
    EXPECT_EQ(kept(*db_, id), (Counts{{"responded", 1},
                                      {"failed", 1},
                                      {"refused", 1},
                                      {"timed_out", 1},
                                      {"offline", 1},
                                      {"dispatch_failed", 1}}));
    expect_consistent(id);
    EXPECT_EQ(tracker().get(id)->status, "completed_with_errors");
}

TEST_F(ExecutionTalliesTest, ABatchCountsEachResultOnce) {
    auto d = tracker().dispatch(spec_for(agents_));
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    std::vector<fleet::AgentResult> batch;
    for (size_t i = 0; i < 3; ++i) {
        auto commands = take(agents_[i]);
        ASSERT_EQ(commands.size(), 1u);
        ASSERT_TRUE(fleet_->commands().complete(agents_[i], commands[0].command_id));
        fleet::CommandResult r;
        r.command_id = commands[0].command_id;
        r.status = "success";
        r.output_json = "{}";
        batch.push_back({agents_[i], r});
    }
    batch.push_back(batch.front());  // the same answer twice in one batch
    auto recorded = tracker().on_results(batch);
    ASSERT_EQ(recorded.size(), 4u);
    EXPECT_TRUE(recorded[0].ok() && recorded[1].ok() && recorded[2].ok());
    EXPECT_EQ(recorded[3].code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(kept(*db_, d->execution_id), (Counts{{"dispatched", 2}, {"responded", 3}}));
    expect_consistent(d->execution_id);
}

// executions.db written by a build without the table: the migration counts
// what is there, and the triggers keep counting from then on.
TEST(ExecutionTalliesMigration, CountsTheExecutionsAlreadyStored) {
    yuzu::testing::TempDir dir;
    ManualClock clock;
    auto opened = store::Database::open((dir / "executions.db").string());
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    store::Database& db = **opened;
    const auto all = execution_migrations();
    ASSERT_EQ(all.back().name, "create_execution_tallies");
    ASSERT_TRUE(
        store::apply_migrations(db, "executions.db", all.first(all.size() - 1), clock).ok());
    {
        auto conn = db.lock();
        ASSERT_TRUE(conn.exec(R"sql(
INSERT INTO executions(execution_id, command_id, plugin, action, params, dispatched_by,
                       dispatched_at_ms, timeout_ms, deadline_ms, status)
    VALUES('e1', 'os-1', 'os', 'info', '{}', 'alice', 1, 1000, 1001, 'running'),
          ('e2', 'os-2', 'os', 'info', '{}', 'alice', 1, 1000, 1001, 'succeeded');
INSERT INTO execution_agents(execution_id, agent_id, ordinal, command_id, state, updated_at_ms)
    VALUES('e1', 'a', 0, 'c1', 'dispatched', 1), ('e1', 'b', 1, 'c2', 'dispatched', 1),
          ('e1', 'c', 2, 'c3', 'offline', 1), ('e2', 'a', 0, 'c4', 'responded', 1);
)sql")
                        .ok());
    }
    Status migrated = store::apply_migrations(db, "executions.db", all, clock);
    ASSERT_TRUE(migrated.ok()) << migrated.to_string();
    EXPECT_EQ(kept(db, "e1"), (Counts{{"dispatched", 2}, {"offline", 1}}));
    EXPECT_EQ(kept(db, "e2"), (Counts{{"responded", 1}}));

    {
        auto conn = db.lock();
        ASSERT_TRUE(conn.exec("UPDATE execution_agents SET state = 'responded' WHERE "
                              "command_id = 'c1'; "
                              "UPDATE execution_agents SET error = 'x' WHERE command_id = 'c2'")
                        .ok());
    }
    EXPECT_EQ(kept(db, "e1"), (Counts{{"dispatched", 1}, {"responded", 1}, {"offline", 1}}));
    EXPECT_EQ(kept(db, "e1"), counted(db, "e1"));

    // Deleting an execution takes its agents and its counts with it.
    {
        auto conn = db.lock();
        ASSERT_TRUE(conn.exec("DELETE FROM executions WHERE execution_id = 'e1'").ok());
    }
    EXPECT_TRUE(kept(db, "e1").empty());
    auto conn = db.lock();
    auto left = conn.prepare("SELECT COUNT(*) FROM execution_tallies WHERE execution_id = 'e1'");
    ASSERT_TRUE(left.ok());
    ASSERT_TRUE(*left->step());
    EXPECT_EQ(left->column_int64(0), 0);
}

}  // namespace
}  // namespace yuzu::execution::testing
