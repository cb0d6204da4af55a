// Session: event ids, attach (live, resume, gap, admission, takeover), the
// bounded connection queue and its catch-up from the ring, close, the
// per-frame cap, and the logging threshold.
#include "yuzu/mcp/session/session.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "yuzu/http/stream_budget.hpp"
#include "yuzu/mcp/session/close_reason.hpp"
#include "yuzu/mcp/session/stream_metrics.hpp"
#include "yuzu/metrics/counter.hpp"
#include "yuzu/metrics/gauge.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::mcp {
namespace {

using Outcome = Session::Attach::Outcome;
using Ids = std::vector<uint64_t>;

SessionLimits small_limits() {
    SessionLimits limits;
    limits.ring_frames = 4;
    limits.ring_bytes = size_t{1} << 20;
    limits.max_pinned = 1;
    limits.connection_queue = 2;
    limits.max_frame_bytes = 128;
    return limits;
}

std::string message(uint64_t n) {
    return "{\"n\":" + std::to_string(n) + "}";
}

Ids ids(const std::vector<StreamFrame>& frames) {
    Ids out;
    for (const auto& f : frames) out.push_back(f.id);
    return out;
}

// The value of the sample line "<series> <value>", if there is one.
std::optional<double> sample(const std::string& text, const std::string& series) {
    const std::string key = "\n" + series + " ";
    const size_t at = text.find(key);
    if (at == std::string::npos) return std::nullopt;
    return std::stod(text.substr(at + key.size()));
}

class SessionTest : public ::testing::Test {
  protected:
    // Publishes messages n = first..last.
    void publish_range(uint64_t first, uint64_t last) {
        for (uint64_t n = first; n <= last; ++n) {
            const Status status = session_.publish(message(n));
            EXPECT_TRUE(status.ok()) << status.to_string();
        }
    }

    Session::Attach attach_ok(std::optional<uint64_t> last_event_id = std::nullopt) {
        Session::Attach a = session_.attach(last_event_id, budget_);
        EXPECT_EQ(a.outcome, Outcome::kAttached);
        return a;
    }

