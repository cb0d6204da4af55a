#include "yuzu/mcp/bridge/progress_bridge.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <new>
#include <utility>

#include "yuzu/audit/audit_log.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/execution/event_bus.hpp"
#include "yuzu/mcp/bridge/bridge_metrics.hpp"
#include "yuzu/mcp/session/session.hpp"
#include "yuzu/mcp/session/stream_metrics.hpp"
#include "yuzu/metrics/counter.hpp"
#include "yuzu/metrics/gauge.hpp"

namespace yuzu::mcp {
namespace {

using nlohmann::json;

// The bus subscription's queue: an event only refreshes a record's counts,
// so a full queue drops old, superseded events (and the bridge resyncs).
constexpr size_t kBusQueue = execution::kMaxSubscriberCapacity;
// Events drained per cycle before projecting, so a flood cannot starve it.
constexpr size_t kEventsPerCycle = 4096;

// A CallRecord's owner id: never 0, never reused.
uint64_t next_owner_id() {
    static std::atomic<uint64_t> last{0};
    return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

ExecutionProgress progress_of(const execution::ExecutionEvent& event) {
    return execution_progress(event.counts, event.status,
                              event.type == execution::ExecutionEventType::kCompleted);
}

bool all_completed(const std::map<std::string, ExecutionProgress>& executions) {
    return std::all_of(executions.begin(), executions.end(),
                       [](const auto& e) { return e.second.completed; });
}

// A frame for a pump that the ring refused (the session closed, or the
// frame was too large for the ring's cap): written to the wire without an
// id, so it can never be resumed.
StreamFrame wire_only_frame(const std::string& message_json) {
    std::string text;
    text.reserve(message_json.size() + 16);
    text += "data: ";
    for (char c : message_json) {
        // A serialized JSON message has no raw newline; guard anyway.
        if (c == '\n') {
            text += "\ndata: ";
        } else if (c != '\r') {
            text += c;
        }
    }
    text += "\n\n";
    StreamFrame frame;
    frame.text = std::make_shared<const std::string>(std::move(text));
    frame.ring_only = true;
    return frame;
}

}  // namespace

ExecutionProgress execution_progress(const execution::ExecutionCounts& counts,
                                     const std::string& status, bool completed) {
    ExecutionProgress p;
    p.targeted = counts.targeted;
    p.settled = counts.targeted - counts.outstanding;
    p.succeeded = counts.success;
    p.failed = counts.failure;
    p.status = status;
    p.completed = completed;
    return p;
}

// --- CallRecord ----------------------------------------------------------------

CallRecord::CallRecord(ProgressBridge& bridge, std::shared_ptr<Session> session, json request_id,
                       json token, bool streamed)
    : bridge_(bridge),
      session_(std::move(session)),
      request_key_(dump_json(request_id)),
      token_(std::move(token)),
      streamed_(streamed),
      owner_id_(next_owner_id()) {}

CallRecord::Batch CallRecord::wait(int64_t timeout_ms) {
    std::unique_lock<std::mutex> lock(mu_);
    const auto ready = [this] { return !outbox_.empty() || final_ || ended_; };
    if (timeout_ms > 0) wake_.wait_for(lock, std::chrono::milliseconds(timeout_ms), ready);
    Batch out;
    out.frames = std::move(outbox_);
    outbox_.clear();
    outbox_tail_is_progress_ = false;
    if (final_) {
        out.final = std::move(final_);
        final_.reset();
    }
    out.ended = ended_;
    return out;
}

uint64_t CallRecord::first_frame_id() const {
    std::lock_guard<std::mutex> lock(mu_);
    return first_id_;
}

std::vector<std::string> CallRecord::execution_ids() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> ids;
    for (const auto& [id, progress] : executions_) ids.push_back(id);
    return ids;
}

bool CallRecord::ended() const {
    std::lock_guard<std::mutex> lock(mu_);
    return ended_.has_value();
}

// --- ProgressBridge ------------------------------------------------------------

ProgressBridge::ProgressBridge(execution::ExecutionEventBus* bus, ProgressSnapshotFn snapshot,
                               const BridgeMetrics* metrics, audit::AuditLog* audit,
                               const Clock& clock, Options options)
    : bus_(bus),
      snapshot_(std::move(snapshot)),
      metrics_(metrics),
      audit_(audit),
      clock_(clock),
      options_(options) {}

ProgressBridge::~ProgressBridge() {
    shutdown();
}

void ProgressBridge::start() {
    std::lock_guard<std::mutex> lock(mu_);
    if (bus_ == nullptr || projector_.joinable() || stopping_) return;
    // Subscribed here, before start() returns, so no event of an execution
    // followed later can be missed between subscribing and its snapshot.
    auto subscription = std::make_shared<execution::Subscription>(bus_->subscribe("", kBusQueue));
    projector_ = std::thread([this, subscription] {
        uint64_t dropped = 0;
        while (true) {
            {
                std::lock_guard<std::mutex> l(mu_);
                if (stopping_) return;
            }
            try {
                auto event = subscription->pop(std::chrono::milliseconds(options_.cycle_ms));
                size_t drained = 0;
                while (event && drained < kEventsPerCycle) {
                    ++drained;
                    std::shared_ptr<CallRecord> record;
                    {
                        std::lock_guard<std::mutex> l(mu_);
                        auto it = by_execution_.find(event->execution_id);
                        if (it != by_execution_.end()) record = it->second;
                    }
                    if (record) {
                        std::lock_guard<std::mutex> l(record->mu_);
                        auto e = record->executions_.find(event->execution_id);
                        // Counts only grow; a late event never moves them back.
                        if (e != record->executions_.end() &&
                            (event->type == execution::ExecutionEventType::kCompleted ||
                             progress_of(*event).settled >= e->second.settled)) {
                            const bool was_completed = e->second.completed;
                            e->second = progress_of(*event);
                            e->second.completed = e->second.completed || was_completed;
                            // Latest wins: a value not yet projected is
                            // superseded by this one.
                            if (record->dirty_ && metrics_) {
                                metrics_->progress_suppressed.Increment();
                            }
                            record->dirty_ = true;
                        }
                    }
                    event = subscription->pop(std::chrono::milliseconds(0));
                }
                if (subscription->dropped() != dropped) {
                    dropped = subscription->dropped();
                    if (metrics_) metrics_->listener_failures.Increment();
                    std::lock_guard<std::mutex> l(mu_);
                    resync_ = true;
                }
                cycle();
            } catch (const std::exception& e) {
                if (metrics_) metrics_->listener_failures.Increment();
                spdlog::error("mcp bridge: projector cycle failed: {}", e.what());
            } catch (...) {
                if (metrics_) metrics_->listener_failures.Increment();
                spdlog::error("mcp bridge: projector cycle failed");
            }
            if (subscription->closed() && subscription->queued() == 0) {
                // The bus shut down: nothing more will arrive; the records
                // settle at shutdown().
                std::unique_lock<std::mutex> l(mu_);
                wake_.wait(l, [this] { return stopping_; });
                return;
            }
        }
    });
}

void ProgressBridge::shutdown() {
    std::vector<std::shared_ptr<CallRecord>> records;
    std::thread projector;
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
        for (auto& [key, record] : records_) records.push_back(record);
        projector = std::move(projector_);
    }
    wake_.notify_all();
    if (projector.joinable()) projector.join();
    for (auto& record : records) abandon(*record, CloseReason::kRecordGone);
}

