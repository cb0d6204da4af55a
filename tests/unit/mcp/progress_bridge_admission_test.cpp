// ProgressBridge admission and endings: the record cap, duplicate ids, a
// closed session, the streamed-call slots and the reclaim of an undelivered
// final (counted and audited), shutdown, the cap's expiry, and summing two
// followed executions.
#include <gtest/gtest.h>

#include "progress_bridge_fixture.hpp"

namespace yuzu::mcp {
namespace {

using namespace bridge_testing;  // NOLINT(google-build-using-namespace): the fixture

// --- f. admission refusals -----------------------------------------------------

TEST_F(ProgressBridgeTest, TheRecordCapRefusesAndAdmitsNothing) {
    ProgressBridge::Options o = options();
    o.max_records = 1;
    make_bridge(o);
    auto session = make_session();
    auto other = make_session("session-0002-abcdef");
    auto first = reserve_ok(session, 1, true);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(bridge_metrics_.records_active.Value(), 1.0);

    EXPECT_EQ(refusal_of(reserve(session, 2, true)), Refusal::kRecordCap);
    EXPECT_EQ(refusal_of(reserve(other, 2, false)), Refusal::kRecordCap);  // server-wide
    EXPECT_EQ(session->calls_in_flight(), 1u);
    EXPECT_EQ(other->calls_in_flight(), 0u);
    EXPECT_EQ(bridge_->records(), 1u);
    EXPECT_EQ(sample(registry_.Serialize(), reject_series("record_cap")), 2.0);
    EXPECT_EQ(sample(registry_.Serialize(), reject_series("duplicate_id")), 0.0);

    bridge_->finish(*first, kResult);
    EXPECT_EQ(bridge_->records(), 0u);
    EXPECT_NE(reserve_ok(session, 2, true), nullptr);
}

TEST_F(ProgressBridgeTest, ADuplicateRequestIdOnTheSameSessionIsRefused) {
    auto session = make_session();
    auto other = make_session("session-0002-abcdef");
    auto first = reserve_ok(session, 1, false);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(refusal_of(reserve(session, 1, false)), Refusal::kDuplicateId);
    EXPECT_EQ(refusal_of(reserve(session, 1, true)), Refusal::kDuplicateId);
    EXPECT_EQ(sample(registry_.Serialize(), reject_series("duplicate_id")), 2.0);
    EXPECT_EQ(session->calls_in_flight(), 1u);
    EXPECT_EQ(bridge_->records(), 1u);
    // The same id on another session, or another id, is another call.
    EXPECT_NE(reserve_ok(other, 1, false), nullptr);
    EXPECT_NE(reserve_ok(session, "1", false), nullptr);
    EXPECT_EQ(bridge_->records(), 3u);
    EXPECT_EQ(bridge_metrics_.records_active.Value(), 3.0);
}

TEST_F(ProgressBridgeTest, AClosedSessionIsRefused) {
    auto session = make_session();
    session->close(CloseReason::kSessionTerminated);
    EXPECT_EQ(refusal_of(reserve(session, 1, true)), Refusal::kClosed);
    EXPECT_EQ(bridge_->records(), 0u);
}

TEST_F(ProgressBridgeTest, StreamedCallsBeyondTheSlotsAreRefused) {
    SessionLimits limits;
    limits.max_pinned = 1;
    auto session = make_session("session-0001-abcdef", limits);
    auto first = reserve_ok(session, 1, true);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(refusal_of(reserve(session, 2, true)), Refusal::kSlotsBusy);
    EXPECT_EQ(sample(registry_.Serialize(), reject_series("pin_slots")), 1.0);
    EXPECT_NE(reserve_ok(session, 3, false), nullptr);  // plain calls take no slot
    EXPECT_EQ(bridge_->records(), 2u);
}

// --- g. reclaiming an undelivered final's pin ------------------------------------

TEST_F(ProgressBridgeTest, AStreamedCallReclaimsTheSlotOfAnUndeliveredFinal) {
    SessionLimits limits;
    limits.max_pinned = 1;
    auto session = make_session("session-0001-abcdef", limits);

    auto reserved = reserve(session, 1, true);
    ASSERT_TRUE(std::holds_alternative<ProgressBridge::Reservation>(reserved));
    EXPECT_FALSE(std::get<ProgressBridge::Reservation>(reserved).reclaimed_pin);
    auto first = std::get<ProgressBridge::Reservation>(reserved).record;
    bridge_->set_pump_attached(*first, true);
    bridge_->set_pump_attached(*first, false);  // the peer went away
    bridge_->finish(*first, kResult);
    const CallRecord::Batch batch = first->wait(0);
    EXPECT_FALSE(batch.final.has_value());  // nobody to hand it to
    EXPECT_EQ(batch.ended, CloseReason::kCompleted);
    EXPECT_EQ(session->pinned_finals(), 1u);  // kept for a resume
    EXPECT_EQ(session->last_event_id(), 1u);
    EXPECT_EQ(bridge_metrics_.pin_displaced_for_admission.Value(), 0.0);
    EXPECT_TRUE(audit_.events().empty());

    auto second = reserve(session, 2, true, "tok-2");
    ASSERT_TRUE(std::holds_alternative<ProgressBridge::Reservation>(second));
    const auto& reservation = std::get<ProgressBridge::Reservation>(second);
    EXPECT_TRUE(reservation.reclaimed_pin);
    ASSERT_NE(reservation.record, nullptr);
    EXPECT_EQ(session->pinned_finals(), 0u);
    EXPECT_EQ(bridge_metrics_.pin_displaced_for_admission.Value(), 1.0);
    EXPECT_EQ(sample(registry_.Serialize(), "yuzu_mcp_bridge_pin_displaced_for_admission_total"),
              1.0);

    const auto events = audit_.events();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].action, "mcp.bridge.pin_displaced_for_admission");
    EXPECT_EQ(events[0].principal, "alice");
    EXPECT_EQ(events[0].principal_kind, "mcp_token");
    EXPECT_EQ(events[0].target_type, "mcp_session");
    EXPECT_EQ(events[0].target_id, "session-");  // the first 8 characters only
    EXPECT_EQ(events[0].correlation_id, "corr-1");