    // Declared before the session, so it outlives the session's lease.
    http::StreamBudget budget_{4, 1};
    Session session_{"sid", "alice", "2025-06-18", small_limits(), nullptr, 0};
};

TEST_F(SessionTest, PublishAssignsConsecutiveIdsFromOne) {
    EXPECT_EQ(session_.principal(), "alice");
    EXPECT_EQ(session_.last_event_id(), 0u);
    const auto a = attach_ok();
    publish_range(1, 2);
    EXPECT_EQ(session_.last_event_id(), 2u);
    const Session::Batch batch = session_.wait(a.generation, a.cursor, 0);
    ASSERT_EQ(ids(batch.frames), (Ids{1, 2}));
    EXPECT_FALSE(batch.close.has_value());
    EXPECT_EQ(*batch.frames[0].text, "id: 1\ndata: {\"n\":1}\n\n");
    EXPECT_EQ(batch.frames[1].text->rfind("id: 2\n", 0), 0u);
    // Nothing more is queued.
    EXPECT_TRUE(session_.wait(a.generation, 2, 0).frames.empty());
}

TEST_F(SessionTest, AttachWithoutLastEventIdStartsLive) {
    publish_range(1, 3);
    const auto a = attach_ok();
    EXPECT_TRUE(a.replay.empty());
    EXPECT_EQ(a.cursor, 3u);
    EXPECT_FALSE(a.took_over);
    EXPECT_NE(a.generation, 0u);
    EXPECT_TRUE(session_.has_connection());
    EXPECT_EQ(budget_.active(), 1u);
    EXPECT_TRUE(session_.wait(a.generation, a.cursor, 0).frames.empty());
    publish_range(4, 4);
    EXPECT_EQ(ids(session_.wait(a.generation, a.cursor, 0).frames), (Ids{4}));
}

TEST_F(SessionTest, AttachWithLastEventIdReplaysExactlyTheFramesAfterIt) {
    publish_range(1, 3);
    const auto a = attach_ok(1);
    EXPECT_EQ(ids(a.replay), (Ids{2, 3}));
    EXPECT_EQ(a.cursor, 3u);
    EXPECT_EQ(a.replay[0].text->rfind("id: 2\n", 0), 0u);
    session_.detach(a.generation);
    const auto b = attach_ok(3);
    EXPECT_TRUE(b.replay.empty());
    EXPECT_EQ(b.cursor, 3u);
}

TEST_F(SessionTest, ACursorTheRingHasPassedIsAGapThatClosesTheSession) {
    publish_range(1, 6);  // the ring holds 3..6
    const auto a = session_.attach(1, budget_);
    EXPECT_EQ(a.outcome, Outcome::kGap);
    EXPECT_TRUE(a.replay.empty());
    EXPECT_EQ(session_.closed(), CloseReason::kSessionTerminated);
    EXPECT_EQ(budget_.active(), 0u);
    EXPECT_FALSE(session_.has_connection());
    EXPECT_EQ(session_.attach(std::nullopt, budget_).outcome, Outcome::kClosed);
}

TEST_F(SessionTest, ACursorBeyondTheLastIdIsAGap) {
    publish_range(1, 2);
    EXPECT_EQ(session_.attach(5, budget_).outcome, Outcome::kGap);
    EXPECT_EQ(session_.closed(), CloseReason::kSessionTerminated);
}

TEST_F(SessionTest, QueueOverflowCatchesUpFromTheRingInOrder) {
    const auto a = attach_ok();
    publish_range(1, 2);
    EXPECT_EQ(ids(session_.wait(a.generation, 0, 0).frames), (Ids{1, 2}));
    publish_range(3, 6);  // 3 and 4 are queued, 5 and 6 do not fit
    const Session::Batch batch = session_.wait(a.generation, 2, 0);
    EXPECT_EQ(ids(batch.frames), (Ids{3, 4, 5, 6}));
    EXPECT_FALSE(batch.close.has_value());
    EXPECT_EQ(session_.closed(), std::nullopt);
    EXPECT_TRUE(session_.wait(a.generation, 6, 0).frames.empty());
    publish_range(7, 7);
    EXPECT_EQ(ids(session_.wait(a.generation, 6, 0).frames), (Ids{7}));
}

TEST_F(SessionTest, OverflowWhenTheRingHasMovedOnClosesWithReplayGap) {
    const auto a = attach_ok();
    publish_range(1, 1);
    EXPECT_EQ(ids(session_.wait(a.generation, 0, 0).frames), (Ids{1}));
    publish_range(2, 7);  // the ring holds 4..7; frames 2 and 3 are gone
    const Session::Batch batch = session_.wait(a.generation, 1, 0);
    EXPECT_TRUE(batch.frames.empty());
    EXPECT_EQ(batch.close, CloseReason::kReplayGap);
    EXPECT_EQ(session_.closed(), CloseReason::kReplayGap);
    EXPECT_FALSE(session_.publish(message(8)).ok());
}

TEST_F(SessionTest, ASecondAttachTakesOverAndInheritsTheLease) {
    const auto first = attach_ok();
    EXPECT_EQ(budget_.active_for("alice"), 1u);
    // The per-principal cap is 1: a takeover needs no second slot.
    const auto second = attach_ok();
    EXPECT_TRUE(second.took_over);
    EXPECT_NE(second.generation, first.generation);
    EXPECT_EQ(budget_.active(), 1u);

    const Session::Batch old = session_.wait(first.generation, first.cursor, 0);
    EXPECT_TRUE(old.frames.empty());
    EXPECT_EQ(old.close, CloseReason::kSuperseded);
    publish_range(1, 1);
    EXPECT_EQ(ids(session_.wait(second.generation, second.cursor, 0).frames), (Ids{1}));
    EXPECT_EQ(session_.wait(first.generation, 1, 0).close, CloseReason::kSuperseded);

    session_.detach(first.generation);
    EXPECT_EQ(budget_.active(), 1u);
    EXPECT_TRUE(session_.has_connection());
    session_.detach(second.generation);
    EXPECT_EQ(budget_.active(), 0u);
    EXPECT_FALSE(session_.has_connection());
    EXPECT_EQ(session_.closed(), std::nullopt);
}

TEST_F(SessionTest, ATakeoverWaitsUntilTheSupersededConnectionHasEnded) {
    const auto first = attach_ok();
    const auto second = attach_ok();
    EXPECT_FALSE(session_.is_current(first.generation));
    EXPECT_TRUE(session_.is_current(second.generation));
    // The first one is still writing: a third GET may not pile up.
    EXPECT_EQ(session_.attach(std::nullopt, budget_).outcome, Outcome::kHandoverPending);
    session_.detach(first.generation);
    const auto third = attach_ok();
    EXPECT_TRUE(third.took_over);
    session_.detach(second.generation);
    session_.detach(third.generation);
    EXPECT_EQ(budget_.active(), 0u);
}

TEST(SessionQueueTest, TheConnectionQueueIsBoundedInBytesToo) {
    SessionLimits limits;
    limits.ring_frames = 10;
    limits.ring_bytes = 1000;
    limits.connection_queue = 10;
    limits.connection_queue_bytes = 150;
    limits.max_frame_bytes = 200;
    http::StreamBudget budget(4, 4);
    Session session("s", "alice", "2025-11-25", limits, nullptr, 0);
    const auto a = session.attach(std::nullopt, budget);
    ASSERT_EQ(a.outcome, Outcome::kAttached);
    const std::string body(100, 'x');
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(session.publish("\"" + body + "\"").ok());
    // The second frame would pass 150 queued bytes: the queue overflows and
    // the connection catches up from the ring, every frame in order.
    const Session::Batch batch = session.wait(a.generation, 0, 0);
    EXPECT_FALSE(batch.close.has_value());
    EXPECT_EQ(ids(batch.frames), (Ids{1, 2, 3}));
    session.detach(a.generation);
}

TEST_F(SessionTest, AttachIsRefusedWhenTheBudgetIsFull) {
    auto other = budget_.acquire("alice");  // alice's one slot
    ASSERT_TRUE(other.lease.has_value());
    const auto refused = session_.attach(std::nullopt, budget_);
    EXPECT_EQ(refused.outcome, Outcome::kPerPrincipalCap);
    EXPECT_FALSE(session_.has_connection());
    EXPECT_EQ(session_.closed(), std::nullopt);  // a refusal does not close
    EXPECT_EQ(budget_.active(), 1u);

    other.lease->release();
    const auto a = attach_ok();
    EXPECT_FALSE(a.took_over);
    EXPECT_EQ(budget_.active_for("alice"), 1u);
}

TEST(SessionAdmission, AttachIsRefusedWhenTheListenerIsFull) {
    http::StreamBudget full(1, 0);
    Session session("sid", "alice", "2025-06-18", small_limits(), nullptr, 0);
    auto bob = full.acquire("bob");
    ASSERT_TRUE(bob.lease.has_value());
    EXPECT_EQ(session.attach(std::nullopt, full).outcome, Outcome::kGlobalCap);
    EXPECT_FALSE(session.has_connection());
    EXPECT_EQ(session.closed(), std::nullopt);
    EXPECT_EQ(full.active(), 1u);
    EXPECT_EQ(full.active_for("alice"), 0u);

    bob.lease->release();
    const auto a = session.attach(std::nullopt, full);
    EXPECT_EQ(a.outcome, Outcome::kAttached);
    EXPECT_EQ(full.active_for("alice"), 1u);
    session.detach(a.generation);
    EXPECT_EQ(full.active(), 0u);
}

TEST_F(SessionTest, CloseEndsTheStreamAfterTheFramesAlreadyCommitted) {
    const auto a = attach_ok();
    publish_range(1, 2);
    session_.close(CloseReason::kSessionTerminated);
    session_.close(CloseReason::kInternalError);  // the first reason stays
    EXPECT_EQ(session_.closed(), CloseReason::kSessionTerminated);

    const Session::Batch batch = session_.wait(a.generation, a.cursor, 0);
    EXPECT_EQ(ids(batch.frames), (Ids{1, 2}));
    EXPECT_EQ(batch.close, CloseReason::kSessionTerminated);
    EXPECT_EQ(session_.wait(a.generation, 2, 0).close, CloseReason::kSessionTerminated);

    const Status refused = session_.publish(message(3));
    EXPECT_FALSE(refused.ok());
    EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(session_.last_event_id(), 2u);
    EXPECT_EQ(session_.attach(std::nullopt, budget_).outcome, Outcome::kClosed);

    session_.detach(a.generation);
    EXPECT_EQ(budget_.active(), 0u);
}

TEST_F(SessionTest, AnOversizedMessageIsRefusedWithoutUsingAnId) {
    publish_range(1, 1);
    const Status big = session_.publish(std::string(200, 'x'));
    EXPECT_FALSE(big.ok());
    EXPECT_EQ(big.code(), StatusCode::kResourceExhausted);
    EXPECT_EQ(session_.last_event_id(), 1u);
    EXPECT_EQ(session_.closed(), std::nullopt);
    publish_range(2, 2);
    const auto a = attach_ok(0);
    ASSERT_EQ(ids(a.replay), (Ids{1, 2}));
    EXPECT_EQ(a.replay[1].text->rfind("id: 2\n", 0), 0u);
}

TEST_F(SessionTest, WaitReturnsFramesPublishedByAnotherThread) {
    const auto a = attach_ok();
    std::thread producer([this] {
        const Status status = session_.publish(message(1));
        EXPECT_TRUE(status.ok()) << status.to_string();
    });
    const Session::Batch batch = session_.wait(a.generation, a.cursor, 10'000);
    producer.join();
    EXPECT_EQ(ids(batch.frames), (Ids{1}));
    EXPECT_FALSE(batch.close.has_value());
}

TEST_F(SessionTest, LogThresholdDefaultsToWarning) {
    EXPECT_FALSE(session_.wants_log(LogLevel::kDebug));
    EXPECT_FALSE(session_.wants_log(LogLevel::kNotice));
    EXPECT_TRUE(session_.wants_log(LogLevel::kWarning));
    EXPECT_TRUE(session_.wants_log(LogLevel::kError));
    EXPECT_TRUE(session_.wants_log(LogLevel::kEmergency));
    session_.set_log_level(LogLevel::kDebug);
    EXPECT_TRUE(session_.wants_log(LogLevel::kDebug));
    EXPECT_TRUE(session_.wants_log(LogLevel::kInfo));
    session_.set_log_level(LogLevel::kEmergency);
    EXPECT_FALSE(session_.wants_log(LogLevel::kAlert));
    EXPECT_TRUE(session_.wants_log(LogLevel::kEmergency));
}

TEST(LogLevelNames, RoundTripAndUnknownNamesAreRefused) {
    const std::vector<std::pair<LogLevel, std::string_view>> all = {
        {LogLevel::kDebug, "debug"},   {LogLevel::kInfo, "info"},
        {LogLevel::kNotice, "notice"}, {LogLevel::kWarning, "warning"},
        {LogLevel::kError, "error"},   {LogLevel::kCritical, "critical"},
        {LogLevel::kAlert, "alert"},   {LogLevel::kEmergency, "emergency"}};
    for (const auto& [level, name] : all) {
        EXPECT_EQ(log_level_name(level), name);
        EXPECT_EQ(parse_log_level(name), level) << name;
    }
    for (const char* bad : {"", "warn", "WARNING", "Debug", "fatal", "info "}) {
        EXPECT_EQ(parse_log_level(bad), std::nullopt) << "'" << bad << "'";
    }
}

class SessionMetricsTest : public ::testing::Test {
  protected:
    metrics::Registry registry_;
    StreamMetrics metrics_{registry_};
    http::StreamBudget budget_{4, 1};
    Session session_{"sid", "alice", "2025-06-18", small_limits(), &metrics_, 0};
};

TEST_F(SessionMetricsTest, DroppedFramesAndStreamGaugesAreCounted) {
    const std::string dropped = "yuzu_mcp_stream_frames_dropped_total";
    EXPECT_EQ(sample(registry_.Serialize(), dropped), 0.0);
    auto a = session_.attach(std::nullopt, budget_);
    ASSERT_EQ(a.outcome, Outcome::kAttached);
    EXPECT_EQ(sample(registry_.Serialize(), "yuzu_mcp_streams_active"), 1.0);
    for (uint64_t n = 1; n <= 2; ++n) EXPECT_TRUE(session_.publish(message(n)).ok());
    EXPECT_EQ(ids(session_.wait(a.generation, 0, 0).frames), (Ids{1, 2}));
    EXPECT_EQ(sample(registry_.Serialize(), dropped), 0.0);
    // The queue holds 2: frame 5 is dropped from it. The ring holds 4 of 5.
    for (uint64_t n = 3; n <= 5; ++n) EXPECT_TRUE(session_.publish(message(n)).ok());
    EXPECT_EQ(sample(registry_.Serialize(), dropped), 1.0);
    EXPECT_EQ(sample(registry_.Serialize(), "yuzu_mcp_stream_replay_ring_evictions_total"), 1.0);
    EXPECT_EQ(ids(session_.wait(a.generation, 2, 0).frames), (Ids{3, 4, 5}));

    auto b = session_.attach(std::nullopt, budget_);
    ASSERT_TRUE(b.took_over);
    EXPECT_EQ(metrics_.handover_pending.Value(), 1.0);
    EXPECT_EQ(metrics_.streams_active.Value(), 1.0);
    session_.detach(a.generation);
    EXPECT_EQ(metrics_.handover_pending.Value(), 0.0);
    session_.detach(b.generation);
    EXPECT_EQ(sample(registry_.Serialize(), "yuzu_mcp_streams_active"), 0.0);
}

// --- calls in flight, streamed-call slots, ring-only and pinned frames -----

using Admission = Session::CallAdmission;

SessionLimits slot_limits(size_t max_pinned) {
    SessionLimits limits;
    limits.ring_frames = 16;
    limits.ring_bytes = size_t{1} << 20;
    limits.max_pinned = max_pinned;
    limits.connection_queue = 8;
    limits.max_frame_bytes = 256;
    return limits;
}

TEST(SessionCalls, ADuplicateRequestIdIsRefused) {
    Session session("sid", "alice", "2025-06-18", slot_limits(2), nullptr, 0);
    EXPECT_EQ(session.admit_call("1", false), Admission::kAdmitted);
    EXPECT_EQ(session.admit_call("1", false), Admission::kDuplicateId);
    EXPECT_EQ(session.admit_call("1", true), Admission::kDuplicateId);
    EXPECT_EQ(session.calls_in_flight(), 1u);
    // Request keys are compared exactly: "\"1\"" (a string id) is another call.
    EXPECT_EQ(session.admit_call("\"1\"", true), Admission::kAdmitted);
    EXPECT_EQ(session.calls_in_flight(), 2u);

    session.end_call("1");
    EXPECT_EQ(session.calls_in_flight(), 1u);
    session.end_call("1");  // idempotent
    session.end_call("never-admitted");
    EXPECT_EQ(session.calls_in_flight(), 1u);
    EXPECT_EQ(session.admit_call("1", false), Admission::kAdmitted);
}

TEST(SessionCalls, StreamedCallsTakeSlotsAndOtherCallsDoNot) {
    Session session("sid", "alice", "2025-06-18", slot_limits(2), nullptr, 0);
    EXPECT_EQ(session.admit_call("a", true), Admission::kAdmitted);
    EXPECT_EQ(session.admit_call("b", true), Admission::kAdmitted);
    EXPECT_EQ(session.admit_call("c", true), Admission::kSlotsBusy);
    EXPECT_EQ(session.calls_in_flight(), 2u);  // a refused call is not in flight
    // Non-streamed calls never take a slot, even when the slots are full.
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(session.admit_call("plain" + std::to_string(i), false), Admission::kAdmitted);
    }
    EXPECT_EQ(session.calls_in_flight(), 7u);
    EXPECT_EQ(session.admit_call("c", true), Admission::kSlotsBusy);
    // Ending a plain call frees no slot; ending a streamed call frees one.
    session.end_call("plain0");
    EXPECT_EQ(session.admit_call("c", true), Admission::kSlotsBusy);
    session.end_call("a");
    EXPECT_EQ(session.admit_call("c", true), Admission::kAdmitted);
    EXPECT_EQ(session.admit_call("d", true), Admission::kSlotsBusy);
    EXPECT_EQ(session.pinned_finals(), 0u);
}

TEST(SessionCalls, NoStreamedCallIsAdmittedWithoutSlots) {
    Session session("sid", "alice", "2025-06-18", slot_limits(0), nullptr, 0);
    EXPECT_EQ(session.admit_call("a", true), Admission::kSlotsBusy);
    EXPECT_EQ(session.admit_call("b", false), Admission::kAdmitted);
}

TEST(SessionCalls, CommitFinalPinsTheFinalAndPassesTheSlotToThePin) {
    Session session("sid", "alice", "2025-06-18", slot_limits(2), nullptr, 0);
    ASSERT_EQ(session.admit_call("a", true), Admission::kAdmitted);
    ASSERT_EQ(session.admit_call("b", true), Admission::kAdmitted);

    auto final_a = session.commit_final("a", message(1));
    ASSERT_TRUE(final_a.ok()) << final_a.status().to_string();
    EXPECT_EQ(final_a->id, 1u);
    EXPECT_TRUE(final_a->pinned);
    EXPECT_TRUE(final_a->ring_only);
    EXPECT_EQ(*final_a->text, "id: 1\ndata: {\"n\":1}\n\n");
    EXPECT_EQ(session.last_event_id(), 1u);
    EXPECT_EQ(session.pinned_finals(), 1u);
    EXPECT_EQ(session.calls_in_flight(), 1u);  // "a" ended with its final
    // The request id is free again.
    EXPECT_EQ(session.admit_call("a", false), Admission::kAdmitted);
    session.end_call("a");

    // Slots: "b" in flight and the pin of "a". A third streamed call takes
    // the pin's slot (it stays in the ring, unpinned).
    EXPECT_EQ(session.admit_call("c", true), Admission::kReclaimed);
    EXPECT_EQ(session.pinned_finals(), 0u);
    // Two live calls: nothing more to reclaim.
    EXPECT_EQ(session.admit_call("d", true), Admission::kSlotsBusy);
}

TEST(SessionCalls, ASlotFreedByAFinalIsFreeWhileAnotherSlotIsEmpty) {
    Session session("sid", "alice", "2025-06-18", slot_limits(2), nullptr, 0);
    ASSERT_EQ(session.admit_call("a", true), Admission::kAdmitted);
    ASSERT_TRUE(session.commit_final("a", message(1)).ok());
    EXPECT_EQ(session.pinned_finals(), 1u);
    EXPECT_EQ(session.calls_in_flight(), 0u);
    // One pin, one empty slot: admitted without reclaiming.
    EXPECT_EQ(session.admit_call("b", true), Admission::kAdmitted);
    EXPECT_EQ(session.pinned_finals(), 1u);
    // Now the pin is the only free slot.
    EXPECT_EQ(session.admit_call("c", true), Admission::kReclaimed);
    EXPECT_EQ(session.pinned_finals(), 0u);
}

TEST(SessionCalls, SlotsFullOfPinnedFinalsAreReclaimedOldestFirst) {
    Session session("sid", "alice", "2025-06-18", slot_limits(2), nullptr, 0);
    ASSERT_EQ(session.admit_call("a", true), Admission::kAdmitted);
    ASSERT_EQ(session.admit_call("b", true), Admission::kAdmitted);
    ASSERT_TRUE(session.commit_final("a", message(1)).ok());
    ASSERT_TRUE(session.commit_final("b", message(2)).ok());
    EXPECT_EQ(session.pinned_finals(), 2u);
    EXPECT_EQ(session.calls_in_flight(), 0u);

    EXPECT_EQ(session.admit_call("c", true), Admission::kReclaimed);
    EXPECT_EQ(session.pinned_finals(), 1u);
    // The oldest final (id 1) lost its pin; unpinning it again changes
    // nothing, while unpinning id 2 releases the last pin.
    session.delivered(1);
    EXPECT_EQ(session.pinned_finals(), 1u);
    session.delivered(2);
    EXPECT_EQ(session.pinned_finals(), 0u);
    EXPECT_EQ(session.admit_call("d", true), Admission::kAdmitted);
    EXPECT_EQ(session.admit_call("e", true), Admission::kSlotsBusy);
}

TEST(SessionCalls, ReclaimingUnpinsOneFinalPerAdmission) {
    Session session("sid", "alice", "2025-06-18", slot_limits(2), nullptr, 0);
    ASSERT_EQ(session.admit_call("a", true), Admission::kAdmitted);
    ASSERT_EQ(session.admit_call("b", true), Admission::kAdmitted);
    ASSERT_TRUE(session.commit_final("a", message(1)).ok());
    ASSERT_TRUE(session.commit_final("b", message(2)).ok());
    EXPECT_EQ(session.admit_call("c", true), Admission::kReclaimed);
    EXPECT_EQ(session.pinned_finals(), 1u);
    EXPECT_EQ(session.admit_call("d", true), Admission::kReclaimed);
    EXPECT_EQ(session.pinned_finals(), 0u);
    EXPECT_EQ(session.admit_call("e", true), Admission::kSlotsBusy);
    EXPECT_EQ(session.calls_in_flight(), 2u);
}

TEST(SessionCalls, AClosedSessionAdmitsNoCall) {
    Session session("sid", "alice", "2025-06-18", slot_limits(2), nullptr, 0);
    ASSERT_EQ(session.admit_call("a", false), Admission::kAdmitted);
    session.close(CloseReason::kSessionTerminated);
    EXPECT_EQ(session.admit_call("b", false), Admission::kClosed);
    EXPECT_EQ(session.admit_call("c", true), Admission::kClosed);
    EXPECT_EQ(session.admit_call("a", false), Admission::kClosed);  // closed wins
    const auto refused = session.commit(message(1), Session::CommitMode{true, false});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
    const auto final_refused = session.commit_final("a", message(1));
    ASSERT_FALSE(final_refused.ok());
    EXPECT_EQ(final_refused.status().code(), StatusCode::kFailedPrecondition);
    // The call ended all the same.
    EXPECT_EQ(session.calls_in_flight(), 0u);
    EXPECT_EQ(session.last_event_id(), 0u);
}

TEST(SessionCalls, AnOversizedFinalIsRefusedAndTheCallStillEnds) {
    Session session("sid", "alice", "2025-06-18", slot_limits(1), nullptr, 0);
    ASSERT_EQ(session.admit_call("a", true), Admission::kAdmitted);
    const auto refused = session.commit_final("a", std::string(400, 'x'));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted);
    EXPECT_EQ(session.calls_in_flight(), 0u);
    EXPECT_EQ(session.pinned_finals(), 0u);
    EXPECT_EQ(session.last_event_id(), 0u);
    EXPECT_EQ(session.admit_call("b", true), Admission::kAdmitted);
}