std::variant<ProgressBridge::Reservation, ProgressBridge::Refusal> ProgressBridge::reserve(
    const std::shared_ptr<Session>& session, const json& request_id, const json& token,
    bool streamed, const std::string& correlation_id) {
    std::shared_ptr<CallRecord> record;
    bool reclaimed = false;
    try {
        record = std::make_shared<CallRecord>(*this, session, request_id, token, streamed);
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) return Refusal::kShuttingDown;
        if (records_.size() >= options_.max_records) {
            if (metrics_) metrics_->reject(BridgeReject::kRecordCap);
            return Refusal::kRecordCap;
        }
        const std::pair<const Session*, std::string> key{session.get(), record->request_key()};
        // The map entry first: nothing can fail after the session admits.
        auto [it, inserted] = records_.emplace(key, record);
        const auto admission = inserted ? session->admit_call(record->request_key(), streamed)
                                        : Session::CallAdmission::kDuplicateId;
        using A = Session::CallAdmission;
        if (admission != A::kAdmitted && admission != A::kReclaimed) {
            if (inserted) records_.erase(it);
            switch (admission) {
                case A::kDuplicateId:
                    if (metrics_) metrics_->reject(BridgeReject::kDuplicateId);
                    return Refusal::kDuplicateId;
                case A::kSlotsBusy:
                    if (metrics_) metrics_->reject(BridgeReject::kPinSlots);
                    return Refusal::kSlotsBusy;
                default:
                    return Refusal::kClosed;
            }
        }
        reclaimed = admission == A::kReclaimed;
        record->created_ms_ = clock_.steady_ms();
        if (metrics_) metrics_->records_active.Set(static_cast<double>(records_.size()));
    } catch (const std::bad_alloc&) {
        return Refusal::kNoMemory;
    }
    if (reclaimed) {
        // Outside the bridge's lock: the audit write waits for its commit.
        if (metrics_) metrics_->pin_displaced_for_admission.Increment();
        spdlog::info(
            "correlation_id={} mcp bridge: unpinned the oldest undelivered final of a session "
            "of '{}' to admit a streamed call",
            correlation_id, session->principal());
        if (audit_) {
            audit::AuditEvent event;
            event.principal = session->principal();
            event.principal_kind = "mcp_token";
            event.action = "mcp.bridge.pin_displaced_for_admission";
            event.target_type = "mcp_session";
            event.target_id = session->id().substr(0, 8);
            event.detail =
                "the oldest undelivered streamed-call final was unpinned (it stays in the replay "
                "ring until evicted, and its execution stays fetchable by execution_id)";
            event.correlation_id = correlation_id;
            (void)audit_->record(std::move(event));
        }
    }
    return Reservation{record, reclaimed};
}