    // The slot is the live call's now: a third streamed call waits.
    EXPECT_EQ(refusal_of(reserve(session, 3, true)), Refusal::kSlotsBusy);
    EXPECT_EQ(bridge_metrics_.pin_displaced_for_admission.Value(), 1.0);
    EXPECT_EQ(audit_.events().size(), 1u);
}

TEST_F(ProgressBridgeTest, AReclaimIsCountedWithoutAnAuditLog) {
    bridge_.reset();
    bridge_ = std::make_unique<ProgressBridge>(&bus_, snapshots_.fn(), &bridge_metrics_, nullptr,
                                               clock_, options());
    SessionLimits limits;
    limits.max_pinned = 1;
    auto session = make_session("session-0001-abcdef", limits);
    auto first = reserve_ok(session, 1, true);
    ASSERT_NE(first, nullptr);
    bridge_->finish(*first, kResult);
    EXPECT_EQ(session->pinned_finals(), 1u);
    auto second = reserve(session, 2, true);
    ASSERT_TRUE(std::holds_alternative<ProgressBridge::Reservation>(second));
    EXPECT_TRUE(std::get<ProgressBridge::Reservation>(second).reclaimed_pin);
    EXPECT_EQ(bridge_metrics_.pin_displaced_for_admission.Value(), 1.0);
}

// --- h. shutdown() -------------------------------------------------------------

TEST_F(ProgressBridgeTest, ShutdownEndsLiveRecordsAndRefusesNewOnes) {
    bridge_->start();
    auto session = make_session();
    snapshots_.set("e1", progress(3, 1));
    auto streamed = reserve_ok(session, 1, true);
    auto plain = reserve_ok(session, 2, false);
    ASSERT_NE(streamed, nullptr);
    ASSERT_NE(plain, nullptr);
    bridge_->set_pump_attached(*streamed, true);
    bridge_->follow(*streamed, {"e1"});
    bridge_->finish(*streamed, kResult);  // incomplete: stays open
    EXPECT_EQ(session->calls_in_flight(), 2u);

    bridge_->shutdown();
    CallRecord::Batch batch = streamed->wait(0);
    EXPECT_FALSE(batch.final.has_value());
    EXPECT_EQ(batch.ended, CloseReason::kRecordGone);
    batch = plain->wait(0);
    EXPECT_FALSE(batch.final.has_value());
    EXPECT_EQ(batch.ended, CloseReason::kRecordGone);
    EXPECT_EQ(session->calls_in_flight(), 0u);
    EXPECT_EQ(session->pinned_finals(), 0u);
    EXPECT_EQ(bridge_->records(), 0u);
    EXPECT_EQ(bridge_metrics_.records_active.Value(), 0.0);

    EXPECT_EQ(refusal_of(reserve(session, 3, true)), Refusal::kShuttingDown);
    EXPECT_EQ(refusal_of(reserve(session, 4, false)), Refusal::kShuttingDown);
    EXPECT_EQ(session->calls_in_flight(), 0u);
    bridge_->shutdown();  // idempotent
    bridge_->start();     // a no-op now
    EXPECT_EQ(refusal_of(reserve(session, 5, false)), Refusal::kShuttingDown);
    EXPECT_EQ(streamed->wait(0).ended, CloseReason::kRecordGone);
}