TEST_F(SessionTest, ARingOnlyCommitIsNotDeliveredToTheAttachedConnection) {
    const auto a = attach_ok();
    const auto committed = session_.commit(message(1), Session::CommitMode{true, false});
    ASSERT_TRUE(committed.ok()) << committed.status().to_string();
    EXPECT_EQ(committed->id, 1u);
    EXPECT_TRUE(committed->ring_only);
    EXPECT_FALSE(committed->pinned);
    EXPECT_EQ(*committed->text, "id: 1\ndata: {\"n\":1}\n\n");
    EXPECT_EQ(session_.last_event_id(), 1u);
    EXPECT_EQ(session_.pinned_finals(), 0u);

    const Session::Batch nothing = session_.wait(a.generation, a.cursor, 0);
    EXPECT_TRUE(nothing.frames.empty());
    EXPECT_FALSE(nothing.close.has_value());

    publish_range(2, 2);
    const Session::Batch live = session_.wait(a.generation, a.cursor, 0);
    EXPECT_EQ(ids(live.frames), (Ids{2}));
    session_.detach(a.generation);

    // A resume from before it replays it, ring-only frames included.
    const auto b = attach_ok(0);
    EXPECT_EQ(ids(b.replay), (Ids{1, 2}));
    ASSERT_EQ(b.replay.size(), 2u);
    EXPECT_TRUE(b.replay[0].ring_only);
    EXPECT_EQ(b.cursor, 2u);
    session_.detach(b.generation);
    const auto c = attach_ok(1);
    EXPECT_EQ(ids(c.replay), (Ids{2}));
    session_.detach(c.generation);
}

