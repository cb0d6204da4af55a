// Session: one MCP session (Mcp-Session-Id) and its server→client stream.
//
// A session is transport affinity, not authority: every request still
// authenticates, and the session only checks that the caller is the
// principal that opened it. It holds
// - the negotiated protocol version and the logging/setLevel threshold;
// - the stream: event ids (per session, from 1, consecutive), the replay
//   ring every frame is committed to, and at most one attached GET
//   connection with its bounded queue and its stream-budget lease.
//
// Producers (publish) never wait for a consumer: a frame is committed to the
// ring, then queued to the attached connection if its queue has room;
// otherwise it is dropped from the queue (counted) and the connection
// catches up from the ring, or ends with replay_gap if the ring has moved
// on. A second GET takes the stream over: the first is told `superseded` and
// the lease passes to the second, so a takeover never needs a second slot.
//
// Thread-safe; the pump of the attached connection is the only waiter.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/common/status.hpp"
#include "yuzu/http/sse_writer.hpp"
#include "yuzu/http/stream_budget.hpp"
#include "yuzu/mcp/session/close_reason.hpp"
#include "yuzu/mcp/session/replay_ring.hpp"

namespace yuzu::mcp {

struct StreamMetrics;

struct SessionLimits {
    size_t ring_frames = 500;
    size_t ring_bytes = size_t{256} * 1024;
    // Streamed-call slots: calls streaming on a POST response plus their
    // pinned, not yet delivered finals (the ring's pin bound).
    size_t max_pinned = 4;
    size_t connection_queue = 64;  // frames queued to one connection
    // Bytes queued to one connection; 0: ring_bytes. Queued frames share
    // their text with the ring, but outlive their eviction from it.
    size_t connection_queue_bytes = 0;
    size_t max_frame_bytes = size_t{64} * 1024;
};

// RFC 5424 severities as MCP names them, least severe first.
enum class LogLevel { kDebug, kInfo, kNotice, kWarning, kError, kCritical, kAlert, kEmergency };
std::optional<LogLevel> parse_log_level(std::string_view name);
std::string_view log_level_name(LogLevel level);

class Session {
  public:
    Session(std::string id, std::string principal, std::string protocol_version,
            const SessionLimits& limits, const StreamMetrics* metrics, int64_t now_steady_ms);
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    const std::string& id() const { return id_; }
    const std::string& principal() const { return principal_; }
    const std::string& protocol_version() const { return protocol_version_; }
    const StreamMetrics* metrics() const { return metrics_; }

    // --- producers --------------------------------------------------------
    // Commits one JSON-RPC message (serialized) as the next frame. A frame
    // over the per-frame cap is refused (ResourceExhausted, nothing
    // committed); a closed session refuses (FailedPrecondition).
    Status publish(std::string_view message_json);
    uint64_t last_event_id() const;

    void set_log_level(LogLevel level);
    // No notifications/message at all (a 2026 request without a logLevel).
    void mute_logs();
    // Frames carry no SSE id: a 2026 request's own session, which nothing
    // can resume (set before the first commit).
    void set_unresumable();
    bool wants_log(LogLevel level) const;

    // --- calls in flight (the progress bridge) -----------------------------
    // How a frame of a call enters the ring: a streamed POST's frames are
    // ring-only (its own response carries them; a resume replays them).
    // `owner`, for a ring-only frame its attached pump will write: a resume
    // leaves it to the pump until release_owner().
    struct CommitMode {
        bool ring_only = false;
        bool pinned = false;
        uint64_t owner = 0;
    };
    // publish(), answering the committed frame (its id and SSE text).
    Result<StreamFrame> commit(std::string_view message_json, CommitMode mode);

    enum class CallAdmission {
        kAdmitted,
        kReclaimed,    // admitted after unpinning the oldest undelivered final
        kDuplicateId,  // that request id is already in flight on this session
        kSlotsBusy,    // every streamed-call slot is a call still in flight
        kClosed,
    };
    // Marks request `request_key` (its JSON id) in flight. A streamed call
    // also takes a streamed-call slot; when the slots are full of pinned
    // finals nobody collected, the oldest is unpinned to make room (it stays
    // in the ring until ordinary eviction). Live calls are never displaced.
    CallAdmission admit_call(const std::string& request_key, bool streamed);
    // The call ended without a final on the ring (cancelled, failed, or a
    // GET-channel call whose progress is over). Idempotent.
    void end_call(const std::string& request_key);
    // A streamed call's final: committed pinned (ring-only while its own
    // response is there to carry it), and the call ended, under one lock (so
    // its slot passes from call to pin at once).
    Result<StreamFrame> commit_final(const std::string& request_key, std::string_view message_json,
                                     bool ring_only = true, uint64_t owner = 0);
    // A frame of a call reached a wire (ReplayRing::mark_delivered): a
    // final no longer needs its pin, and a ring-only frame is not replayed.
    // Also for a progress frame a newer one replaced before it was written.
    void delivered(uint64_t id);
    // A streamed call's pump is gone: what it owned and did not write is a
    // resume's now (ReplayRing::release_owner).
    void release_owner(uint64_t owner);
    size_t calls_in_flight() const;
    size_t pinned_finals() const;

