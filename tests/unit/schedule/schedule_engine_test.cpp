// The engine on a ManualClock: runs are ordinary executions dispatched as
// the owner, counted and audited; missed runs after downtime are coalesced
// (the documented policy); each tick is bounded; and the owner's rights are
// checked afresh at every run.
#include "yuzu/schedule/schedule_engine.hpp"

#include <gtest/gtest.h>

#include <set>

#include "schedule_fixture.hpp"

namespace yuzu::schedule::testing {
namespace {

using Engine = ScheduleFixture;

TEST_F(Engine, AScheduleEveryTwoSecondsRunsThreeTimes) {
    enroll("web-01");
    enroll("web-02");
    const Schedule s = create(olivia_, every(2));
    EXPECT_EQ(s.next_execution_at, clock_.now_s() + 2);
    EXPECT_EQ(tick().ran, 0u) << "nothing is due before the first slot";

    std::set<std::string> execution_ids;
    for (int i = 0; i < 3; ++i) {
        advance_s(2);
        const TickReport report = tick();
        EXPECT_EQ(report.ran, 1u) << "run " << i;
        const Schedule current = reread(s.id);
        EXPECT_EQ(current.run_count, i + 1);
        EXPECT_EQ(current.last_run_at, clock_.now_s());
        EXPECT_EQ(current.next_execution_at, clock_.now_s() + 2);
        execution_ids.insert(current.last_execution_id);
    }
    EXPECT_EQ(tick().ran, 0u) << "a tick at the same time runs nothing twice";

    const auto records = executions();
    ASSERT_EQ(records.size(), 3u);
    std::set<std::string> tracked;
    for (const auto& r : records) {
        tracked.insert(r.execution_id);
        EXPECT_EQ(r.dispatched_by, "olivia") << "dispatched as the owner";
        EXPECT_EQ(r.definition_id, "os.info");
        EXPECT_EQ(r.counts.targeted, 2);
    }
    EXPECT_EQ(tracked, execution_ids);
    EXPECT_EQ(schedules_->engine().runs(), 3u);

    const auto rows = audit_rows("schedule.run");
    ASSERT_EQ(rows.size(), 3u);
    for (const auto& row : rows) {
        EXPECT_EQ(row.result, audit::AuditResult::kSuccess);
        EXPECT_EQ(row.target_type, "schedule");
        EXPECT_EQ(row.target_id, s.id);
        EXPECT_EQ(row.principal, "olivia");
        EXPECT_NE(row.detail.find("schedule_id=" + s.id), std::string::npos) << row.detail;
    }
    EXPECT_NE(rows.back().detail.find("execution_id=" + reread(s.id).last_execution_id),
              std::string::npos);
}

TEST_F(Engine, MissedIntervalRunsAfterDowntimeRunOnceThenKeepTheirGrid) {
    enroll("web-01");
    const Schedule s = create(admin_, every(60));
    const int64_t first_slot = s.next_execution_at;
    advance_s(10 * 60 + 5);  // ten slots passed while "down"

    const TickReport report = tick();
    EXPECT_EQ(report.ran, 1u) << "coalesced: one catch-up run, not ten";
    EXPECT_EQ(executions().size(), 1u);
    const Schedule after = reread(s.id);
    EXPECT_EQ(after.next_execution_at, first_slot + 10 * 60) << "the first slot after now";
    EXPECT_GT(after.next_execution_at, clock_.now_s());
    EXPECT_EQ(tick().ran, 0u);
    advance_s(60);
    EXPECT_EQ(tick().ran, 1u);
    EXPECT_EQ(reread(s.id).run_count, 2);
}

TEST_F(Engine, AMissedDailyRunRunsOnceAndTheNextIsCountedFromNow) {
    enroll("web-01");
    ScheduleSpec spec = every(1, "daily");
    spec.frequency = Frequency{};
    spec.frequency.type = FrequencyType::kDaily;
    spec.frequency.time_of_day = "06:00";
    const Schedule s = create(admin_, spec);
    advance_s(3 * kSecondsPerDay);
    EXPECT_EQ(tick().ran, 1u);
    const Schedule after = reread(s.id);
    EXPECT_EQ(after.next_execution_at, next_wall_time(clock_.now_s(), 6 * 60, -1));
    EXPECT_LE(after.next_execution_at - clock_.now_s(), kSecondsPerDay);
    EXPECT_EQ(executions().size(), 1u);
}

TEST_F(Engine, AOnceScheduleRunsOnceAtStartUnlessMoreThanADayLate) {
    enroll("web-01");
    ScheduleSpec once = every(1, "once soon");
    once.frequency = Frequency{};
    once.frequency.type = FrequencyType::kOnce;
    once.frequency.run_at = clock_.now_s() + 10;
    const Schedule soon = create(admin_, once);
    once.name = "once later";
    once.frequency.run_at = clock_.now_s() + 3600;
    const Schedule later = create(admin_, once);

    // Down for 24 h and 10 s: `soon` is 24 h late (runs), `later` 23 h.
    advance_s(kSecondsPerDay + 10);
    TickReport report = tick();
    EXPECT_EQ(report.ran, 2u);
    for (const auto& id : {soon.id, later.id}) {
        const Schedule s = reread(id);
        EXPECT_FALSE(s.spec.enabled) << "a once schedule is done after its run";
        EXPECT_EQ(s.next_execution_at, 0);
        EXPECT_EQ(s.run_count, 1);
    }

    // Down for more than 24 h past run_at: disabled, not run.
    once.name = "once missed";
    once.frequency.run_at = clock_.now_s() + 10;
    const Schedule missed = create(admin_, once);
    advance_s(kSecondsPerDay + 11);
    report = tick();
    EXPECT_EQ(report.ran, 0u);
    EXPECT_EQ(report.missed, 1u);
    const Schedule s = reread(missed.id);
    EXPECT_FALSE(s.spec.enabled);
    EXPECT_EQ(s.next_execution_at, 0);
    EXPECT_EQ(s.run_count, 0);
    EXPECT_EQ(s.last_error, "missed: more than 24 h late");
    EXPECT_EQ(executions().size(), 2u) << "no execution for the missed run";
    const auto rows = audit_rows("schedule.run");
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows.back().target_id, missed.id);
    EXPECT_EQ(rows.back().result, audit::AuditResult::kFailure);
}

TEST_F(Engine, ATickRunsAtMostItsBoundAndLeavesTheRestForTheNext) {
    SchedulesOptions options;
    options.engine.max_runs_per_tick = 2;
    reopen_schedules(options);
    enroll("web-01");
    for (int i = 0; i < 5; ++i) create(admin_, every(60, "s" + std::to_string(i)));
    advance_s(60);
    TickReport first = tick();
    EXPECT_EQ(first.ran, 2u);
    EXPECT_TRUE(first.more_due);
    TickReport second = tick();
    EXPECT_EQ(second.ran, 2u);
    EXPECT_TRUE(second.more_due);
    TickReport third = tick();
    EXPECT_EQ(third.ran, 1u);
    EXPECT_FALSE(third.more_due);
    EXPECT_EQ(executions().size(), 5u);
}

TEST_F(Engine, TheOwnersRightsAreCheckedAtRunTime) {
    enroll("web-01");
    const Schedule s = create(olivia_, every(60));
    ASSERT_TRUE(
        identity_->rbac().revoke_global_role("olivia", std::string(auth::kRoleOperator)).ok());
    advance_s(60);
    const TickReport report = tick();
    EXPECT_EQ(report.ran, 0u);
    EXPECT_EQ(report.refused, 1u);
    EXPECT_TRUE(executions().empty()) << "nothing is dispatched for a refused run";
    Schedule after = reread(s.id);
    EXPECT_TRUE(after.spec.enabled) << "the schedule stays as it is";
    EXPECT_EQ(after.owner, "olivia");
    EXPECT_EQ(after.run_count, 0);
    EXPECT_TRUE(after.last_execution_id.empty());
    EXPECT_NE(after.last_error.find("permission denied: Execution:Execute"), std::string::npos)
        << after.last_error;
    EXPECT_EQ(after.next_execution_at, s.next_execution_at + 60) << "moved on to its next slot";
    auto rows = audit_rows("schedule.run");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_NE(rows[0].result, audit::AuditResult::kSuccess);
    EXPECT_EQ(rows[0].principal, "olivia");
    EXPECT_NE(rows[0].detail.find("schedule_id=" + s.id), std::string::npos);
    EXPECT_EQ(schedules_->engine().refusals(), 1u);

    // The role back: the next slot runs, and the refusal is cleared.
    ASSERT_TRUE(
        identity_->rbac().assign_global_role("olivia", std::string(auth::kRoleOperator)).ok());
    advance_s(60);
    EXPECT_EQ(tick().ran, 1u);
    after = reread(s.id);
    EXPECT_EQ(after.run_count, 1);
    EXPECT_TRUE(after.last_error.empty());
    EXPECT_EQ(executions().size(), 1u);
}

TEST_F(Engine, AnExplicitAgentOutsideTheOwnersReachNowIsRefused) {
    const std::string a = enroll("web-01");
    ScheduleSpec spec = every(60);
    spec.target.agent_ids = std::vector<std::string>{a};
    const Schedule s = create(olivia_, spec);
    ASSERT_TRUE(
        identity_->rbac().revoke_global_role("olivia", std::string(auth::kRoleOperator)).ok());
    ASSERT_TRUE(
        identity_->rbac().assign_global_role("olivia", std::string(auth::kRoleViewer)).ok());
    advance_s(60);
    EXPECT_EQ(tick().refused, 1u);
    EXPECT_TRUE(executions().empty());
    EXPECT_FALSE(reread(s.id).last_error.empty());
}

TEST_F(Engine, AnOwnerWhoNoLongerExistsRunsNothing) {
    enroll("web-01");
    // Written straight into schedules.db: the service would never accept an
    // owner that does not exist, but a user can be gone by run time.
    auto store = ScheduleStore::open(schedules_->db_path(), clock_);
    ASSERT_TRUE(store.ok()) << store.status().to_string();
    auto ghost = (*store)->create(every(60), "ghost", clock_.now_s() + 60);
    ASSERT_TRUE(ghost.ok()) << ghost.status().to_string();
    advance_s(60);
    EXPECT_EQ(tick().refused, 1u);
    EXPECT_TRUE(executions().empty());
    EXPECT_NE(reread(ghost->id).last_error.find("owner 'ghost' no longer exists"),
              std::string::npos);
    const auto rows = audit_rows("schedule.run");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].result, audit::AuditResult::kFailure);
}

TEST_F(Engine, DisabledAndDeletedSchedulesDoNotRun) {
    enroll("web-01");
    const Schedule off = create(admin_, every(60, "off"));
    const Schedule gone = create(admin_, every(60, "gone"));
    ASSERT_TRUE(schedules_->set_enabled(admin_, off.id, false).ok());
    ASSERT_TRUE(schedules_->remove(gone.id).ok());
    advance_s(120);
    EXPECT_EQ(tick().ran, 0u);
    EXPECT_TRUE(executions().empty());
}

}  // namespace
}  // namespace yuzu::schedule::testing