TEST_F(SessionTest, ANonRingOnlyCommitIsDeliveredLikeAPublish) {
    const auto a = attach_ok();
    const auto committed = session_.commit(message(1), Session::CommitMode{});
    ASSERT_TRUE(committed.ok());
    EXPECT_FALSE(committed->ring_only);
    EXPECT_EQ(ids(session_.wait(a.generation, a.cursor, 0).frames), (Ids{1}));
    session_.detach(a.generation);
}

TEST_F(SessionTest, OverflowCatchUpSkipsRingOnlyFrames) {
    // small_limits: the queue holds 2 frames, the ring 4.
    const auto a = attach_ok();
    ASSERT_TRUE(session_.commit(message(1), Session::CommitMode{true, false}).ok());
    publish_range(2, 4);  // 2 and 3 are queued, 4 overflows
    const Session::Batch batch = session_.wait(a.generation, 0, 0);
    EXPECT_EQ(ids(batch.frames), (Ids{2, 3, 4}));
    EXPECT_FALSE(batch.close.has_value());
    EXPECT_EQ(session_.closed(), std::nullopt);
    session_.detach(a.generation);
}

TEST_F(SessionTest, OnlyAResumeFromBeforeARingOnlyFinalReplaysIt) {
    // small_limits: max_pinned 1.
    ASSERT_EQ(session_.admit_call("7", true), Admission::kAdmitted);
    const auto final_frame = session_.commit_final("7", message(1));
    ASSERT_TRUE(final_frame.ok());
    publish_range(2, 2);
    EXPECT_EQ(session_.pinned_finals(), 1u);

    // A live attach acknowledges nothing.
    const auto live = attach_ok();
    EXPECT_EQ(session_.pinned_finals(), 1u);
    session_.detach(live.generation);
    // A resume from before the final replays it and keeps the pin.
    const auto before = attach_ok(0);
    ASSERT_EQ(ids(before.replay), (Ids{1, 2}));
    EXPECT_TRUE(before.replay[0].pinned);
    EXPECT_EQ(session_.pinned_finals(), 1u);
    session_.detach(before.generation);
    // A GET cursor at a ring-only final proves nothing about it: that
    // final belongs to a POST response the GET never carried.
    const auto at = attach_ok(final_frame->id);
    EXPECT_EQ(ids(at.replay), (Ids{2}));
    EXPECT_EQ(session_.pinned_finals(), 1u);
    session_.detach(at.generation);
}