    // --- the GET channel ----------------------------------------------------
    struct Attach {
        enum class Outcome {
            kAttached,
            kGap,
            kClosed,
            kGlobalCap,
            kPerPrincipalCap,
            kHandoverPending,  // a superseded connection has not ended yet
        };
        Outcome outcome = Outcome::kClosed;
        uint64_t generation = 0;          // kAttached: this connection's
        uint64_t cursor = 0;              // the last id covered by `replay`
        std::vector<StreamFrame> replay;  // frames after Last-Event-ID
        bool took_over = false;           // another connection was superseded
    };
    // Attaches a connection; resume check, admission, replay and attach
    // happen under one lock, so no frame falls between replay and live.
    // Without `last_event_id` the connection starts live. A gap ends the
    // session (kSessionTerminated; the client re-initializes). A session
    // with no attached connection leases a slot from `budget`; a takeover
    // reuses the lease, and is refused while an earlier superseded
    // connection is still writing (so takeovers cannot pile up workers
    // outside the budget).
    Attach attach(std::optional<uint64_t> last_event_id, http::StreamBudget& budget);

    struct Batch {
        std::vector<StreamFrame> frames;   // to write, in order
        std::optional<CloseReason> close;  // then end the stream
    };
    // Waits up to `timeout_ms` (0: does not wait) for frames after `cursor`
    // or an end. Called only by the pump of connection `generation`.
    Batch wait(uint64_t generation, uint64_t cursor, int64_t timeout_ms);
    // The connection ended (the pump's last call): if it is still the
    // attached one, its lease is released.
    void detach(uint64_t generation);
    bool has_connection() const;
    // Whether connection `generation` is still the attached one and the
    // session is open: a pump stops writing data frames once it is not.
    bool is_current(uint64_t generation) const;

    // --- lifecycle -----------------------------------------------------------
    // Ends the session: the attached connection is woken and told `reason`;
    // later publishes and attaches are refused. Idempotent (the first reason
    // stays).
    void close(CloseReason reason);
    std::optional<CloseReason> closed() const;

    void touch(int64_t now_steady_ms);
    int64_t last_used_ms() const;

  private:
    Result<StreamFrame> commit_locked(std::string_view message_json, CommitMode mode);
    // Adds the ring's evictions since `before` to the metric. Caller holds mu_.
    void count_evictions_since(uint64_t before) const;
    struct Connection {
        uint64_t generation = 0;
        std::vector<StreamFrame> queue;
        size_t queue_bytes = 0;
        bool overflowed = false;  // frames were dropped from `queue`
        http::StreamBudget::Lease lease;
    };

    const std::string id_;
    const std::string principal_;
    const std::string protocol_version_;
    const SessionLimits limits_;
    const StreamMetrics* const metrics_;
    const http::SseWriter writer_;

    mutable std::mutex mu_;
    std::condition_variable wake_;
    ReplayRing ring_;                          // guarded by mu_
    uint64_t next_id_ = 1;                     // guarded by mu_
    std::optional<Connection> connection_;     // guarded by mu_
    uint64_t generations_ = 0;                 // guarded by mu_
    std::set<uint64_t> superseded_live_;       // guarded by mu_: old pumps not yet ended
    std::optional<CloseReason> closed_;        // guarded by mu_
    std::map<std::string, bool> calls_;        // guarded by mu_: request key → streamed
    size_t streamed_calls_ = 0;                // guarded by mu_
    LogLevel log_level_ = LogLevel::kWarning;  // guarded by mu_
    bool logs_muted_ = false;                  // guarded by mu_
    bool resumable_ = true;                    // guarded by mu_
    int64_t last_used_ms_ = 0;                 // guarded by mu_
};

}  // namespace yuzu::mcp