void ProgressBridge::follow(CallRecord& record, const std::vector<std::string>& execution_ids) {
    if (bus_ == nullptr || execution_ids.empty()) return;
    {
        // Both maps under both locks (bridge, then record): a record that
        // ends meanwhile either never gets the ids or forgets them all.
        std::lock_guard<std::mutex> lock(mu_);
        auto it = records_.find({record.session().get(), record.request_key()});
        if (it == records_.end()) return;  // already ended
        std::lock_guard<std::mutex> record_lock(record.mu_);
        if (record.ended_) return;
        for (const auto& id : execution_ids) {
            by_execution_[id] = it->second;
            record.executions_.emplace(id, ExecutionProgress{});
        }
    }
    // Registered first, then read (outside the locks: a store read): an
    // event after the registration reaches the record, and one before it is
    // in the snapshot.
    std::vector<std::pair<std::string, ExecutionProgress>> read;
    for (const auto& id : execution_ids) {
        if (auto snap = snapshot_(id)) read.emplace_back(id, *snap);
    }
    std::lock_guard<std::mutex> lock(record.mu_);
    for (auto& [id, p] : read) merge_snapshot(record, id, p);
    record.dirty_ = true;
}

void ProgressBridge::report(CallRecord& record, double progress, std::optional<double> total,
                            const std::string& message) {
    std::lock_guard<std::mutex> lock(record.mu_);
    if (record.ended_) return;
    if (progress <= record.watermark_) {
        if (metrics_) metrics_->progress_suppressed.Increment();
        return;
    }
    record.watermark_ = progress;
    deliver_locked(record, progress_message(record, progress, total, message, {}), true);
}

