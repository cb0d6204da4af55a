// ProgressBridge: a followed execution's bus events become strictly
// increasing notifications/progress frames (on a streamed record's outbox, or
// on the session's GET stream), the result settles the call as a pinned,
// ring-only final, and the record ends exactly once: completed, cancelled,
// cap_expired or record_gone. Admission: the record cap, duplicate ids, and a
// streamed call reclaiming an undelivered final's pin (counted and audited).
//
// Deterministic: time is a ManualClock and the frame interval is 0, so the
// projector never waits on time; the tests that need the projector thread
// wait for its output with a bound, never asserting how long it took.
#include "yuzu/mcp/bridge/progress_bridge.hpp"

#include <gtest/gtest.h>

#include "progress_bridge_fixture.hpp"

namespace yuzu::mcp {
namespace {

using namespace bridge_testing;  // NOLINT(google-build-using-namespace): the fixture

TEST_F(ProgressBridgeTest, AStreamedRecordProjectsProgressThenSettlesWithThePinnedFinal) {
    bridge_->start();
    auto session = make_session();
    snapshots_.set("e1", progress(3, 0));
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    EXPECT_TRUE(record->streamed());
    EXPECT_EQ(record->request_key(), "7");
    EXPECT_EQ(bridge_->records(), 1u);
    EXPECT_EQ(session->calls_in_flight(), 1u);
    bridge_->set_pump_attached(*record, true);
    bridge_->follow(*record, {"e1"});
    EXPECT_EQ(record->execution_ids(), std::vector<std::string>{"e1"});

    Collected c;
    // The snapshot is projected first: 0 of 3.
    collect(*record, &c, [](const Collected& got) { return got.has_progress(0); });
    ASSERT_TRUE(c.has_progress(0));
    ASSERT_NO_FATAL_FAILURE(settle_three_agents_step_by_step(bus_, *record, &c));
    (void)bus_.publish(completed("e1", 3));
    EXPECT_FALSE(c.final.has_value());  // no result yet: the call stays open
    EXPECT_FALSE(c.ended.has_value());

    bridge_->finish(*record, kResult);
    collect(*record, &c, [](const Collected& got) { return got.final.has_value(); });
    ASSERT_TRUE(c.final.has_value());
    EXPECT_EQ(c.ended, CloseReason::kCompleted);

    // One frame per advance, each a progress notification of this call.
    std::vector<double> values;
    for (const auto& f : c.frames) values.push_back(progress_of(f));
    EXPECT_EQ(values, (std::vector<double>{0, 1, 2, 3}));
    expect_progress_frames(c.frames, "tok-1", 3, "e1");
    for (const auto& f : c.frames) EXPECT_TRUE(f.ring_only);

    // The final: the handler's response, verbatim, as the last frame.
    EXPECT_EQ(data_text(*c.final), kResult);
    EXPECT_EQ(data_of(*c.final), json::parse(kResult));
    EXPECT_TRUE(c.final->pinned);
    EXPECT_TRUE(c.final->ring_only);
    EXPECT_GT(c.final->id, c.frames.back().id);
    EXPECT_EQ(c.final->id, session->last_event_id());
    EXPECT_TRUE(record->ended());

    EXPECT_EQ(session->pinned_finals(), 1u);
    EXPECT_EQ(session->calls_in_flight(), 0u);
    session->delivered(c.final->id);
    EXPECT_EQ(session->pinned_finals(), 0u);
    EXPECT_TRUE(eventually([&] { return bridge_->records() == 0; }));
    EXPECT_TRUE(eventually([&] { return bridge_metrics_.records_active.Value() == 0.0; }));
    EXPECT_GT(bridge_metrics_.projector_cycles.Value(), 0.0);

    // Ended: nothing more arrives, and a late finish changes nothing.
    bridge_->finish(*record, R"({"late":true})");
    const CallRecord::Batch after = record->wait(0);
    EXPECT_TRUE(after.frames.empty());
    EXPECT_FALSE(after.final.has_value());
    EXPECT_EQ(after.ended, CloseReason::kCompleted);
    EXPECT_EQ(session->pinned_finals(), 0u);
}

TEST_F(ProgressBridgeTest, AResultBeforeTheExecutionCompletesSettlesOnCompletion) {
    bridge_->start();
    auto session = make_session();
    snapshots_.set("e1", progress(3, 0));
    const json token = 42;
    auto record = reserve_ok(session, 7, true, token);
    ASSERT_NE(record, nullptr);
    bridge_->set_pump_attached(*record, true);
    bridge_->follow(*record, {"e1"});

    Collected c;
    collect(*record, &c, [](const Collected& got) { return got.has_progress(0); });
    ASSERT_TRUE(c.has_progress(0));

    // The handler returned while the execution runs: no final yet.
    bridge_->finish(*record, kResult);
    const CallRecord::Batch early = record->wait(0);
    for (const auto& f : early.frames) c.frames.push_back(f);
    EXPECT_FALSE(early.final.has_value());
    EXPECT_FALSE(early.ended.has_value());
    EXPECT_EQ(session->pinned_finals(), 0u);
    EXPECT_EQ(session->calls_in_flight(), 1u);

    for (int outstanding = 2; outstanding >= 0; --outstanding) {
        (void)bus_.publish(agent_responded("e1", 3, outstanding));
    }
    (void)bus_.publish(completed("e1", 3));
    collect(*record, &c, [](const Collected& got) { return got.final.has_value(); });
    ASSERT_TRUE(c.final.has_value());
    EXPECT_EQ(c.ended, CloseReason::kCompleted);

    ASSERT_FALSE(c.frames.empty());
    expect_progress_frames(c.frames, token, 3, "e1");
    EXPECT_EQ(progress_of(c.frames.front()), 0.0);
    EXPECT_EQ(progress_of(c.frames.back()), 3.0);
    EXPECT_EQ(data_text(*c.final), kResult);
    EXPECT_GT(c.final->id, c.frames.back().id);

    EXPECT_EQ(session->pinned_finals(), 1u);
    EXPECT_EQ(session->calls_in_flight(), 0u);
    session->delivered(c.final->id);
    EXPECT_EQ(session->pinned_finals(), 0u);
    EXPECT_TRUE(eventually([&] { return bridge_->records() == 0; }));
}

TEST_F(ProgressBridgeTest, EventsOfExecutionsNotFollowedAreIgnored) {
    bridge_->start();
    auto session = make_session();
    snapshots_.set("e1", progress(3, 0));
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    bridge_->set_pump_attached(*record, true);
    bridge_->follow(*record, {"e1"});
    Collected c;
    collect(*record, &c, [](const Collected& got) { return got.has_progress(0); });
    ASSERT_TRUE(c.has_progress(0));

    (void)bus_.publish(agent_responded("other", 3, 0));
    (void)bus_.publish(completed("other", 3));
    // Then one of e1's: the first frame after "other" must be e1's 1 of 3.
    (void)bus_.publish(agent_responded("e1", 3, 2));
    collect(*record, &c, [](const Collected& got) { return got.frames.size() >= 2; });
    ASSERT_EQ(c.frames.size(), 2u);
    EXPECT_EQ(progress_of(c.frames[1]), 1.0);
    EXPECT_FALSE(c.ended.has_value());
    bridge_->abandon(*record, CloseReason::kRecordGone);
}

// --- b. a GET-channel record ---------------------------------------------------

TEST_F(ProgressBridgeTest, AGetChannelRecordPublishesToTheSessionAndPinsNothing) {
    bridge_->start();
    auto session = make_session();
    const auto attached = session->attach(std::nullopt, budget_);
    ASSERT_EQ(attached.outcome, Session::Attach::Outcome::kAttached);
    uint64_t cursor = attached.cursor;
    std::vector<StreamFrame> got;
    const auto read_until = [&](double value) {
        const auto deadline = std::chrono::steady_clock::now() + kPollBound;
        const auto seen = [&] {
            for (const auto& f : got) {
                if (progress_of(f) == value) return true;
            }
            return false;
        };
        while (!seen() && std::chrono::steady_clock::now() < deadline) {
            Session::Batch batch = session->wait(attached.generation, cursor, 100);
            for (auto& f : batch.frames) {
                cursor = f.id;
                got.push_back(std::move(f));
            }
            if (batch.close) break;
        }
        return seen();
    };

    snapshots_.set("e1", progress(3, 0));
    auto record = reserve_ok(session, 7, false);
    ASSERT_NE(record, nullptr);
    EXPECT_FALSE(record->streamed());
    EXPECT_EQ(session->calls_in_flight(), 1u);
    bridge_->follow(*record, {"e1"});
    ASSERT_TRUE(read_until(0));
    for (int outstanding = 2; outstanding >= 0; --outstanding) {
        (void)bus_.publish(agent_responded("e1", 3, outstanding));
        ASSERT_TRUE(read_until(3 - outstanding)) << "no frame for " << 3 - outstanding;
    }
    (void)bus_.publish(completed("e1", 3));
    bridge_->finish(*record, kResult);
    ASSERT_TRUE(eventually([&] { return record->ended(); }));

    std::vector<double> values;
    for (const auto& f : got) values.push_back(progress_of(f));
    EXPECT_EQ(values, (std::vector<double>{0, 1, 2, 3}));
    expect_progress_frames(got, "tok-1", 3, "e1");
    for (const auto& f : got) EXPECT_FALSE(f.ring_only);

    // The result went back on the POST: no final, no pin, nothing more on GET.
    const CallRecord::Batch batch = record->wait(0);
    EXPECT_TRUE(batch.frames.empty());
    EXPECT_FALSE(batch.final.has_value());
    EXPECT_EQ(batch.ended, CloseReason::kCompleted);
    EXPECT_EQ(session->pinned_finals(), 0u);
    EXPECT_EQ(session->calls_in_flight(), 0u);
    const Session::Batch rest = session->wait(attached.generation, cursor, 0);
    EXPECT_TRUE(rest.frames.empty());
    EXPECT_EQ(session->last_event_id(), cursor);
    EXPECT_TRUE(eventually([&] { return bridge_->records() == 0; }));
    session->detach(attached.generation);
}

TEST_F(ProgressBridgeTest, AGetChannelReportReachesTheAttachedConnection) {
    auto session = make_session();
    const auto attached = session->attach(std::nullopt, budget_);
    ASSERT_EQ(attached.outcome, Session::Attach::Outcome::kAttached);
    auto record = reserve_ok(session, "req-1", false, "tok-g");
    ASSERT_NE(record, nullptr);
    bridge_->report(*record, 1, 2, "half");
    const Session::Batch batch = session->wait(attached.generation, attached.cursor, 0);
    ASSERT_EQ(batch.frames.size(), 1u);
    json m = data_of(batch.frames[0]);
    EXPECT_TRUE(is_progress(m));
    EXPECT_EQ(m["params"]["progressToken"], "tok-g");
    EXPECT_EQ(m["params"]["progress"].get<double>(), 1.0);
    EXPECT_EQ(m["params"]["message"], "half");
    // Nothing on the record's own outbox.
    EXPECT_TRUE(record->wait(0).frames.empty());
    session->detach(attached.generation);
}

// --- c. report() ---------------------------------------------------------------

TEST_F(ProgressBridgeTest, ReportedProgressThatDoesNotAdvanceIsSuppressed) {
    auto session = make_session();
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    bridge_->set_pump_attached(*record, true);
    EXPECT_EQ(suppressed(), 0.0);

    bridge_->report(*record, 1, 4, "one");
    CallRecord::Batch batch = record->wait(0);
    ASSERT_EQ(batch.frames.size(), 1u);
    json m = data_of(batch.frames[0]);
    EXPECT_TRUE(is_progress(m));
    EXPECT_EQ(m["params"]["progressToken"], "tok-1");
    EXPECT_EQ(m["params"]["progress"].get<double>(), 1.0);
    EXPECT_EQ(m["params"]["total"].get<double>(), 4.0);
    EXPECT_EQ(m["params"]["message"], "one");
    EXPECT_FALSE(m["params"].contains("_meta"));  // no execution followed
    EXPECT_TRUE(batch.frames[0].ring_only);
    EXPECT_FALSE(batch.final.has_value());
    EXPECT_FALSE(batch.ended.has_value());

    bridge_->report(*record, 1, 4, "again");   // equal
    bridge_->report(*record, 0.5, 4, "back");  // lower
    EXPECT_EQ(suppressed(), 2.0);
    EXPECT_TRUE(record->wait(0).frames.empty());

    bridge_->report(*record, 2, std::nullopt, "");
    batch = record->wait(0);
    ASSERT_EQ(batch.frames.size(), 1u);
    m = data_of(batch.frames[0]);
    EXPECT_EQ(m["params"]["progress"].get<double>(), 2.0);
    EXPECT_FALSE(m["params"].contains("total"));
    EXPECT_FALSE(m["params"].contains("message"));
    EXPECT_EQ(suppressed(), 2.0);
    // Every advancing value was committed to the ring (ring-only).
    EXPECT_EQ(session->last_event_id(), 2u);
    bridge_->abandon(*record, CloseReason::kRecordGone);
}

TEST_F(ProgressBridgeTest, EveryProgressValueWaitsForThePumpWhileTheOutboxHasRoom) {
    auto session = make_session();
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    bridge_->set_pump_attached(*record, true);
    bridge_->report(*record, 1, 10, "");
    bridge_->report(*record, 2, 10, "");
    bridge_->report(*record, 3, 10, "");
    const CallRecord::Batch batch = record->wait(0);
    ASSERT_EQ(batch.frames.size(), 3u);
    EXPECT_EQ(progress_of(batch.frames[0]), 1.0);
    EXPECT_EQ(progress_of(batch.frames[2]), 3.0);
    EXPECT_EQ(suppressed(), 0.0);
    bridge_->abandon(*record, CloseReason::kRecordGone);
}

TEST_F(ProgressBridgeTest, AFullOutboxReplacesTheProgressValueThePumpHasNotTaken) {
    ProgressBridge::Options o = options();
    o.max_outbox = 2;
    ProgressBridge small(&bus_, snapshots_.fn(), &bridge_metrics_, &audit_, clock_, o);
    auto session = make_session();
    auto reserved = small.reserve(session, 7, "tok", true, "cid");
    ASSERT_TRUE(std::holds_alternative<ProgressBridge::Reservation>(reserved));
    auto record = std::get<ProgressBridge::Reservation>(reserved).record;
    small.set_pump_attached(*record, true);
    for (int v = 1; v <= 4; ++v) small.report(*record, v, 10, "");
    const CallRecord::Batch batch = record->wait(0);
    ASSERT_EQ(batch.frames.size(), 2u);
    EXPECT_EQ(progress_of(batch.frames[0]), 1.0);
    EXPECT_EQ(progress_of(batch.frames[1]), 4.0);
    EXPECT_EQ(suppressed(), 2.0);
    EXPECT_EQ(session->last_event_id(), 4u);
    EXPECT_EQ(batch.frames[1].id, 4u);
    // The pump took 1 and 4 and its client left before it wrote them: a
    // resume replays those two. Never 2 or 3, replaced before anyone wrote
    // them: progress must not go back after 4.
    small.set_pump_attached(*record, false);
    const auto resumed = session->attach(0, budget_);
    ASSERT_EQ(resumed.outcome, Session::Attach::Outcome::kAttached);
    ASSERT_EQ(resumed.replay.size(), 2u);
    EXPECT_EQ(progress_of(resumed.replay[0]), 1.0);
    EXPECT_EQ(progress_of(resumed.replay[1]), 4.0);
    session->detach(resumed.generation);
    small.abandon(*record, CloseReason::kRecordGone);
}

TEST_F(ProgressBridgeTest, ALogMessageIsNotReplacedByProgress) {
    auto session = make_session();
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    bridge_->set_pump_attached(*record, true);
    const std::string log = R"({"jsonrpc":"2.0","method":"notifications/message","params":{}})";
    bridge_->report(*record, 1, std::nullopt, "");
    bridge_->deliver_log(*record, log);
    bridge_->report(*record, 2, std::nullopt, "");
    const CallRecord::Batch batch = record->wait(0);
    ASSERT_EQ(batch.frames.size(), 3u);
    EXPECT_EQ(progress_of(batch.frames[0]), 1.0);
    EXPECT_EQ(data_text(batch.frames[1]), log);
    EXPECT_EQ(progress_of(batch.frames[2]), 2.0);
    EXPECT_EQ(suppressed(), 0.0);
    bridge_->abandon(*record, CloseReason::kRecordGone);
}

TEST_F(ProgressBridgeTest, APumpsFramesAreItsOwnAndADetachedCallsGoToTheGetStream) {
    auto session = make_session();
    const auto attached = session->attach(std::nullopt, budget_);
    ASSERT_EQ(attached.outcome, Session::Attach::Outcome::kAttached);
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    // With a pump: on its outbox, never on the GET connection.
    bridge_->set_pump_attached(*record, true);
    bridge_->report(*record, 1, std::nullopt, "");
    EXPECT_EQ(record->wait(0).frames.size(), 1u);
    EXPECT_TRUE(session->wait(attached.generation, attached.cursor, 0).frames.empty());
    // The client left: later frames go to the GET connection, live.
    bridge_->set_pump_attached(*record, false);
    bridge_->report(*record, 2, std::nullopt, "");
    EXPECT_TRUE(record->wait(0).frames.empty());
    const Session::Batch batch = session->wait(attached.generation, attached.cursor, 0);
    ASSERT_EQ(batch.frames.size(), 1u);
    EXPECT_EQ(progress_of(batch.frames[0]), 2.0);
    EXPECT_EQ(session->last_event_id(), 2u);
    bridge_->abandon(*record, CloseReason::kRecordGone);
    session->detach(attached.generation);
}

// While the pump is attached, a GET resume leaves the call's frames to it,
// even those it has taken and not written yet; once it is gone, a resume
// replays what it did not write.
TEST_F(ProgressBridgeTest, AResumeDoesNotReplayFramesAnAttachedPumpWillWrite) {
    auto session = make_session();
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    bridge_->set_pump_attached(*record, true);
    bridge_->report(*record, 1, std::nullopt, "");
    bridge_->report(*record, 2, std::nullopt, "");
    const auto early = session->attach(0, budget_);
    ASSERT_EQ(early.outcome, Session::Attach::Outcome::kAttached);
    EXPECT_TRUE(early.replay.empty());
    session->detach(early.generation);

    const CallRecord::Batch taken = record->wait(0);
    ASSERT_EQ(taken.frames.size(), 2u);
    session->delivered(taken.frames[0].id);  // the pump wrote 1, then lost its client
    const auto mid = session->attach(0, budget_);
    ASSERT_EQ(mid.outcome, Session::Attach::Outcome::kAttached);
    EXPECT_TRUE(mid.replay.empty()) << "frame 2 is still the pump's";
    session->detach(mid.generation);

    bridge_->set_pump_attached(*record, false);
    const auto late = session->attach(0, budget_);
    ASSERT_EQ(late.outcome, Session::Attach::Outcome::kAttached);
    ASSERT_EQ(late.replay.size(), 1u);
    EXPECT_EQ(progress_of(late.replay[0]), 2.0);
    session->detach(late.generation);
    bridge_->abandon(*record, CloseReason::kRecordGone);
}

// A frame a full outbox drops is one the pump will never write: it is not
// the pump's, so a resume replays it even while the pump is attached.
TEST_F(ProgressBridgeTest, AFrameAFullOutboxDropsIsLeftToAResume) {
    ProgressBridge::Options o = options();
    o.max_outbox = 1;
    make_bridge(o);
    auto session = make_session();
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    bridge_->set_pump_attached(*record, true);
    bridge_->report(*record, 1, std::nullopt, "");
    const std::string log = R"({"jsonrpc":"2.0","method":"notifications/message","params":{}})";
    bridge_->deliver_log(*record, log);  // the outbox holds progress 1: dropped
    const auto resumed = session->attach(0, budget_);
    ASSERT_EQ(resumed.outcome, Session::Attach::Outcome::kAttached);
    ASSERT_EQ(resumed.replay.size(), 1u);
    EXPECT_EQ(data_text(resumed.replay[0]), log);
    session->detach(resumed.generation);
    const CallRecord::Batch batch = record->wait(0);
    ASSERT_EQ(batch.frames.size(), 1u);
    EXPECT_EQ(progress_of(batch.frames[0]), 1.0);
    bridge_->abandon(*record, CloseReason::kRecordGone);
}

// --- d. finish() with nothing followed -----------------------------------------

TEST_F(ProgressBridgeTest, FinishWithNothingFollowedSettlesAtOnce) {
    auto session = make_session();
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    bridge_->set_pump_attached(*record, true);
    bridge_->finish(*record, kResult);

    const CallRecord::Batch batch = record->wait(0);
    EXPECT_TRUE(batch.frames.empty());
    ASSERT_TRUE(batch.final.has_value());
    EXPECT_EQ(data_text(*batch.final), kResult);
    EXPECT_EQ(batch.final->id, 1u);
    EXPECT_TRUE(batch.final->pinned);
    EXPECT_EQ(batch.ended, CloseReason::kCompleted);
    EXPECT_TRUE(record->ended());
    EXPECT_EQ(session->pinned_finals(), 1u);
    EXPECT_EQ(session->calls_in_flight(), 0u);
    EXPECT_EQ(bridge_->records(), 0u);  // no projector: settled on this thread
    EXPECT_EQ(bridge_metrics_.records_active.Value(), 0.0);
    session->delivered(batch.final->id);
    EXPECT_EQ(session->pinned_finals(), 0u);
}

TEST_F(ProgressBridgeTest, FinishOfAGetChannelRecordWithNothingFollowedEndsTheCall) {
    auto session = make_session();
    auto record = reserve_ok(session, 7, false);
    ASSERT_NE(record, nullptr);
    bridge_->finish(*record, kResult);
    const CallRecord::Batch batch = record->wait(0);
    EXPECT_FALSE(batch.final.has_value());
    EXPECT_EQ(batch.ended, CloseReason::kCompleted);
    EXPECT_EQ(session->pinned_finals(), 0u);
    EXPECT_EQ(session->calls_in_flight(), 0u);
    EXPECT_EQ(session->last_event_id(), 0u);  // the result is not on the stream
    EXPECT_EQ(bridge_->records(), 0u);
}

TEST_F(ProgressBridgeTest, FinishWhenTheFollowedExecutionIsAlreadyCompleteSettlesAtOnce) {
    auto session = make_session();
    snapshots_.set("e1", progress(2, 2, 2, 0, true));
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    bridge_->set_pump_attached(*record, true);
    bridge_->follow(*record, {"e1"});
    bridge_->finish(*record, kResult);
    const CallRecord::Batch batch = record->wait(0);
    // The last counts are projected, then the final.
    ASSERT_EQ(batch.frames.size(), 1u);
    json m = data_of(batch.frames[0]);
    EXPECT_EQ(m["params"]["progress"].get<double>(), 2.0);
    EXPECT_EQ(m["params"]["total"].get<double>(), 2.0);
    EXPECT_EQ(m["params"]["message"],
              "2 of 2 agents settled (2 succeeded, 0 failed); "
              "execution completed");
    ASSERT_TRUE(batch.final.has_value());
    EXPECT_EQ(data_text(*batch.final), kResult);
    EXPECT_EQ(batch.ended, CloseReason::kCompleted);
    EXPECT_EQ(bridge_->records(), 0u);
}

// --- e. cancel() ---------------------------------------------------------------

TEST_F(ProgressBridgeTest, CancelDetachesTheCallWithoutAFinal) {
    auto session = make_session();
    auto other = make_session("session-0002-abcdef");
    snapshots_.set("e1", progress(3, 1));
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    bridge_->set_pump_attached(*record, true);
    bridge_->follow(*record, {"e1"});
    EXPECT_EQ(session->calls_in_flight(), 1u);

    EXPECT_FALSE(bridge_->cancel(*session, 8));    // another id
    EXPECT_FALSE(bridge_->cancel(*session, "7"));  // a string id is another id
    EXPECT_FALSE(bridge_->cancel(*other, 7));      // another session
    EXPECT_FALSE(record->ended());

    EXPECT_TRUE(bridge_->cancel(*session, 7));
    const CallRecord::Batch batch = record->wait(0);
    EXPECT_FALSE(batch.final.has_value());
    EXPECT_EQ(batch.ended, CloseReason::kCancelled);
    EXPECT_EQ(session->calls_in_flight(), 0u);
    EXPECT_EQ(session->pinned_finals(), 0u);
    EXPECT_EQ(bridge_->records(), 0u);
    EXPECT_FALSE(bridge_->cancel(*session, 7));

    // The handler's late result changes nothing.
    bridge_->finish(*record, kResult);
    EXPECT_FALSE(record->wait(0).final.has_value());
    EXPECT_EQ(session->pinned_finals(), 0u);
    EXPECT_EQ(session->last_event_id(), 0u);
    // The id is free again on that session.
    auto again = reserve_ok(session, 7, true);
    EXPECT_NE(again, nullptr);
}

}  // namespace
}  // namespace yuzu::mcp
