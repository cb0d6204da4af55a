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

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/execution/event_bus.hpp"
#include "yuzu/http/stream_budget.hpp"
#include "yuzu/mcp/bridge/bridge_metrics.hpp"
#include "yuzu/mcp/session/close_reason.hpp"
#include "yuzu/mcp/session/session.hpp"
#include "yuzu/mcp/session/stream_metrics.hpp"
#include "yuzu/metrics/counter.hpp"
#include "yuzu/metrics/gauge.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::mcp {
namespace {

using execution::ExecutionEvent;
using execution::ExecutionEventType;
using nlohmann::json;
using Refusal = ProgressBridge::Refusal;

// How long a test waits for the projector thread before giving up (a bound
// on a hang, not an assertion on time).
constexpr auto kPollBound = std::chrono::seconds(5);

const std::string kResult = R"({"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":false}})";

// The value of the sample line "<series> <value>", if there is one.
std::optional<double> sample(const std::string& text, const std::string& series) {
    const std::string key = "\n" + series + " ";
    const size_t at = text.find(key);
    if (at == std::string::npos) return std::nullopt;
    return std::stod(text.substr(at + key.size()));
}

std::string reject_series(const std::string& reason) {
    return "yuzu_mcp_bridge_reject_total{reason=\"" + reason + "\"}";
}

// The text of a frame's (single) data line.
std::string data_text(const StreamFrame& frame) {
    if (!frame.text) {
        ADD_FAILURE() << "a frame without text";
        return "";
    }
    const std::string& text = *frame.text;
    const size_t at = text.find("data: ");
    if (at == std::string::npos) {
        ADD_FAILURE() << "no data line in: " << text;
        return "";
    }
    const size_t begin = at + 6;
    const size_t end = text.find('\n', begin);
    return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

json data_of(const StreamFrame& frame) {
    return json::parse(data_text(frame));
}

bool is_progress(const json& message) {
    return message.value("method", "") == "notifications/progress";
}

double progress_of(const StreamFrame& frame) {
    return data_of(frame).at("params").at("progress").get<double>();
}

ExecutionProgress progress(int targeted, int settled, int succeeded = 0, int failed = 0,
                           bool completed = false) {
    ExecutionProgress p;
    p.targeted = targeted;
    p.settled = settled;
    p.succeeded = succeeded;
    p.failed = failed;
    p.status = completed ? "completed" : "running";
    p.completed = completed;
    return p;
}

ExecutionEvent agent_responded(const std::string& execution_id, int targeted, int outstanding) {
    ExecutionEvent e;
    e.type = ExecutionEventType::kAgentResponded;
    e.execution_id = execution_id;
    e.agent_id = "agent-" + std::to_string(outstanding);
    e.agent_state = "success";
    e.status = "running";
    e.counts.targeted = targeted;
    e.counts.responded = targeted - outstanding;
    e.counts.success = targeted - outstanding;
    e.counts.outstanding = outstanding;
    return e;
}

ExecutionEvent completed(const std::string& execution_id, int targeted) {
    ExecutionEvent e;
    e.type = ExecutionEventType::kCompleted;
    e.execution_id = execution_id;
    e.status = "completed";
    e.counts.targeted = targeted;
    e.counts.responded = targeted;
    e.counts.success = targeted;
    e.counts.outstanding = 0;
    e.counts.progress_pct = 100;
    return e;
}

// Execution snapshots the test controls; the projector thread reads them.
class Snapshots {
  public:
    void set(const std::string& id, ExecutionProgress p) {
        std::lock_guard<std::mutex> lock(mu_);
        map_[id] = std::move(p);
    }
    ProgressSnapshotFn fn() {
        return [this](const std::string& id) -> std::optional<ExecutionProgress> {
            std::lock_guard<std::mutex> lock(mu_);
            auto it = map_.find(id);
            if (it == map_.end()) return std::nullopt;
            return it->second;
        };
    }

  private:
    std::mutex mu_;
    std::map<std::string, ExecutionProgress> map_;
};

// What a streamed record handed its pump, accumulated over batches.
struct Collected {
    std::vector<StreamFrame> frames;
    std::optional<StreamFrame> final;
    std::optional<CloseReason> ended;

    bool has_progress(double value) const {
        for (const auto& f : frames) {
            json m = data_of(f);
            if (is_progress(m) && m.at("params").at("progress").get<double>() == value) return true;
        }
        return false;
    }
};

// Takes batches from `record` into *c until `done(*c)`, the record ends, or
// the bound passes.
template <typename Done>
void collect(CallRecord& record, Collected* c, Done done) {
    const auto deadline = std::chrono::steady_clock::now() + kPollBound;
    while (!done(*c) && !c->ended && std::chrono::steady_clock::now() < deadline) {
        CallRecord::Batch batch = record.wait(100);
        for (auto& f : batch.frames) c->frames.push_back(std::move(f));
        if (batch.final) c->final = std::move(batch.final);
        if (batch.ended) c->ended = batch.ended;
    }
}

// Polls `condition` until it holds or the bound passes.
template <typename Condition>
bool eventually(Condition condition) {
    const auto deadline = std::chrono::steady_clock::now() + kPollBound;
    while (!condition()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

// Every frame is a progress notification for `token`; the progress values
// strictly increase.
void expect_progress_frames(const std::vector<StreamFrame>& frames, const json& token, double total,
                            const std::string& execution_id) {
    double previous = -1;
    uint64_t previous_id = 0;
    for (const auto& f : frames) {
        json m = data_of(f);
        ASSERT_TRUE(is_progress(m)) << m.dump();
        EXPECT_EQ(m.value("jsonrpc", ""), "2.0");
        const json& params = m.at("params");
        EXPECT_EQ(params.at("progressToken"), token) << m.dump();
        EXPECT_EQ(params.at("total").get<double>(), total) << m.dump();
        ASSERT_TRUE(params.contains("_meta")) << m.dump();
        EXPECT_EQ(params.at("_meta").value("execution_id", ""), execution_id) << m.dump();
        const double value = params.at("progress").get<double>();
        EXPECT_GT(value, previous) << "progress did not advance: " << m.dump();
        previous = value;
        EXPECT_GT(f.id, previous_id);
        previous_id = f.id;
    }
}

class ProgressBridgeTest : public ::testing::Test {
  protected:
    static ProgressBridge::Options options() {
        ProgressBridge::Options o;
        o.cycle_ms = 5;
        o.min_frame_interval_ms = 0;
        return o;
    }

    void SetUp() override { make_bridge(options()); }

    void make_bridge(ProgressBridge::Options o) {
        bridge_.reset();
        bridge_ = std::make_unique<ProgressBridge>(&bus_, snapshots_.fn(), &bridge_metrics_,
                                                   &audit_, clock_, o);
    }

    std::shared_ptr<Session> make_session(const std::string& id = "session-0001-abcdef",
                                          const SessionLimits& limits = SessionLimits{}) {
        return std::make_shared<Session>(id, "alice", "2025-06-18", limits, &stream_metrics_,
                                         clock_.steady_ms());
    }

    std::variant<ProgressBridge::Reservation, Refusal> reserve(
        const std::shared_ptr<Session>& session, const json& id, bool streamed,
        const json& token = "tok-1") {
        return bridge_->reserve(session, id, token, streamed, "corr-1");
    }

    std::shared_ptr<CallRecord> reserve_ok(const std::shared_ptr<Session>& session, const json& id,
                                           bool streamed, const json& token = "tok-1") {
        auto reserved = reserve(session, id, streamed, token);
        if (auto* refusal = std::get_if<Refusal>(&reserved)) {
            ADD_FAILURE() << "reserve refused: " << static_cast<int>(*refusal);
            return nullptr;
        }
        return std::get<ProgressBridge::Reservation>(reserved).record;
    }

    static std::optional<Refusal> refusal_of(
        const std::variant<ProgressBridge::Reservation, Refusal>& reserved) {
        if (auto* refusal = std::get_if<Refusal>(&reserved)) return *refusal;
        return std::nullopt;
    }

    double suppressed() const { return bridge_metrics_.progress_suppressed.Value(); }

    metrics::Registry registry_;
    StreamMetrics stream_metrics_{registry_};
    BridgeMetrics bridge_metrics_{registry_};
    ManualClock clock_;
    audit::MemoryAuditLog audit_{clock_};
    Snapshots snapshots_;
    http::StreamBudget budget_{4, 4};  // outlives every session's lease
    execution::ExecutionEventBus bus_;
    std::unique_ptr<ProgressBridge> bridge_;  // destroyed first: joins the projector
};

// --- a. a streamed record ------------------------------------------------------

// Publishes agent events settling 1, 2, 3 of 3, each after the frame of the
// one before reached the pump.
void settle_three_agents_step_by_step(execution::ExecutionEventBus& bus, CallRecord& record,
                                      Collected* c) {
    for (int outstanding = 2; outstanding >= 0; --outstanding) {
        (void)bus.publish(agent_responded("e1", 3, outstanding));
        const double expected = 3 - outstanding;
        collect(record, c, [expected](const Collected& got) { return got.has_progress(expected); });
        ASSERT_TRUE(c->has_progress(expected)) << "no progress frame for " << expected;
    }
}

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
    // The ring holds all four, for a resume.
    EXPECT_EQ(session->last_event_id(), 4u);
    EXPECT_EQ(batch.frames[1].id, 4u);
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

TEST_F(ProgressBridgeTest, FramesOfADetachedPumpStayInTheRingOnly) {
    auto session = make_session();
    auto record = reserve_ok(session, 7, true);
    ASSERT_NE(record, nullptr);
    // Never attached: committed for a resume, not queued.
    bridge_->report(*record, 1, std::nullopt, "");
    EXPECT_TRUE(record->wait(0).frames.empty());
    EXPECT_EQ(session->last_event_id(), 1u);
    bridge_->set_pump_attached(*record, true);
    bridge_->report(*record, 2, std::nullopt, "");
    bridge_->set_pump_attached(*record, false);  // drops the outbox
    EXPECT_TRUE(record->wait(0).frames.empty());
    EXPECT_EQ(session->last_event_id(), 2u);
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
    EXPECT_TRUE(audit_.events().empty());
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