void ProgressBridge::deliver_log(CallRecord& record, const std::string& message_json) {
    std::lock_guard<std::mutex> lock(record.mu_);
    if (record.ended_) return;
    deliver_locked(record, message_json, false);
}

void ProgressBridge::finish(CallRecord& record, std::string response_json) {
    std::vector<std::string> forget_ids;
    {
        std::lock_guard<std::mutex> lock(record.mu_);
        if (record.ended_) return;
        record.result_ = std::move(response_json);
        if (!record.executions_.empty() && !all_completed(record.executions_)) return;
    }
    // Completed already (or nothing to follow): project the last counts and
    // settle, exactly as the projector would.
    std::shared_ptr<CallRecord> shared;
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = records_.find({record.session().get(), record.request_key()});
        if (it != records_.end()) shared = it->second;
    }
    if (shared) project(shared, true);
}

void ProgressBridge::set_pump_attached(CallRecord& record, bool attached) {
    std::lock_guard<std::mutex> lock(record.mu_);
    record.pump_attached_ = attached;
    if (!attached) {
        // Nothing will write these now, nor what the pump took and did not
        // write: a resume replays them from the ring.
        record.outbox_.clear();
        record.final_.reset();
        record.session()->release_owner(record.owner_id_);
    }
}

void ProgressBridge::expire(CallRecord& record) {
    std::shared_ptr<CallRecord> shared;
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = records_.find({record.session().get(), record.request_key()});
        if (it != records_.end()) shared = it->second;
    }
    if (!shared) return;
    project(shared, true);
    std::vector<std::string> ids;
    {
        std::lock_guard<std::mutex> lock(record.mu_);
        if (record.ended_) return;
        ids = settle_locked(record, CloseReason::kCapExpired, record.result_.has_value());
    }
    forget(record, ids);
}

void ProgressBridge::abandon(CallRecord& record, CloseReason reason) {
    std::vector<std::string> ids;
    {
        std::lock_guard<std::mutex> lock(record.mu_);
        if (record.ended_) return;
        ids = settle_locked(record, reason, false);
    }
    forget(record, ids);
}

bool ProgressBridge::cancel(const Session& session, const json& request_id) {
    std::shared_ptr<CallRecord> record;
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = records_.find({&session, dump_json(request_id)});
        if (it == records_.end()) return false;
        record = it->second;
    }
    std::vector<std::string> ids;
    {
        std::lock_guard<std::mutex> lock(record->mu_);
        if (record->ended_) return false;
        ids = settle_locked(*record, CloseReason::kCancelled, false);
    }
    forget(*record, ids);
    return true;
}

size_t ProgressBridge::records() const {
    std::lock_guard<std::mutex> lock(mu_);
    return records_.size();
}

void ProgressBridge::merge_snapshot(CallRecord& record, const std::string& id,
                                    const ExecutionProgress& snapshot) {
    auto it = record.executions_.find(id);
    if (it == record.executions_.end()) return;
    // Counts only grow; a completion is never taken back.
    if (snapshot.settled >= it->second.settled || (snapshot.completed && !it->second.completed)) {
        const bool completed = it->second.completed || snapshot.completed;
        it->second = snapshot;
        it->second.completed = completed;
    }
}

void ProgressBridge::cycle() {
    if (metrics_) metrics_->projector_cycles.Increment();
    std::vector<std::shared_ptr<CallRecord>> records;
    bool resync = false;
    {
        std::lock_guard<std::mutex> lock(mu_);
        records.reserve(records_.size());
        for (auto& [key, record] : records_) records.push_back(record);
        std::swap(resync, resync_);
    }
    const int64_t now = clock_.steady_ms();
    for (auto& record : records) {
        // Nobody can receive these any more: a closed session; or a call
        // without a pump (GET-channel, or a streamed one whose client left)
        // followed for longer than a streamed response may stay open. Its
        // executions stay fetchable by execution_id.
        if (record->session()->closed()) {
            abandon(*record, CloseReason::kSessionTerminated);
            continue;
        }
        bool pumped = false;
        {
            std::lock_guard<std::mutex> lock(record->mu_);
            pumped = record->pump_attached_;
        }
        if (!pumped && now - record->created_ms_ >= options_.max_follow_ms) {
            expire(*record);  // a parked streamed call still commits its result
            continue;
        }
        if (resync) {
            std::vector<std::string> ids = record->execution_ids();
            std::vector<std::pair<std::string, ExecutionProgress>> read;
            for (const auto& id : ids) {
                if (auto snap = snapshot_(id)) read.emplace_back(id, *snap);
            }
            std::lock_guard<std::mutex> lock(record->mu_);
            for (auto& [id, p] : read) merge_snapshot(*record, id, p);
            record->dirty_ = true;
        }
        project(record, false);
    }
}

