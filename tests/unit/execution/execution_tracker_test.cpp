#include "yuzu/execution/execution_tracker.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "unit/execution/execution_fixture.hpp"

namespace yuzu::execution::testing {
namespace {

using std::chrono::milliseconds;

bool is_hex(const std::string& s, size_t len) {
    return s.size() == len && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

class ExecutionTrackerTest : public ExecutionFixture {
  protected:
    void SetUp() override {
        ExecutionFixture::SetUp();
        a_ = enroll("web-01");
        b_ = enroll("web-02");
        c_ = enroll("db-01");
    }

    std::map<std::string, AgentExecutionState> states(const std::string& execution_id) {
        std::map<std::string, AgentExecutionState> out;
        auto list = tracker().agent_states(execution_id);
        EXPECT_TRUE(list.ok()) << list.status().to_string();
        if (list.ok()) {
            for (auto& s : *list) out[s.agent_id] = s;
        }
        return out;
    }

    std::string a_, b_, c_;
};

TEST_F(ExecutionTrackerTest, OfflineAgentIsRecordedAtOnceAndNotQueued) {
    ASSERT_TRUE(registry().sign_off(c_).ok());
    auto d = tracker().dispatch(spec_for({a_, b_, c_}));
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    EXPECT_TRUE(is_hex(d->execution_id, 32));
    EXPECT_EQ(d->command_id.rfind("os-", 0), 0u);
    EXPECT_TRUE(is_hex(d->command_id.substr(3), 16));
    EXPECT_EQ(d->definition_id, "os.info");
    EXPECT_EQ(d->agents_targeted, 3);
    EXPECT_EQ(d->agents_reached, 2);
    EXPECT_EQ(d->agents_offline, 1);
    EXPECT_EQ(d->status, "running");

    auto s = states(d->execution_id);
    EXPECT_EQ(s[a_].state, "dispatched");
    EXPECT_EQ(s[b_].state, "dispatched");
    EXPECT_EQ(s[c_].state, "offline");
    EXPECT_TRUE(take(c_).empty());

    auto commands = take(a_);
    ASSERT_EQ(commands.size(), 1u);
    EXPECT_EQ(commands[0].execution_id, d->execution_id);
    EXPECT_EQ(commands[0].command_id, s[a_].agent_command_id);
    EXPECT_TRUE(is_hex(commands[0].command_id, 32));
    EXPECT_NE(commands[0].command_id, s[b_].agent_command_id);
    EXPECT_EQ(commands[0].plugin, "os");
    EXPECT_EQ(commands[0].action, "info");
    EXPECT_EQ(commands[0].params_json, "{}");
    EXPECT_EQ(commands[0].timeout_s, 90);  // 3/4 of the 120 s default

    auto record = tracker().get(d->execution_id);
    ASSERT_TRUE(record.ok());
    EXPECT_EQ(record->counts.targeted, 3);
    EXPECT_EQ(record->counts.outstanding, 2);
    EXPECT_EQ(record->counts.failure, 1);
    EXPECT_EQ(record->counts.progress_pct, 33);
    EXPECT_EQ(record->dispatched_by, "alice");
    EXPECT_EQ(record->scope_expression, "__all__");
    EXPECT_EQ(record->deadline_ms, clock_.now_ms() + kDefaultExecutionTimeoutMs);
}

TEST_F(ExecutionTrackerTest, ResultsCompleteTheExecution) {
    ASSERT_TRUE(registry().sign_off(c_).ok());
    auto d = tracker().dispatch(spec_for({a_, b_, c_}));
    ASSERT_TRUE(d.ok());
    clock_.advance_ms(1500);
    ASSERT_TRUE(answer(a_, "success", R"({"kernel":"6.1.0-18-amd64"})").ok());
    EXPECT_EQ(tracker().get(d->execution_id)->status, "running");
    ASSERT_TRUE(answer(b_, "success", R"({"kernel":"6.1.0-18-amd64"})").ok());

    auto record = tracker().get(d->execution_id);
    ASSERT_TRUE(record.ok());
    EXPECT_EQ(record->status,
              "completed_with_errors");  // c never answered: it was offline
    EXPECT_EQ(record->completed_at_ms, clock_.now_ms());
    EXPECT_EQ(record->counts.targeted, 3);
    EXPECT_EQ(record->counts.responded, 2);
    EXPECT_EQ(record->counts.success, 2);
    EXPECT_EQ(record->counts.failure, 1);
    EXPECT_EQ(record->counts.outstanding, 0);
    EXPECT_EQ(record->counts.progress_pct, 100);
    auto s = states(d->execution_id);
    EXPECT_EQ(s[a_].state, "responded");
    EXPECT_EQ(s[c_].state, "offline");
    EXPECT_EQ(fleet_->commands().queued(a_), 0u);
}

TEST_F(ExecutionTrackerTest, EverySuccessMeansSucceededAndAnyFailureIsCounted) {
    auto all_ok = tracker().dispatch(spec_for({a_, b_}));
    ASSERT_TRUE(all_ok.ok());
    ASSERT_TRUE(answer(a_, "success", "{}").ok());
    ASSERT_TRUE(answer(b_, "success", "{}").ok());
    EXPECT_EQ(tracker().get(all_ok->execution_id)->status, "succeeded");

    auto none_ok = tracker().dispatch(spec_for({a_, b_}));
    ASSERT_TRUE(none_ok.ok());
    ASSERT_TRUE(answer(a_, "failure", "null", "plugin crashed").ok());
    ASSERT_TRUE(answer(b_, "timeout", "null", "plugin timed out").ok());
    auto failed = tracker().get(none_ok->execution_id);
    EXPECT_EQ(failed->status, "failed");
    EXPECT_EQ(failed->counts.responded, 2);
    EXPECT_EQ(failed->counts.failure, 2);
    EXPECT_EQ(states(none_ok->execution_id)[a_].error, "plugin crashed");
}

TEST_F(ExecutionTrackerTest, SweepTimesOutSilentAgentsAndCancelsTheirCommands) {
    auto d = tracker().dispatch(spec_for({a_, b_}));
    ASSERT_TRUE(d.ok());
    ASSERT_TRUE(answer(a_, "success", "{}").ok());
    auto b_commands = take(b_);  // delivered, never answered
    ASSERT_EQ(b_commands.size(), 1u);

    clock_.advance_ms(kDefaultExecutionTimeoutMs - 1);
    EXPECT_EQ(*tracker().sweep(clock_.now_ms()), 0);
    clock_.advance_ms(1);
    EXPECT_EQ(*tracker().sweep(clock_.now_ms()), 1);

    auto record = tracker().get(d->execution_id);
    EXPECT_EQ(record->status, "completed_with_errors");
    auto s = states(d->execution_id);
    EXPECT_EQ(s[b_].state, "timed_out");
    EXPECT_EQ(s[b_].error, "no result within 120 s");
    EXPECT_EQ(fleet_->commands().queued(b_), 0u);
    // The late answer finds nothing queued; told directly, the tracker refuses
    // it.
    EXPECT_FALSE(fleet_->commands().complete(b_, b_commands[0].command_id));
    fleet::CommandResult late;
    late.command_id = b_commands[0].command_id;
    late.status = "success";
    late.output_json = "{}";
    EXPECT_EQ(tracker().on_result(b_, late).code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(tracker().get(d->execution_id)->counts.success, 1);
    EXPECT_EQ(*tracker().sweep(clock_.now_ms()), 0);  // nothing left
}

TEST_F(ExecutionTrackerTest, NobodyAnsweringIsFailedAndPerExecutionTimeoutsApply) {
    DispatchSpec spec = spec_for({a_});
    spec.timeout_ms = 5000;
    auto d = tracker().dispatch(spec);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(take(a_)[0].timeout_s, 3);
    clock_.advance_ms(5000);
    EXPECT_EQ(*tracker().sweep(clock_.now_ms()), 1);
    EXPECT_EQ(tracker().get(d->execution_id)->status, "failed");
}

TEST_F(ExecutionTrackerTest, QuarantinedAgentIsDispatchedAndItsRefusalRecorded) {
    ASSERT_TRUE(executions_->quarantine().quarantine(a_, "incident 42", "bob").ok());
    auto d = tracker().dispatch(spec_for({a_}, "process", "list"));
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    EXPECT_EQ(d->agents_reached, 1);
    ASSERT_TRUE(answer(a_, "refused", "null", "agent is quarantined").ok());

    auto s = states(d->execution_id);
    EXPECT_EQ(s[a_].state, "refused");
    EXPECT_EQ(s[a_].error, "agent is quarantined");
    auto record = tracker().get(d->execution_id);
    EXPECT_EQ(record->status, "failed");
    EXPECT_EQ(record->counts.responded, 1);
    auto row = executions_->responses().get(d->execution_id, a_);
    ASSERT_TRUE(row.ok());
    EXPECT_EQ(row->status, "refused");
}

TEST_F(ExecutionTrackerTest, ReachingNoAgentCancelsAtOnce) {
    ASSERT_TRUE(registry().sign_off(c_).ok());
    auto sub = executions_->events().subscribe();
    auto offline_only = tracker().dispatch(spec_for({c_, "no-such-agent"}));
    ASSERT_TRUE(offline_only.ok());
    EXPECT_EQ(offline_only->status, "cancelled");
    EXPECT_EQ(offline_only->agents_reached, 0);
    EXPECT_EQ(offline_only->agents_dispatch_failed, 1);
    auto s = states(offline_only->execution_id);
    EXPECT_EQ(s["no-such-agent"].state, "dispatch_failed");
    EXPECT_EQ(s["no-such-agent"].error, "agent is not registered");

    std::vector<ExecutionEventType> types;
    while (auto e = sub.pop(milliseconds(0))) types.push_back(e->type);
    EXPECT_EQ(types, (std::vector<ExecutionEventType>{
                         ExecutionEventType::kDispatched, ExecutionEventType::kAgentOffline,
                         ExecutionEventType::kAgentFailed, ExecutionEventType::kCompleted}));

    auto nobody = tracker().dispatch(spec_for({}));
    ASSERT_TRUE(nobody.ok());
    EXPECT_EQ(nobody->status, "cancelled");
    EXPECT_EQ(tracker().get(nobody->execution_id)->counts.progress_pct, 100);
}

TEST_F(ExecutionTrackerTest, FullQueueIsADispatchFailure) {
    for (size_t i = 0; i < fleet_->options().max_queued_commands_per_agent; ++i) {
        fleet::AgentCommand filler;
        filler.command_id = "filler" + std::to_string(i);
        filler.plugin = "os";
        filler.action = "info";
        ASSERT_TRUE(fleet_->commands().enqueue(a_, filler).ok());
    }
    auto d = tracker().dispatch(spec_for({a_, b_}));
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->agents_reached, 1);
    EXPECT_EQ(d->agents_dispatch_failed, 1);
    auto s = states(d->execution_id);
    EXPECT_EQ(s[a_].state, "dispatch_failed");
    EXPECT_EQ(s[a_].error.rfind("could not queue: ", 0), 0u) << s[a_].error;
    ASSERT_TRUE(answer(b_, "success", "{}").ok());
    EXPECT_EQ(tracker().get(d->execution_id)->status, "completed_with_errors");
}

TEST_F(ExecutionTrackerTest, DispatchValidatesTheSpec) {
    auto code_of = [&](DispatchSpec spec) { return tracker().dispatch(spec).status().code(); };
    EXPECT_EQ(code_of(spec_for({a_}, "OS", "info")), StatusCode::kInvalidArgument);
    EXPECT_EQ(code_of(spec_for({a_}, "os", "info;reboot")), StatusCode::kInvalidArgument);
    EXPECT_EQ(code_of(spec_for({a_}, "nope", "thing")), StatusCode::kNotFound);
    DispatchSpec params = spec_for({a_});
    params.params_json = "[1]";
    EXPECT_EQ(code_of(params), StatusCode::kInvalidArgument);
    params.params_json = "{not json";
    EXPECT_EQ(code_of(params), StatusCode::kInvalidArgument);
    nlohmann::json many = nlohmann::json::object();
    for (int i = 0; i < 33; ++i) many["k" + std::to_string(i)] = i;
    params.params_json = many.dump();
    EXPECT_EQ(code_of(params), StatusCode::kInvalidArgument);
    params.params_json = nlohmann::json{{"v", std::string(65 * 1024, 'x')}}.dump();
    EXPECT_EQ(code_of(params), StatusCode::kInvalidArgument);
    DispatchSpec nobody = spec_for({a_});
    nobody.dispatched_by = "";
    EXPECT_EQ(code_of(nobody), StatusCode::kInvalidArgument);
    DispatchSpec quick = spec_for({a_});
    quick.timeout_ms = 10;
    EXPECT_EQ(code_of(quick), StatusCode::kInvalidArgument);
    DispatchSpec bad_agent = spec_for({"bad\nagent"});
    EXPECT_EQ(code_of(bad_agent), StatusCode::kInvalidArgument);
    ASSERT_TRUE(executions_->definitions().set_enabled("os.info", false).ok());
    EXPECT_EQ(code_of(spec_for({a_})), StatusCode::kFailedPrecondition);
    // Nothing above reached an agent.
    EXPECT_TRUE(take(a_).empty());
    EXPECT_TRUE(tracker().list(ExecutionFilter{})->executions.empty());
}

TEST_F(ExecutionTrackerTest, DispatchByDefinitionIdAndWithoutARequiredDefinition) {
    DispatchSpec by_id;
    by_id.definition_id = "process.find";
    by_id.params_json = R"({"name":"sshd"})";
    by_id.agent_ids = {a_, a_};  // duplicates collapse
    by_id.dispatched_by = "alice";
    auto d = tracker().dispatch(by_id);
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    EXPECT_EQ(d->plugin, "process");
    EXPECT_EQ(d->action, "find");
    EXPECT_EQ(d->agents_targeted, 1);
    EXPECT_EQ(take(a_)[0].params_json, R"({"name":"sshd"})");
    by_id.plugin = "os";
    EXPECT_EQ(tracker().dispatch(by_id).status().code(), StatusCode::kInvalidArgument);
    by_id.plugin.clear();
    by_id.definition_id = "missing";
    EXPECT_EQ(tracker().dispatch(by_id).status().code(), StatusCode::kNotFound);

    TrackerOptions lenient;
    lenient.require_definition = false;
    open(lenient);
    const std::string agent = enroll("lab-01");
    auto raw = tracker().dispatch(spec_for({agent}, "custom", "probe"));
    ASSERT_TRUE(raw.ok()) << raw.status().to_string();
    EXPECT_EQ(raw->definition_id, "");
    EXPECT_EQ(take(agent)[0].plugin, "custom");
}

TEST_F(ExecutionTrackerTest, ResultsAreMatchedToTheAgentTheCommandWasSentTo) {
    auto d = tracker().dispatch(spec_for({a_, b_}));
    ASSERT_TRUE(d.ok());
    auto a_command = take(a_)[0].command_id;
    fleet::CommandResult forged;
    forged.command_id = a_command;
    forged.status = "success";
    forged.output_json = "{}";
    EXPECT_EQ(tracker().on_result(b_, forged).code(), StatusCode::kNotFound);
    forged.command_id = "0123456789abcdef0123456789abcdef";
    EXPECT_EQ(tracker().on_result(a_, forged).code(), StatusCode::kNotFound);
    EXPECT_EQ(tracker().get(d->execution_id)->counts.responded, 0);

    forged.command_id = a_command;
    ASSERT_TRUE(tracker().on_result(a_, forged).ok());
    EXPECT_EQ(tracker().on_result(a_, forged).code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(tracker().get(d->execution_id)->counts.responded, 1);
    // The sink answers the same refusals without throwing.
    auto sunk = tracker().result_sink()({fleet::AgentResult{a_, forged}});
    ASSERT_EQ(sunk.size(), 1u);
    EXPECT_EQ(sunk[0].code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(tracker().get(d->execution_id)->counts.responded, 1);
}

TEST_F(ExecutionTrackerTest, ABatchIsOneCommitWithOneAnswerPerResult) {
    auto d = tracker().dispatch(spec_for({a_, b_}));
    ASSERT_TRUE(d.ok());
    auto mine = executions_->events().subscribe(d->execution_id);
    fleet::CommandResult ra;
    ra.command_id = take(a_)[0].command_id;
    ra.status = "success";
    ra.output_json = "{}";
    fleet::CommandResult rb = ra;
    rb.command_id = take(b_)[0].command_id;
    rb.status = "failure";
    fleet::CommandResult forged = ra;
    forged.command_id = "0123456789abcdef0123456789abcdef";
    // b's own result, a duplicate of a's, and a forged one, in one batch.
    auto statuses = tracker().on_results({{a_, ra}, {a_, forged}, {b_, rb}, {a_, ra}});
    ASSERT_EQ(statuses.size(), 4u);
    EXPECT_TRUE(statuses[0].ok());
    EXPECT_EQ(statuses[1].code(), StatusCode::kNotFound);
    EXPECT_TRUE(statuses[2].ok());
    EXPECT_EQ(statuses[3].code(), StatusCode::kFailedPrecondition);
    auto now = tracker().get(d->execution_id);
    ASSERT_TRUE(now.ok());
    EXPECT_EQ(now->counts.responded, 2);
    EXPECT_EQ(now->status, "completed_with_errors");
    // Two agent events and the completion, each carrying the counts as stored.
    std::vector<ExecutionEvent> events;
    while (auto e = mine.pop(milliseconds(0))) events.push_back(*e);
    ASSERT_EQ(events.size(), 3u);
    for (const auto& e : events) EXPECT_EQ(e.counts.responded, 2);
    EXPECT_EQ(events[2].type, ExecutionEventType::kCompleted);
    EXPECT_TRUE(tracker().on_results({}).empty());
}

TEST_F(ExecutionTrackerTest, MalformedResultsAreStoredSafely) {
    auto d = tracker().dispatch(spec_for({a_, b_}));
    ASSERT_TRUE(d.ok());
    ASSERT_TRUE(answer(a_, "exploded", R"({"x":1})", "boom").ok());
    ASSERT_TRUE(answer(b_, "success", "{not json", "bad \xff byte").ok());
    auto s = states(d->execution_id);
    EXPECT_EQ(s[a_].state, "failed");
    EXPECT_EQ(s[a_].error, "agent reported an unknown status 'exploded': boom");
    auto row_a = executions_->responses().get(d->execution_id, a_);
    EXPECT_EQ(row_a->status, "failure");
    EXPECT_EQ(row_a->output_json, R"({"x":1})");
    auto row_b = executions_->responses().get(d->execution_id, b_);
    EXPECT_EQ(row_b->status, "success");
    EXPECT_EQ(row_b->output_json, "null");
    EXPECT_EQ(row_b->error,
              "bad \xEF\xBF\xBD byte; the agent's output was not valid JSON and was discarded");
}

TEST_F(ExecutionTrackerTest, EventsFollowCommitOrderWithCounts) {
    ASSERT_TRUE(registry().sign_off(c_).ok());
    auto all = executions_->events().subscribe();
    auto d = tracker().dispatch(spec_for({a_, b_, c_}));
    ASSERT_TRUE(d.ok());
    auto mine = executions_->events().subscribe(d->execution_id);
    ASSERT_TRUE(answer(a_, "success", "{}").ok());
    ASSERT_TRUE(answer(b_, "failure", "null", "no such file").ok());

    std::vector<ExecutionEvent> events;
    while (auto e = all.pop(milliseconds(0))) events.push_back(*e);
    ASSERT_EQ(events.size(), 5u);
    EXPECT_EQ(events[0].type, ExecutionEventType::kDispatched);
    EXPECT_EQ(events[0].counts.targeted, 3);
    EXPECT_EQ(events[0].counts.outstanding, 2);
    EXPECT_EQ(events[1].type, ExecutionEventType::kAgentOffline);
    EXPECT_EQ(events[1].agent_id, c_);
    EXPECT_EQ(events[2].type, ExecutionEventType::kAgentResponded);
    EXPECT_EQ(events[2].agent_id, a_);
    EXPECT_EQ(events[2].counts.responded, 1);
    EXPECT_EQ(events[2].status, "running");
    EXPECT_EQ(events[3].type, ExecutionEventType::kAgentFailed);
    EXPECT_EQ(events[3].agent_state, "failed");
    EXPECT_EQ(events[3].error, "no such file");
    EXPECT_EQ(events[3].counts.responded, 2);
    EXPECT_EQ(events[4].type, ExecutionEventType::kCompleted);
    EXPECT_EQ(events[4].status, "completed_with_errors");
    EXPECT_EQ(events[4].counts.progress_pct, 100);
    for (size_t i = 1; i < events.size(); ++i) {
        EXPECT_GT(events[i].seq, events[i - 1].seq);
        EXPECT_EQ(events[i].execution_id, d->execution_id);
    }
    EXPECT_EQ(mine.queued(),
              3u);  // subscribed after dispatch: the two answers and completed
}

TEST_F(ExecutionTrackerTest, TheRowExistsBeforeTheAgentCanSeeTheCommand) {
    // The ready listener runs the moment the command is queued: what an
    // agent polling right then would find.
    bool checked = false;
    std::string seen_state;
    fleet_->commands().set_ready_listener([&](const std::string& agent_id) {
        auto commands = fleet_->commands().take(agent_id);
        if (commands.empty()) return;
        auto list = tracker().agent_states(commands[0].execution_id);
        if (list.ok() && !list->empty()) seen_state = (*list)[0].state;
        checked = true;
    });
    auto d = tracker().dispatch(spec_for({a_}));
    fleet_->commands().set_ready_listener({});
    ASSERT_TRUE(d.ok());
    EXPECT_TRUE(checked);
    EXPECT_EQ(seen_state, "dispatched");
}

TEST_F(ExecutionTrackerTest, ListPagesNewestFirstAndFilters) {
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i) {
        auto d = tracker().dispatch(spec_for({a_}));
        ASSERT_TRUE(d.ok());
        ids.push_back(d->execution_id);
        ASSERT_TRUE(answer(a_, "success", "{}").ok());
    }
    DispatchSpec bobs = spec_for({a_}, "disk", "usage");
    bobs.dispatched_by = "bob";
    auto running = tracker().dispatch(bobs);
    ASSERT_TRUE(running.ok());

    ExecutionFilter page1;
    page1.limit = 3;
    auto first = tracker().list(page1);
    ASSERT_TRUE(first.ok());
    ASSERT_EQ(first->executions.size(), 3u);
    EXPECT_EQ(first->executions[0].execution_id, running->execution_id);
    EXPECT_EQ(first->executions[1].execution_id, ids[2]);
    EXPECT_EQ(first->executions[1].counts.success, 1);
    ASSERT_FALSE(first->next_cursor.empty());
    ExecutionFilter page2 = page1;
    page2.cursor = first->next_cursor;
    auto second = tracker().list(page2);
    ASSERT_EQ(second->executions.size(), 1u);
    EXPECT_EQ(second->executions[0].execution_id, ids[0]);
    EXPECT_TRUE(second->next_cursor.empty());

    ExecutionFilter by_status;
    by_status.status = "running";
    EXPECT_EQ(tracker().list(by_status)->executions.size(), 1u);
    ExecutionFilter by_user;
    by_user.dispatched_by = "alice";
    EXPECT_EQ(tracker().list(by_user)->executions.size(), 3u);
    ExecutionFilter by_definition;
    by_definition.definition_id = "disk.usage";
    EXPECT_EQ(tracker().list(by_definition)->executions.size(), 1u);
    ExecutionFilter huge;
    huge.limit = 100000;
    EXPECT_EQ(tracker().list(huge)->executions.size(), 4u);

    ExecutionFilter bad;
    bad.status = "done";
    EXPECT_EQ(tracker().list(bad).status().code(), StatusCode::kInvalidArgument);
    bad.status.clear();
    bad.cursor = "12abc";
    EXPECT_EQ(tracker().list(bad).status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(tracker().get("missing").status().code(), StatusCode::kNotFound);
    EXPECT_EQ(tracker().agent_states("missing").status().code(), StatusCode::kNotFound);
}

TEST_F(ExecutionTrackerTest, ARestartLeavesRunningExecutionsToTheSweeper) {
    auto d = tracker().dispatch(spec_for({a_}));
    ASSERT_TRUE(d.ok());
    open(TrackerOptions{});  // the server restarts: queued commands are gone
    auto record = tracker().get(d->execution_id);
    ASSERT_TRUE(record.ok());
    EXPECT_EQ(record->status, "running");
    clock_.advance_ms(kDefaultExecutionTimeoutMs);
    EXPECT_EQ(*tracker().sweep(clock_.now_ms()), 1);
    EXPECT_EQ(tracker().get(d->execution_id)->status, "failed");
    EXPECT_EQ(states(d->execution_id)[a_].state, "timed_out");
}

TEST_F(ExecutionTrackerTest, TheSweeperThreadTimesOutWithoutBeingDriven) {
    TrackerOptions fast;
    fast.execution_timeout_ms = 1000;
    fast.sweep_interval_ms = 5;
    open(fast);
    const std::string agent = enroll("lab-02");
    auto d = tracker().dispatch(spec_for({agent}));
    ASSERT_TRUE(d.ok());
    tracker().start();
    tracker().start();  // a no-op
    clock_.advance_ms(1000);
    std::string status = "running";
    for (int i = 0; i < 500 && status == "running"; ++i) {
        std::this_thread::sleep_for(milliseconds(10));
        status = tracker().get(d->execution_id)->status;
    }
    tracker().stop();
    tracker().stop();
    EXPECT_EQ(status, "failed");
}

}  // namespace
}  // namespace yuzu::execution::testing
