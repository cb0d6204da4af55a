// The schedule service: creating or changing a schedule needs the right to
// run it by hand now (tier, RBAC, targets, definition, params), whoever last
// saved it owns it, and enabling recomputes the next run.
#include "yuzu/schedule/schedules.hpp"

#include <gtest/gtest.h>

#include "schedule_fixture.hpp"

namespace yuzu::schedule::testing {
namespace {

using Service = ScheduleFixture;

size_t stored(Schedules& schedules) {
    auto list = schedules.list();
    EXPECT_TRUE(list.ok());
    return list.ok() ? list->size() : 0;
}

TEST_F(Service, ACreatorWhoCouldNotRunItByHandIsRefused) {
    enroll("web-01");
    auto viewer = schedules_->create(vera_, every(60));
    ASSERT_FALSE(viewer.ok());
    EXPECT_EQ(viewer.status().code(), StatusCode::kPermissionDenied);
    EXPECT_NE(viewer.status().message().find("Execution:Execute"), std::string::npos);

    // An MCP token's tier counts as on REST: readonly may not run anything,
    // supervised only through an approval, which a schedule cannot carry.
    for (const char* tier : {"readonly", "supervised"}) {
        auto tiered = schedules_->create(mcp_token("admin", tier), every(60));
        EXPECT_EQ(tiered.status().code(), StatusCode::kPermissionDenied) << tier;
    }
    EXPECT_TRUE(schedules_->create(mcp_token("admin", "operator"), every(60)).ok());
    EXPECT_EQ(stored(*schedules_), 1u);
}

TEST_F(Service, TheDefinitionParamsAndTargetsAreCheckedLikeAManualDispatch) {
    const std::string a = enroll("web-01");
    ScheduleSpec unknown = every(60);
    unknown.definition_id = "nope.nothing";
    auto bad_definition = schedules_->create(admin_, unknown);
    EXPECT_EQ(bad_definition.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(bad_definition.status().message().find("definition_id"), std::string::npos);

    ScheduleSpec missing_param = every(60);
    missing_param.definition_id = "process.find";
    auto params = schedules_->create(admin_, missing_param);
    EXPECT_EQ(params.status().code(), StatusCode::kInvalidArgument);
    missing_param.params_json = R"({"name":"sshd"})";
    EXPECT_TRUE(schedules_->create(admin_, missing_param).ok());

    ScheduleSpec extra = every(60);
    extra.params_json = R"({"unexpected":1})";
    EXPECT_EQ(schedules_->create(admin_, extra).status().code(), StatusCode::kInvalidArgument);

    ScheduleSpec restart_everything = every(60);
    restart_everything.definition_id = "service.restart";
    restart_everything.params_json = R"({"unit":"sshd.service"})";
    EXPECT_EQ(schedules_->create(admin_, restart_everything).status().code(),
              StatusCode::kPermissionDenied)
        << "a destructive instruction names its targets";
    restart_everything.target.agent_ids = std::vector<std::string>{a};
    EXPECT_TRUE(schedules_->create(admin_, restart_everything).ok());

    ScheduleSpec ghost_agent = every(60);
    ghost_agent.target.agent_ids = std::vector<std::string>{std::string(32, 'e')};
    EXPECT_EQ(schedules_->create(admin_, ghost_agent).status().code(), StatusCode::kNotFound);

    ScheduleSpec bad_scope = every(60);
    bad_scope.target.scope = "hostname ==";
    EXPECT_EQ(schedules_->create(admin_, bad_scope).status().code(), StatusCode::kInvalidArgument);

    ASSERT_TRUE(executions_->definitions().set_enabled("os.info", false).ok());
    EXPECT_EQ(schedules_->create(admin_, every(60)).status().code(),
              StatusCode::kFailedPrecondition);
    EXPECT_EQ(stored(*schedules_), 2u);
}

TEST_F(Service, AOnceScheduleInThePastIsRefused) {
    enroll("web-01");
    ScheduleSpec once = every(60);
    once.frequency = Frequency{};
    once.frequency.type = FrequencyType::kOnce;
    once.frequency.run_at = clock_.now_s() - 1;
    auto past = schedules_->create(admin_, once);
    EXPECT_EQ(past.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(past.status().message().find("in the past"), std::string::npos);
    once.frequency.run_at = clock_.now_s() + 30;
    auto future = schedules_->create(admin_, once);
    ASSERT_TRUE(future.ok());
    EXPECT_EQ(future->next_execution_at, clock_.now_s() + 30);
}

TEST_F(Service, AnUpdateIsRecheckedForTheEditorWhoBecomesTheOwner) {
    enroll("web-01");
    const Schedule s = create(admin_, every(60));
    EXPECT_EQ(s.owner, "admin");

    ScheduleChange rename;
    rename.name = "renamed";
    auto by_viewer = schedules_->update(vera_, s.id, rename);
    EXPECT_EQ(by_viewer.status().code(), StatusCode::kPermissionDenied);
    EXPECT_EQ(reread(s.id).spec.name, s.spec.name) << "a refused update changes nothing";

    auto by_operator = schedules_->update(olivia_, s.id, rename);
    ASSERT_TRUE(by_operator.ok()) << by_operator.status().to_string();
    EXPECT_EQ(by_operator->owner, "olivia");
    EXPECT_EQ(by_operator->spec.name, "renamed");
    EXPECT_EQ(by_operator->next_execution_at, s.next_execution_at) << "a rename keeps the next run";

    advance_s(10);
    ScheduleChange faster;
    faster.interval_seconds = 30;
    auto sped_up = schedules_->update(olivia_, s.id, faster);
    ASSERT_TRUE(sped_up.ok());
    EXPECT_EQ(sped_up->next_execution_at, clock_.now_s() + 30) << "a new frequency counts from now";

    ScheduleChange bad;
    bad.frequency_type = FrequencyType::kDaily;  // without its time_of_day
    EXPECT_EQ(schedules_->update(olivia_, s.id, bad).status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(schedules_->update(olivia_, std::string(32, 'f'), rename).status().code(),
              StatusCode::kNotFound);
}

TEST_F(Service, EnablingComputesTheNextRunAndDisablingClearsIt) {
    enroll("web-01");
    const Schedule s = create(olivia_, every(60));
    auto off = schedules_->set_enabled(olivia_, s.id, false);
    ASSERT_TRUE(off.ok());
    EXPECT_FALSE(off->spec.enabled);
    EXPECT_EQ(off->next_execution_at, 0);
    advance_s(1000);
    // Someone who could not dispatch it by hand cannot re-arm it.
    EXPECT_EQ(schedules_->set_enabled(vera_, s.id, true).status().code(),
              StatusCode::kPermissionDenied);
    auto on = schedules_->set_enabled(olivia_, s.id, true);
    ASSERT_TRUE(on.ok());
    EXPECT_TRUE(on->spec.enabled);
    EXPECT_EQ(on->next_execution_at, clock_.now_s() + 60);
    EXPECT_EQ(on->owner, "olivia") << "enabling keeps the owner";

    auto again = schedules_->set_enabled(olivia_, s.id, true);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->next_execution_at, on->next_execution_at) << "idempotent";

    ScheduleSpec once = every(60, "once");
    once.frequency = Frequency{};
    once.frequency.type = FrequencyType::kOnce;
    once.frequency.run_at = clock_.now_s() + 5;
    const Schedule single = create(admin_, once);
    ASSERT_TRUE(schedules_->set_enabled(admin_, single.id, false).ok());
    advance_s(10);
    auto late = schedules_->set_enabled(admin_, single.id, true);
    EXPECT_EQ(late.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(late.status().message().find("new run_at"), std::string::npos);
    EXPECT_EQ(schedules_->set_enabled(admin_, std::string(32, 'f'), true).status().code(),
              StatusCode::kNotFound);
}

TEST_F(Service, TheCapComesFromTheOptions) {
    SchedulesOptions options;
    options.max_schedules = 2;
    reopen_schedules(options);
    enroll("web-01");
    create(admin_, every(60, "one"));
    create(admin_, every(60, "two"));
    auto third = schedules_->create(admin_, every(60, "three"));
    EXPECT_EQ(third.status().code(), StatusCode::kResourceExhausted);
    EXPECT_EQ(stored(*schedules_), 2u);
}

}  // namespace
}  // namespace yuzu::schedule::testing