void ProgressBridge::project_locked(CallRecord& record, bool force, bool done) {
    const int64_t now = clock_.steady_ms();
    int settled = 0, targeted = 0, succeeded = 0, failed = 0;
    std::vector<std::string> execution_ids;
    std::string status;
    for (const auto& [id, p] : record.executions_) {
        settled += p.settled;
        targeted += p.targeted;
        succeeded += p.succeeded;
        failed += p.failed;
        status = p.status;
        execution_ids.push_back(id);
    }
    const bool due =
        force || done || now - record.last_progress_ms_ >= options_.min_frame_interval_ms;
    if (!due) return;  // still dirty: the next cycle tries again
    const bool candidate = record.dirty_;
    record.dirty_ = false;
    if (settled <= record.watermark_) {
        // A new snapshot that does not advance (a forced pass with nothing
        // new is not a suppression).
        if (candidate && metrics_) metrics_->progress_suppressed.Increment();
        return;
    }
    record.watermark_ = settled;
    record.last_progress_ms_ = now;
    std::string text = std::to_string(settled) + " of " + std::to_string(targeted) +
                       " agents settled (" + std::to_string(succeeded) + " succeeded, " +
                       std::to_string(failed) + " failed)";
    if (done && execution_ids.size() == 1) text += "; execution " + status;
    deliver_locked(record, progress_message(record, settled, targeted, text, execution_ids), true);
}

void ProgressBridge::project(const std::shared_ptr<CallRecord>& record, bool force) {
    std::vector<std::string> ids;
    {
        std::lock_guard<std::mutex> lock(record->mu_);
        if (record->ended_) return;
        const bool done = all_completed(record->executions_);  // true when none is followed
        if (!record->executions_.empty() && (record->dirty_ || force)) {
            project_locked(*record, force, done);
        }
        if (!done || !record->result_) return;
        ids = settle_locked(*record, CloseReason::kCompleted, true);
    }
    forget(*record, ids);
}

std::string ProgressBridge::progress_message(const CallRecord& record, double progress,
                                             std::optional<double> total, const std::string& text,
                                             const std::vector<std::string>& execution_ids) const {
    json params = {{"progressToken", record.token()}, {"progress", progress}};
    if (total) params["total"] = *total;
    if (!text.empty()) params["message"] = text;
    if (execution_ids.size() == 1) {
        params["_meta"] = {{"execution_id", execution_ids.front()}};
    } else if (!execution_ids.empty()) {
        params["_meta"] = {{"execution_ids", execution_ids}};
    }
    return dump_json(
        json{{"jsonrpc", "2.0"}, {"method", "notifications/progress"}, {"params", params}});
}