TEST_F(SessionTest, AResumePastAFinalTheGetStreamCarriedUnpinsIt) {
    // Committed for the GET stream (its POST response was gone).
    ASSERT_EQ(session_.admit_call("7", true), Admission::kAdmitted);
    ASSERT_TRUE(session_.commit_final("7", message(1), false).ok());
    publish_range(2, 3);
    const auto past = attach_ok(2);
    EXPECT_EQ(ids(past.replay), (Ids{3}));
    EXPECT_EQ(session_.pinned_finals(), 0u);
    session_.detach(past.generation);
}

TEST_F(SessionTest, ADeliveredRingOnlyFrameIsNotReplayedAgain) {
    ASSERT_EQ(session_.admit_call("7", true), Admission::kAdmitted);
    const auto progress = session_.commit(message(1), Session::CommitMode{true, false});
    ASSERT_TRUE(progress.ok());
    const auto final_frame = session_.commit_final("7", message(2));
    ASSERT_TRUE(final_frame.ok());
    // Before its response wrote them, a resume replays both.
    const auto before = attach_ok(0);
    EXPECT_EQ(ids(before.replay), (Ids{1, 2}));
    session_.detach(before.generation);
    session_.delivered(progress->id);
    session_.delivered(final_frame->id);
    const auto after = attach_ok(0);
    EXPECT_TRUE(after.replay.empty());
    EXPECT_EQ(session_.pinned_finals(), 0u);
    session_.detach(after.generation);
}

