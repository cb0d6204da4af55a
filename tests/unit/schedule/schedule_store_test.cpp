// schedules.db: a schedule survives a reopen field for field, the cap is
// enforced with a clear error, the due query is ordered and bounded, and a
// run record moves the run fields only when an execution was dispatched.
#include "yuzu/schedule/schedule_store.hpp"

#include <gtest/gtest.h>

#include "support/temp_dir.hpp"

namespace yuzu::schedule {
namespace {

ScheduleSpec weekly_spec() {
    ScheduleSpec spec;
    spec.name = "Monday inventory";
    spec.definition_id = "process.list";
    spec.target.agent_ids = std::vector<std::string>{"a1", "a2"};
    spec.params_json = R"({"limit":10})";
    spec.frequency.type = FrequencyType::kWeekly;
    spec.frequency.time_of_day = "06:30";
    spec.frequency.day_of_week = 1;
    return spec;
}

ScheduleSpec interval_spec(const std::string& name) {
    ScheduleSpec spec;
    spec.name = name;
    spec.definition_id = "os.info";
    spec.target.scope = "os = \"linux\"";
    spec.frequency.type = FrequencyType::kInterval;
    spec.frequency.interval_seconds = 60;
    return spec;
}

class ScheduleStoreTest : public ::testing::Test {
  protected:
    std::unique_ptr<ScheduleStore> open(size_t cap = kMaxSchedules) {
        auto s = ScheduleStore::open((dir_ / kSchedulesDbFile).string(), clock_, cap);
        EXPECT_TRUE(s.ok()) << s.status().to_string();
        return s.ok() ? std::move(s).value() : nullptr;
    }

    yuzu::testing::TempDir dir_;
    ManualClock clock_;
};

TEST_F(ScheduleStoreTest, ASchedulePersistsAcrossAReopen) {
    Schedule created;
    {
        auto store = open();
        ASSERT_TRUE(store);
        auto s = store->create(weekly_spec(), "olivia", 1'700'438'400);
        ASSERT_TRUE(s.ok()) << s.status().to_string();
        created = *s;
        EXPECT_EQ(created.id.size(), 32u);
        EXPECT_EQ(created.id.find_first_not_of("0123456789abcdef"), std::string::npos);
        EXPECT_EQ(created.created_at, clock_.now_s());
        EXPECT_EQ(created.updated_at, created.created_at);
    }
    auto store = open();
    ASSERT_TRUE(store);
    auto back = store->get(created.id);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back->spec.name, "Monday inventory");
    EXPECT_EQ(back->spec.definition_id, "process.list");
    EXPECT_EQ(back->spec.target, weekly_spec().target);
    EXPECT_EQ(back->spec.params_json, R"({"limit":10})");
    EXPECT_EQ(back->spec.frequency, weekly_spec().frequency);
    EXPECT_TRUE(back->spec.enabled);
    EXPECT_EQ(back->owner, "olivia");
    EXPECT_EQ(back->created_at, created.created_at);
    EXPECT_EQ(back->next_execution_at, 1'700'438'400);
    EXPECT_EQ(back->run_count, 0);
    EXPECT_TRUE(back->last_error.empty());

    auto scoped = store->create(interval_spec("scoped"), "admin", 5);
    ASSERT_TRUE(scoped.ok());
    auto again = store->get(scoped->id);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->spec.target.scope, "os = \"linux\"");
    EXPECT_FALSE(again->spec.target.agent_ids) << "a scope target has no agent list";

    EXPECT_EQ(store->get(std::string(32, 'f')).status().code(), StatusCode::kNotFound);
    EXPECT_EQ(store->remove(created.id).code(), StatusCode::kOk);
    EXPECT_EQ(store->get(created.id).status().code(), StatusCode::kNotFound);
    EXPECT_EQ(store->remove(created.id).code(), StatusCode::kNotFound);
}

TEST_F(ScheduleStoreTest, TheCapIsEnforcedWithAClearError) {
    auto store = open(3);
    ASSERT_TRUE(store);
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i) {
        auto s = store->create(interval_spec("s" + std::to_string(i)), "admin", 0);
        ASSERT_TRUE(s.ok()) << s.status().to_string();
        ids.push_back(s->id);
    }
    auto over = store->create(interval_spec("one too many"), "admin", 0);
    ASSERT_FALSE(over.ok());
    EXPECT_EQ(over.status().code(), StatusCode::kResourceExhausted);
    EXPECT_EQ(over.status().message(),
              "there are already 3 schedules, the most this server keeps; delete one before "
              "adding another");
    auto listed = store->list();
    ASSERT_TRUE(listed.ok());
    EXPECT_EQ(listed->size(), 3u);
    ASSERT_TRUE(store->remove(ids[0]).ok());
    EXPECT_TRUE(store->create(interval_spec("room again"), "admin", 0).ok());
}

TEST_F(ScheduleStoreTest, WritesRefuseWhatValidationRefuses) {
    auto store = open();
    ASSERT_TRUE(store);
    ScheduleSpec bad = interval_spec("bad");
    bad.frequency.interval_seconds = 0;
    EXPECT_EQ(store->create(bad, "admin", 0).status().code(), StatusCode::kInvalidArgument);
    ScheduleSpec params = interval_spec("params");
    params.params_json = "[1]";
    EXPECT_EQ(store->create(params, "admin", 0).status().message(), "params must be a JSON object");
    EXPECT_EQ(store->create(interval_spec("ownerless"), "", 0).status().code(),
              StatusCode::kInvalidArgument);
    auto listed = store->list();
    ASSERT_TRUE(listed.ok());
    EXPECT_TRUE(listed->empty());
}

TEST_F(ScheduleStoreTest, DueIsEnabledPastSlotsEarliestFirstAndBounded) {
    auto store = open();
    ASSERT_TRUE(store);
    const int64_t now = clock_.now_s();
    auto late = store->create(interval_spec("late"), "admin", now - 100);
    auto later = store->create(interval_spec("just due"), "admin", now);
    auto future = store->create(interval_spec("future"), "admin", now + 1);
    auto none = store->create(interval_spec("no slot"), "admin", 0);
    ScheduleSpec off = interval_spec("disabled");
    off.enabled = false;
    auto disabled = store->create(off, "admin", now - 500);
    ASSERT_TRUE(late.ok() && later.ok() && future.ok() && none.ok() && disabled.ok());

    auto due = store->due(now, 10);
    ASSERT_TRUE(due.ok());
    ASSERT_EQ(due->size(), 2u);
    EXPECT_EQ((*due)[0].id, late->id);
    EXPECT_EQ((*due)[1].id, later->id);
    auto one = store->due(now, 1);
    ASSERT_TRUE(one.ok());
    ASSERT_EQ(one->size(), 1u);
    EXPECT_EQ((*one)[0].id, late->id);
}

TEST_F(ScheduleStoreTest, ARunRecordMovesRunFieldsOnlyForADispatch) {
    auto store = open();
    ASSERT_TRUE(store);
    auto s = store->create(interval_spec("runs"), "admin", 100);
    ASSERT_TRUE(s.ok());

    RunRecord ran{"e1", "", 100, 160, true};
    ASSERT_TRUE(store->record_run(s->id, ran).ok());
    RunRecord refused{"", "run refused: permission denied", 0, 220, true};
    ASSERT_TRUE(store->record_run(s->id, refused).ok());
    auto back = store->get(s->id);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->run_count, 1);
    EXPECT_EQ(back->last_run_at, 100);
    EXPECT_EQ(back->last_execution_id, "e1");
    EXPECT_EQ(back->last_error, "run refused: permission denied");
    EXPECT_EQ(back->next_execution_at, 220);
    EXPECT_EQ(back->updated_at, s->updated_at) << "a run is not a change of the schedule";

