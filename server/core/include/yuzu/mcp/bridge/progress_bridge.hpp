// ProgressBridge: live progress for a tools/call that carried
// _meta.progressToken. It correlates the call with the executions its
// handler dispatched (CallStream::follow) and projects their
// ExecutionEventBus events as notifications/progress: progress = agents
// settled, total = agents targeted, strictly increasing on the wire.
//
// A call is either
// - streamed: its POST response is an SSE stream (transport/post_stream.cpp)
//   and the record's frames are committed ring-only to the session's replay
//   ring, then handed to that response's pump; the JSON-RPC result is the
//   last frame, pinned in the ring until it reaches a wire, so a client
//   that lost the response resumes on GET with Last-Event-ID and still
//   collects it; or
// - GET-channel: the POST answered plain JSON at once and the progress is
//   published to the session's GET stream.
//
// One projector thread reads one bus subscription for all executions. Each
// event only updates its record's latest counts (a latest-wins slot, never
// a queue); each cycle projects every changed record at most once, so a
// 10,000-agent execution costs a frame per cycle, not a frame per agent.
// Closing a response never cancels work: the executions keep running and
// stay fetchable by execution_id.
//
// Thread-safe. Lock order: bridge, then record, then session.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/mcp/session/close_reason.hpp"
#include "yuzu/mcp/session/replay_ring.hpp"

namespace yuzu::execution {
class ExecutionEventBus;
struct ExecutionCounts;
}  // namespace yuzu::execution
namespace yuzu::audit {
class AuditLog;
}

namespace yuzu::mcp {

class Session;
class ProgressBridge;
struct BridgeMetrics;

// The server-wide bound on calls followed at once (in-memory state). Fixed,
// not a flag: a sustained yuzu_mcp_bridge_records_active near it says the
// clients hold more streamed calls than the server is sized for.
inline constexpr size_t kBridgeRecordCap = 256;
// How long a streamed POST response may stay open before it settles with
// cap_expired (the execution continues).
inline constexpr int64_t kMcpStreamedPostCapMs = 120'000;

// One execution's progress as the bridge sees it.
struct ExecutionProgress {
    int targeted = 0;
    int settled = 0;  // answered, failed, timed out or offline
    int succeeded = 0;
    int failed = 0;
    std::string status;
    bool completed = false;
};
// The stored state of an execution, for the first projection and for a
// resync after the subscription dropped events; nullopt when unknown.
using ProgressSnapshotFn = std::function<std::optional<ExecutionProgress>(const std::string&)>;

// The one reading of an execution's tallies as progress (settled =
// targeted - outstanding), for bus events and stored snapshots alike.
ExecutionProgress execution_progress(const execution::ExecutionCounts& counts,
                                     const std::string& status, bool completed);

// One tools/call in flight with a progress token.
class CallRecord {
  public:
    CallRecord(ProgressBridge& bridge, std::shared_ptr<Session> session, nlohmann::json request_id,
               nlohmann::json token, bool streamed);

    ProgressBridge& bridge() const { return bridge_; }
    const std::shared_ptr<Session>& session() const { return session_; }
    const std::string& request_key() const { return request_key_; }
    const nlohmann::json& token() const { return token_; }
    bool streamed() const { return streamed_; }

    // What a streamed POST's pump writes next.
    struct Batch {
        std::vector<StreamFrame> frames;   // progress and log frames, in order
        std::optional<StreamFrame> final;  // the result: write it, then end
        std::optional<CloseReason> ended;  // the record ended (with `final`: how)
    };
    // Waits up to `timeout_ms` for frames or an end.
    Batch wait(int64_t timeout_ms);
    bool ended() const;
    std::vector<std::string> execution_ids() const;
    // The id of the first frame the call committed to the ring (0: none).
    uint64_t first_frame_id() const;

  private:
    friend class ProgressBridge;

    ProgressBridge& bridge_;
    const std::shared_ptr<Session> session_;
    const std::string request_key_;  // the JSON-RPC id, serialized
    const nlohmann::json token_;
    const bool streamed_;
    // Marks the ring frames this call's pump will write (StreamFrame::owner),
    // unique for the process's life.
    const uint64_t owner_id_;