// While its pump is attached, a streamed answer's frames are its own: a
// GET resume from before them replays none (the pump will write them, and
// the client must not get them twice). Once the pump is gone, the ones it
// did not write are the resume's.
TEST_F(SessionTest, AResumeLeavesAnAttachedPumpsFramesToIt) {
    constexpr uint64_t kPump = 3;
    ASSERT_EQ(session_.admit_call("7", true), Admission::kAdmitted);
    publish_range(1, 1);
    const auto written = session_.commit(message(2), Session::CommitMode{true, false, kPump});
    const auto unwritten = session_.commit(message(3), Session::CommitMode{true, false, kPump});
    const auto final_frame = session_.commit_final("7", message(4), true, kPump);
    ASSERT_TRUE(written.ok() && unwritten.ok() && final_frame.ok());
    EXPECT_EQ(final_frame->owner, kPump);
    session_.delivered(written->id);

    const auto during = attach_ok(1);
    EXPECT_TRUE(during.replay.empty()) << "replayed frames a live pump owns";
    session_.detach(during.generation);

    session_.release_owner(kPump);
    const auto after = attach_ok(1);
    EXPECT_EQ(ids(after.replay), (Ids{3, 4}));
    session_.detach(after.generation);
}

TEST_F(SessionTest, UnpinReleasesAFinal) {
    ASSERT_EQ(session_.admit_call("7", true), Admission::kAdmitted);
    const auto final_frame = session_.commit_final("7", message(1));
    ASSERT_TRUE(final_frame.ok());
    EXPECT_EQ(session_.pinned_finals(), 1u);
    session_.delivered(final_frame->id + 10);  // unknown: nothing happens
    EXPECT_EQ(session_.pinned_finals(), 1u);
    session_.delivered(final_frame->id);
    EXPECT_EQ(session_.pinned_finals(), 0u);
    session_.delivered(final_frame->id);  // idempotent
    EXPECT_EQ(session_.pinned_finals(), 0u);
}