// --- i. expire() ---------------------------------------------------------------

TEST_F(ProgressBridgeTest, ExpireSettlesAnIncompleteStreamedRecordWithItsResult) {
    auto session = make_session();
    snapshots_.set("e1", progress(3, 1, 1, 0));
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    bridge_->set_pump_attached(*record, true);
    bridge_->follow(*record, {"e1"});
    bridge_->finish(*record, kResult);
    CallRecord::Batch batch = record->wait(0);
    EXPECT_FALSE(batch.final.has_value());
    EXPECT_FALSE(batch.ended.has_value());

    bridge_->expire(*record);
    batch = record->wait(0);
    // One more projection, then the result.
    ASSERT_EQ(batch.frames.size(), 1u);
    json m = data_of(batch.frames[0]);
    EXPECT_EQ(m["params"]["progress"].get<double>(), 1.0);
    EXPECT_EQ(m["params"]["total"].get<double>(), 3.0);
    EXPECT_EQ(m["params"]["message"], "1 of 3 agents settled (1 succeeded, 0 failed)");
    EXPECT_EQ(m["params"]["_meta"]["execution_id"], "e1");
    ASSERT_TRUE(batch.final.has_value());
    EXPECT_EQ(data_text(*batch.final), kResult);
    EXPECT_GT(batch.final->id, batch.frames[0].id);
    EXPECT_EQ(batch.ended, CloseReason::kCapExpired);
    EXPECT_EQ(session->pinned_finals(), 1u);
    EXPECT_EQ(session->calls_in_flight(), 0u);
    EXPECT_EQ(bridge_->records(), 0u);

    bridge_->expire(*record);  // gone: nothing more
    EXPECT_EQ(session->pinned_finals(), 1u);
    EXPECT_EQ(record->wait(0).ended, CloseReason::kCapExpired);
}

TEST_F(ProgressBridgeTest, ExpireBeforeTheResultEndsWithoutAFinal) {
    auto session = make_session();
    snapshots_.set("e1", progress(3, 0));
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    bridge_->set_pump_attached(*record, true);
    bridge_->follow(*record, {"e1"});
    bridge_->expire(*record);
    const CallRecord::Batch batch = record->wait(0);
    EXPECT_FALSE(batch.final.has_value());
    EXPECT_EQ(batch.ended, CloseReason::kCapExpired);
    EXPECT_EQ(session->pinned_finals(), 0u);
    EXPECT_EQ(session->calls_in_flight(), 0u);
    EXPECT_EQ(bridge_->records(), 0u);
    // A handler returning afterwards commits nothing.
    bridge_->finish(*record, kResult);
    EXPECT_EQ(session->pinned_finals(), 0u);
    EXPECT_FALSE(record->wait(0).final.has_value());
}

TEST_F(ProgressBridgeTest, TwoFollowedExecutionsAreSummed) {
    auto session = make_session();
    snapshots_.set("e1", progress(2, 1, 1, 0));
    snapshots_.set("e2", progress(3, 2, 1, 1));
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    bridge_->set_pump_attached(*record, true);
    bridge_->follow(*record, {"e1", "e2"});
    bridge_->expire(*record);
    const CallRecord::Batch batch = record->wait(0);
    ASSERT_EQ(batch.frames.size(), 1u);
    json m = data_of(batch.frames[0]);
    EXPECT_EQ(m["params"]["progress"].get<double>(), 3.0);
    EXPECT_EQ(m["params"]["total"].get<double>(), 5.0);
    EXPECT_EQ(m["params"]["message"], "3 of 5 agents settled (2 succeeded, 1 failed)");
    EXPECT_EQ(m["params"]["_meta"]["execution_ids"], json::array({"e1", "e2"}));
    EXPECT_FALSE(m["params"]["_meta"].contains("execution_id"));
    EXPECT_EQ(batch.ended, CloseReason::kCapExpired);
}

}  // namespace
}  // namespace yuzu::mcp
