// The progress-bridge unit tests' fixture: a real ExecutionEventBus, stored
// snapshots the test controls, a ManualClock, an in-memory audit log and the
// metrics, with helpers to read frames. Shared by progress_bridge_test.cpp
// (projection) and progress_bridge_admission_test.cpp (admission, ending).
#pragma once

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
#include "yuzu/mcp/bridge/progress_bridge.hpp"
#include "yuzu/mcp/session/close_reason.hpp"
#include "yuzu/mcp/session/session.hpp"
#include "yuzu/mcp/session/stream_metrics.hpp"
#include "yuzu/metrics/counter.hpp"
#include "yuzu/metrics/gauge.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::mcp::bridge_testing {

using execution::ExecutionEvent;
using execution::ExecutionEventType;
using nlohmann::json;
using Refusal = ProgressBridge::Refusal;

// How long a test waits for the projector thread before giving up (a bound
// on a hang, not an assertion on time).
inline constexpr auto kPollBound = std::chrono::seconds(5);

inline const std::string kResult =
    R"({"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":false}})";

// The value of the sample line "<series> <value>", if there is one.
inline std::optional<double> sample(const std::string& text, const std::string& series) {
    const std::string key = "\n" + series + " ";
    const size_t at = text.find(key);
    if (at == std::string::npos) return std::nullopt;
    return std::stod(text.substr(at + key.size()));
}

inline std::string reject_series(const std::string& reason) {
    return "yuzu_mcp_bridge_reject_total{reason=\"" + reason + "\"}";
}

// The text of a frame's (single) data line.
inline std::string data_text(const StreamFrame& frame) {
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

inline json data_of(const StreamFrame& frame) {
    return json::parse(data_text(frame));
}

inline bool is_progress(const json& message) {
    return message.value("method", "") == "notifications/progress";
}

inline double progress_of(const StreamFrame& frame) {
    return data_of(frame).at("params").at("progress").get<double>();
}

inline ExecutionProgress progress(int targeted, int settled, int succeeded = 0, int failed = 0,
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

inline ExecutionEvent agent_responded(const std::string& execution_id, int targeted,
                                      int outstanding) {
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

inline ExecutionEvent completed(const std::string& execution_id, int targeted) {
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
inline void collect(CallRecord& record, Collected* c, Done done) {
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
inline bool eventually(Condition condition) {
    const auto deadline = std::chrono::steady_clock::now() + kPollBound;
    while (!condition()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

// Every frame is a progress notification for `token`; the progress values
// strictly increase.
inline void expect_progress_frames(const std::vector<StreamFrame>& frames, const json& token,
                                   double total, const std::string& execution_id) {
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
inline void settle_three_agents_step_by_step(execution::ExecutionEventBus& bus, CallRecord& record,
                                             Collected* c) {
    for (int outstanding = 2; outstanding >= 0; --outstanding) {
        (void)bus.publish(agent_responded("e1", 3, outstanding));
        const double expected = 3 - outstanding;
        collect(record, c, [expected](const Collected& got) { return got.has_progress(expected); });
        ASSERT_TRUE(c->has_progress(expected)) << "no progress frame for " << expected;
    }
}

}  // namespace yuzu::mcp::bridge_testing