TEST_F(SessionMetricsTest, PinningMoreFinalsThanSlotsCountsADisplacedPin) {
    // small_limits: max_pinned 1.
    const std::string displaced = "yuzu_mcp_stream_pin_displaced_total";
    EXPECT_EQ(sample(registry_.Serialize(), displaced), 0.0);
    ASSERT_TRUE(session_.commit(message(1), Session::CommitMode{true, true}).ok());
    EXPECT_EQ(metrics_.pin_displaced.Value(), 0.0);
    EXPECT_EQ(session_.pinned_finals(), 1u);
    ASSERT_TRUE(session_.commit(message(2), Session::CommitMode{true, true}).ok());
    EXPECT_EQ(metrics_.pin_displaced.Value(), 1.0);
    EXPECT_EQ(session_.pinned_finals(), 1u);
    // An unpinned commit displaces nothing.
    ASSERT_TRUE(session_.commit(message(3), Session::CommitMode{true, false}).ok());
    EXPECT_EQ(metrics_.pin_displaced.Value(), 1.0);
    ASSERT_TRUE(session_.commit_final("none", message(4)).ok());
    EXPECT_EQ(metrics_.pin_displaced.Value(), 2.0);
    EXPECT_EQ(sample(registry_.Serialize(), displaced), 2.0);
    EXPECT_EQ(metrics_.final_unpinned.Value(), 0.0);
}

TEST(SessionMetricsNoPins, AFinalThatCannotBePinnedIsCounted) {
    metrics::Registry registry;
    StreamMetrics metrics(registry);
    Session session("sid", "alice", "2025-06-18", slot_limits(0), &metrics, 0);
    ASSERT_EQ(session.admit_call("1", false), Admission::kAdmitted);
    const auto final_frame = session.commit_final("1", message(1));
    ASSERT_TRUE(final_frame.ok());
    EXPECT_EQ(session.pinned_finals(), 0u);
    EXPECT_EQ(metrics.final_unpinned.Value(), 1.0);
    EXPECT_EQ(metrics.pin_displaced.Value(), 0.0);
    EXPECT_EQ(sample(registry.Serialize(), "yuzu_mcp_stream_final_unpinned_total"), 1.0);
}

}  // namespace
}  // namespace yuzu::mcp