    mutable std::mutex mu_;
    std::condition_variable wake_;
    // guarded by mu_:
    std::vector<StreamFrame> outbox_;  // committed, not yet taken by the pump
    bool outbox_tail_is_progress_ = false;
    std::optional<StreamFrame> final_;
    std::optional<CloseReason> ended_;
    bool pump_attached_ = false;
    std::optional<std::string> result_;  // the JSON-RPC response, once the handler returned
    std::map<std::string, ExecutionProgress> executions_;
    bool dirty_ = false;
    double watermark_ = -1;
    uint64_t first_id_ = 0;   // the first frame this call committed (0: none yet)
    int64_t created_ms_ = 0;  // set once by reserve(), before the record is shared
    int64_t last_progress_ms_ = 0;
};

class ProgressBridge {
  public:
    struct Options {
        size_t max_records = kBridgeRecordCap;
        int64_t cycle_ms = 50;                // the projector's wait between cycles
        int64_t min_frame_interval_ms = 200;  // per record, between progress frames
        size_t max_outbox = 64;               // frames waiting for a slow pump
        // How long a GET-channel call's progress is followed at most (a
        // streamed call's pump applies the same cap to its response).
        int64_t max_follow_ms = kMcpStreamedPostCapMs;
    };
    // `bus` may be null (no executions to follow: only handler progress);
    // `snapshot` must be set when `bus` is. `metrics`, `audit` may be null.
    ProgressBridge(execution::ExecutionEventBus* bus, ProgressSnapshotFn snapshot,
                   const BridgeMetrics* metrics, audit::AuditLog* audit, const Clock& clock,
                   Options options);
    ProgressBridge(const ProgressBridge&) = delete;
    ProgressBridge& operator=(const ProgressBridge&) = delete;
    ~ProgressBridge();  // shutdown()

    // Starts the projector thread (a no-op without a bus, or when running).
    void start();
    // Ends every record (record_gone) and joins the projector. Idempotent;
    // reserve() refuses afterwards.
    void shutdown();

    enum class Refusal {
        kShuttingDown,
        kRecordCap,
        kDuplicateId,
        kSlotsBusy,  // streamed: every slot is a call still in flight
        kClosed,     // the session ended
        kNoMemory,
    };
    struct Reservation {
        std::shared_ptr<CallRecord> record;
        bool reclaimed_pin = false;  // admission unpinned an undelivered final
    };
    // Admits a call for `session` (before anything is dispatched). A
    // reclaimed pin is counted and audited here, as `principal`.
    std::variant<Reservation, Refusal> reserve(const std::shared_ptr<Session>& session,
                                               const nlohmann::json& request_id,
                                               const nlohmann::json& token, bool streamed,
                                               const std::string& correlation_id);

    // The handler dispatched these executions: progress follows them.
    void follow(CallRecord& record, const std::vector<std::string>& execution_ids);
    // Progress the handler reports itself; dropped unless it advances.
    void report(CallRecord& record, double progress, std::optional<double> total,
                const std::string& message);
    // A notifications/message for the call (streamed: on its response).
    void deliver_log(CallRecord& record, const std::string& message_json);
    // The handler returned `response_json`. With nothing followed, or
    // everything followed already complete, the call settles now.
    void finish(CallRecord& record, std::string response_json);

    // The streamed POST's pump took (false: let go of) the record.
    void set_pump_attached(CallRecord& record, bool attached);
    // The response cap: one more projection, then the result now.
    void expire(CallRecord& record);
    // Ends the record without a final (cancelled, session gone, revoked).
    void abandon(CallRecord& record, CloseReason reason);
    // notifications/cancelled for `request_id` on `session`: true when a
    // call in flight was detached.
    bool cancel(const Session& session, const nlohmann::json& request_id);

    size_t records() const;

  private:
    void cycle();
    // A stored snapshot into the record's counts (record's mu_ held).
    static void merge_snapshot(CallRecord& record, const std::string& id,
                               const ExecutionProgress& snapshot);
    // Projects one record: a progress frame when it advanced (and its
    // interval passed, or `force`), then settles it when all is complete.
    void project(const std::shared_ptr<CallRecord>& record, bool force);
    void project_locked(CallRecord& record, bool force, bool done);  // record's mu_ held
    std::string progress_message(const CallRecord& record, double progress,
                                 std::optional<double> total, const std::string& text,
                                 const std::vector<std::string>& execution_ids) const;
    // Commits and queues one frame of `record` (record's mu_ held).
    void deliver_locked(CallRecord& record, const std::string& message_json, bool is_progress);
    // Marks the record ended (record's mu_ held); with `with_final`, commits
    // the result as the pinned final. Returns the execution ids to forget.
    std::vector<std::string> settle_locked(CallRecord& record, CloseReason reason, bool with_final);
    void forget(const CallRecord& record, const std::vector<std::string>& execution_ids);

    execution::ExecutionEventBus* const bus_;
    const ProgressSnapshotFn snapshot_;
    const BridgeMetrics* const metrics_;
    audit::AuditLog* const audit_;
    const Clock& clock_;
    const Options options_;

    mutable std::mutex mu_;
    std::condition_variable wake_;
    // guarded by mu_:
    bool stopping_ = false;
    bool resync_ = false;
    std::map<std::pair<const Session*, std::string>, std::shared_ptr<CallRecord>> records_;
    std::map<std::string, std::shared_ptr<CallRecord>> by_execution_;
    std::thread projector_;
};

}  // namespace yuzu::mcp