void ProgressBridge::deliver_locked(CallRecord& record, const std::string& message_json,
                                    bool is_progress) {
    Session& session = *record.session();
    const StreamMetrics* stream_metrics = session.metrics();
    if (!record.streamed()) {
        const Status published = session.publish(message_json);
        if (!published.ok() && published.code() != StatusCode::kFailedPrecondition &&
            stream_metrics) {
            stream_metrics->publish_failures.Increment();
        }
        return;
    }
    // While a pump writes this call's response its frames are ring-only;
    // once the client has left, they go to the session's GET stream (a
    // client that resumed there receives the rest live).
    // Where the frame goes on the pump's outbox, if anywhere. It is owned
    // only when the pump will hold it: a frame a full outbox drops is left
    // to a resume rather than to a pump that will never write it.
    enum class Slot { kNone, kAppend, kReplaceTail };
    Slot slot = Slot::kNone;
    if (record.pump_attached_) {
        if (record.outbox_.size() < options_.max_outbox) {
            slot = Slot::kAppend;
        } else if (is_progress && record.outbox_tail_is_progress_) {
            slot = Slot::kReplaceTail;
        }
    }
    auto committed = session.commit(
        message_json, Session::CommitMode{record.pump_attached_, false,
                                          slot != Slot::kNone ? record.owner_id_ : 0});
    if (!committed.ok()) {
        if (committed.status().code() != StatusCode::kFailedPrecondition && stream_metrics) {
            stream_metrics->publish_failures.Increment();
        }
        return;
    }
    if (record.first_id_ == 0) record.first_id_ = committed->id;
    if (!record.pump_attached_) return;  // parked: the ring keeps it for a resume
    if (slot == Slot::kAppend) {
        record.outbox_.push_back(std::move(committed).value());
        record.outbox_tail_is_progress_ = is_progress;
    } else if (slot == Slot::kReplaceTail) {
        // A full outbox (a slow pump): the newest value replaces the last
        // one not yet taken, so the bound holds and progress stays current.
        // The one replaced is never written, and no resume should replay an
        // older value after a newer one: it counts as delivered.
        session.delivered(record.outbox_.back().id);
        record.outbox_.back() = std::move(committed).value();
        if (metrics_) metrics_->progress_suppressed.Increment();
    } else if (stream_metrics) {
        stream_metrics->frames_dropped.Increment();  // still in the ring, for a resume
    }
    record.wake_.notify_all();
}

std::vector<std::string> ProgressBridge::settle_locked(CallRecord& record, CloseReason reason,
                                                       bool with_final) {
    std::vector<std::string> ids;
    for (const auto& [id, progress] : record.executions_) ids.push_back(id);
    Session& session = *record.session();
    // Whatever fails below, the record ends and the caller forgets it: a
    // record that never ends would hold a slot of the cap for good.
    try {
        if (with_final && record.streamed() && record.result_) {
            auto committed =
                session.commit_final(record.request_key(), *record.result_, record.pump_attached_,
                                     record.pump_attached_ ? record.owner_id_ : 0);
            if (committed.ok()) {
                if (record.pump_attached_) record.final_ = std::move(committed).value();
            } else {
                // Not resumable, but the pump can still write it. A closed
                // session is no failure: nobody is left to resume it.
                if (committed.status().code() != StatusCode::kFailedPrecondition) {
                    if (session.metrics()) session.metrics()->terminal_publish_failures.Increment();
                    spdlog::warn(
                        "mcp bridge: a streamed call's result could not enter the replay ring "
                        "(session of '{}'): {}",
                        session.principal(), committed.status().message());
                }
                if (record.pump_attached_) record.final_ = wire_only_frame(*record.result_);
            }
        } else {
            session.end_call(record.request_key());
        }
    } catch (...) {
        if (session.metrics()) session.metrics()->terminal_publish_failures.Increment();
        session.end_call(record.request_key());
    }
    record.ended_ = reason;
    record.wake_.notify_all();
    return ids;
}

void ProgressBridge::forget(const CallRecord& record,
                            const std::vector<std::string>& execution_ids) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& id : execution_ids) {
        auto it = by_execution_.find(id);
        if (it != by_execution_.end() && it->second.get() == &record) by_execution_.erase(it);
    }
    auto it = records_.find({record.session().get(), record.request_key()});
    if (it != records_.end() && it->second.get() == &record) records_.erase(it);
    if (metrics_) metrics_->records_active.Set(static_cast<double>(records_.size()));
}

}  // namespace yuzu::mcp