    RunRecord again{"e2", "", 220, 280, true};
    ASSERT_TRUE(store->record_run(s->id, again).ok());
    back = store->get(s->id);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->run_count, 2);
    EXPECT_EQ(back->last_execution_id, "e2");
    EXPECT_TRUE(back->last_error.empty()) << "a run clears the last refusal";

    RunRecord long_error{"", std::string(5000, 'x'), 0, 340, true};
    ASSERT_TRUE(store->record_run(s->id, long_error).ok());
    back = store->get(s->id);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->last_error.size(), kMaxLastErrorBytes);

    EXPECT_EQ(store->record_run(std::string(32, 'f'), ran).code(), StatusCode::kNotFound);
}

TEST_F(ScheduleStoreTest, ReplaceAndSetEnabledKeepWhatTheyDoNotChange) {
    auto store = open();
    ASSERT_TRUE(store);
    auto s = store->create(interval_spec("before"), "olivia", 100);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(store->record_run(s->id, RunRecord{"", "refused", 0, 160, true}).ok());

    clock_.advance_ms(5000);
    auto off = store->set_enabled(s->id, false, 0);
    ASSERT_TRUE(off.ok());
    EXPECT_FALSE(off->spec.enabled);
    EXPECT_EQ(off->next_execution_at, 0);
    EXPECT_EQ(off->owner, "olivia");
    EXPECT_EQ(off->last_error, "refused") << "disabling keeps the last refusal visible";
    EXPECT_EQ(off->updated_at, clock_.now_s());

    ScheduleSpec renamed = interval_spec("after");
    auto replaced = store->replace(s->id, renamed, "admin", 999);
    ASSERT_TRUE(replaced.ok());
    auto back = store->get(s->id);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->spec.name, "after");
    EXPECT_EQ(back->owner, "admin");
    EXPECT_EQ(back->next_execution_at, 999);
    EXPECT_TRUE(back->last_error.empty()) << "the refusal described the old version";
    EXPECT_EQ(back->created_at, s->created_at);
    EXPECT_EQ(store->replace(std::string(32, 'f'), renamed, "admin", 0).status().code(),
              StatusCode::kNotFound);
}

}  // namespace
}  // namespace yuzu::schedule
