#include "yuzu/mcp/session/session.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <utility>

#include "yuzu/mcp/session/stream_metrics.hpp"
#include "yuzu/metrics/counter.hpp"
#include "yuzu/metrics/gauge.hpp"

namespace yuzu::mcp {

Session::Session(std::string id, std::string principal, std::string protocol_version,
                 const SessionLimits& limits, const StreamMetrics* metrics, int64_t now_steady_ms)
    : id_(std::move(id)),
      principal_(std::move(principal)),
      protocol_version_(std::move(protocol_version)),
      limits_(limits),
      metrics_(metrics),
      writer_(limits.max_frame_bytes),
      ring_(limits.ring_frames, limits.ring_bytes, limits.max_pinned),
      last_used_ms_(now_steady_ms) {}

Status Session::publish(std::string_view message_json) {
    std::unique_lock<std::mutex> lock(mu_);
    auto committed = commit_locked(message_json, CommitMode{});
    lock.unlock();
    if (!committed.ok()) return committed.status();
    wake_.notify_all();
    return Status::Ok();
}

Result<StreamFrame> Session::commit(std::string_view message_json, CommitMode mode) {
    std::unique_lock<std::mutex> lock(mu_);
    auto committed = commit_locked(message_json, mode);
    lock.unlock();
    if (committed.ok() && !mode.ring_only) wake_.notify_all();
    return committed;
}

Result<StreamFrame> Session::commit_locked(std::string_view message_json, CommitMode mode) {
    if (closed_) return Status::FailedPrecondition("the session is closed");
    http::SseEvent event;
    // The frame keeps its ring id either way; only a resumable session
    // tells the client, which would otherwise resume with Last-Event-ID.
    if (resumable_) event.id = next_id_;
    event.data = std::string(message_json);
    auto text = writer_.frame(event);
    if (!text.ok()) return text.status();
    const uint64_t id = next_id_++;
    StreamFrame frame{id, std::make_shared<const std::string>(std::move(text).value())};
    frame.ring_only = mode.ring_only;
    frame.pinned = mode.pinned;
    frame.owner = mode.ring_only ? mode.owner : 0;
    if (connection_ && !mode.ring_only) {
        const size_t byte_cap = limits_.connection_queue_bytes > 0 ? limits_.connection_queue_bytes
                                                                   : limits_.ring_bytes;
        if (!connection_->overflowed && connection_->queue.size() < limits_.connection_queue &&
            connection_->queue_bytes + frame.bytes() <= byte_cap) {
            connection_->queue_bytes += frame.bytes();
            connection_->queue.push_back(frame);
        } else {
            connection_->overflowed = true;
            if (metrics_) metrics_->frames_dropped.Increment();
        }
    }
    StreamFrame answer = frame;
    bool displaced = false;
    const size_t evicted = ring_.append(std::move(frame), &displaced);
    if (evicted > 0 && metrics_) metrics_->ring_evictions.Increment(static_cast<double>(evicted));
    if (mode.pinned && metrics_) {
        if (displaced) metrics_->pin_displaced.Increment();
        if (limits_.max_pinned == 0) metrics_->final_unpinned.Increment();
    }
    return answer;
}

Session::CallAdmission Session::admit_call(const std::string& request_key, bool streamed) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return CallAdmission::kClosed;
    if (calls_.count(request_key) > 0) return CallAdmission::kDuplicateId;
    CallAdmission outcome = CallAdmission::kAdmitted;
    if (streamed) {
        if (streamed_calls_ >= limits_.max_pinned) return CallAdmission::kSlotsBusy;
        if (streamed_calls_ + ring_.pinned() >= limits_.max_pinned) {
            // Every free slot is a final nobody collected: the oldest yields.
            if (ring_.pinned() == 0) return CallAdmission::kSlotsBusy;
            outcome = CallAdmission::kReclaimed;
        }
    }
    calls_.emplace(request_key, streamed);  // may throw: nothing changed yet
    if (outcome == CallAdmission::kReclaimed) ring_.unpin_oldest();
    if (streamed) ++streamed_calls_;
    return outcome;
}

void Session::end_call(const std::string& request_key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = calls_.find(request_key);
    if (it == calls_.end()) return;
    if (it->second) --streamed_calls_;
    calls_.erase(it);
}

Result<StreamFrame> Session::commit_final(const std::string& request_key,
                                          std::string_view message_json, bool ring_only,
                                          uint64_t owner) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = calls_.find(request_key);
    if (it != calls_.end()) {
        if (it->second) --streamed_calls_;
        calls_.erase(it);
    }
    auto committed = commit_locked(message_json, CommitMode{ring_only, true, owner});
    if (committed.ok() && !ring_only) wake_.notify_all();
    return committed;
}

void Session::delivered(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t before = ring_.evictions();
    ring_.mark_delivered(id);
    count_evictions_since(before);
}

void Session::release_owner(uint64_t owner) {
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t before = ring_.evictions();
    ring_.release_owner(owner);
    count_evictions_since(before);
}

void Session::count_evictions_since(uint64_t before) const {
    const uint64_t evicted = ring_.evictions() - before;
    if (evicted > 0 && metrics_) metrics_->ring_evictions.Increment(static_cast<double>(evicted));
}

size_t Session::calls_in_flight() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_.size();
}

size_t Session::pinned_finals() const {
    std::lock_guard<std::mutex> lock(mu_);
    return ring_.pinned();
}

uint64_t Session::last_event_id() const {
    std::lock_guard<std::mutex> lock(mu_);
    return ring_.last_id();
}

void Session::set_log_level(LogLevel level) {
    std::lock_guard<std::mutex> lock(mu_);
    log_level_ = level;
    logs_muted_ = false;
}

void Session::set_unresumable() {
    std::lock_guard<std::mutex> lock(mu_);
    resumable_ = false;
}

void Session::mute_logs() {
    std::lock_guard<std::mutex> lock(mu_);
    logs_muted_ = true;
}

bool Session::wants_log(LogLevel level) const {
    std::lock_guard<std::mutex> lock(mu_);
    return !logs_muted_ && level >= log_level_;
}

Session::Attach Session::attach(std::optional<uint64_t> last_event_id, http::StreamBudget& budget) {
    std::unique_lock<std::mutex> lock(mu_);
    Attach out;
    if (closed_) return out;
    const uint64_t cursor = last_event_id.value_or(ring_.last_id());
    std::vector<StreamFrame> replay;
    if (!ring_.frames_after(cursor, &replay)) {
        // The client must re-initialize: the session ends, and a connection
        // still attached to it hears session_terminated (its own cursor was
        // fine; the GET that asked gets replay_gap).
        out.outcome = Attach::Outcome::kGap;
        closed_ = CloseReason::kSessionTerminated;
        lock.unlock();
        wake_.notify_all();
        return out;
    }
    Connection next;
    if (connection_ && !superseded_live_.empty()) {
        out.outcome = Attach::Outcome::kHandoverPending;
        return out;
    }
    if (connection_) {
        next.lease = std::move(connection_->lease);
        out.took_over = true;
        superseded_live_.insert(connection_->generation);
        if (metrics_) metrics_->handover_pending.Increment();
    } else {
        auto admission = budget.acquire(principal_);
        if (!admission.lease) {
            out.outcome = admission.refusal == http::StreamBudget::Refusal::kGlobalCap
                              ? Attach::Outcome::kGlobalCap
                              : Attach::Outcome::kPerPrincipalCap;
            return out;
        }
        next.lease = std::move(*admission.lease);
        if (metrics_) metrics_->streams_active.Increment();
    }
    // A resume acknowledges every frame up to its cursor, pinned finals
    // included (the seed's "GET resume acking past the pinned id"); a
    // client resuming a lost POST response sends that response's last id.
    if (last_event_id) {
        const uint64_t before = ring_.evictions();
        ring_.unpin_through(*last_event_id);
        count_evictions_since(before);
    }
    next.generation = ++generations_;
    connection_ = std::move(next);
    out.outcome = Attach::Outcome::kAttached;
    out.generation = connection_->generation;
    out.cursor = replay.empty() ? cursor : replay.back().id;
    out.replay = std::move(replay);
    lock.unlock();
    if (out.took_over) wake_.notify_all();
    return out;
}

Session::Batch Session::wait(uint64_t generation, uint64_t cursor, int64_t timeout_ms) {
    std::unique_lock<std::mutex> lock(mu_);
    const auto ready = [&] {
        if (closed_ || !connection_ || connection_->generation != generation) return true;
        return !connection_->queue.empty() || connection_->overflowed;
    };
    if (timeout_ms > 0) wake_.wait_for(lock, std::chrono::milliseconds(timeout_ms), ready);
    Batch out;
    if (!connection_ || connection_->generation != generation) {
        out.close = closed_.value_or(CloseReason::kSuperseded);
        return out;
    }
    if (connection_->overflowed) {
        // The queue lost frames: catch up from the ring instead, from the
        // last frame this connection wrote.
        connection_->overflowed = false;
        connection_->queue.clear();
        connection_->queue_bytes = 0;
        // Ring-only frames went out on POST responses: not this stream's.
        if (!ring_.frames_after(cursor, &out.frames, false)) {
            out.frames.clear();
            if (!closed_) closed_ = CloseReason::kReplayGap;
        }
    } else {
        out.frames = std::move(connection_->queue);
        connection_->queue.clear();
        connection_->queue_bytes = 0;
    }
    // Frames committed before the close come with it; the GET pump writes
    // only the close frame once the session is over (a peer reading slowly
    // cannot hold a worker through them at shutdown).
    if (closed_) out.close = *closed_;
    return out;
}

void Session::detach(uint64_t generation) {
    std::lock_guard<std::mutex> lock(mu_);
    if (connection_ && connection_->generation == generation) {
        connection_.reset();  // releases the lease
        if (metrics_) metrics_->streams_active.Decrement();
        return;
    }
    if (superseded_live_.erase(generation) > 0 && metrics_) {
        metrics_->handover_pending.Decrement();
    }
}

bool Session::is_current(uint64_t generation) const {
    std::lock_guard<std::mutex> lock(mu_);
    return !closed_ && connection_ && connection_->generation == generation;
}

bool Session::has_connection() const {
    std::lock_guard<std::mutex> lock(mu_);
    return connection_.has_value();
}

void Session::close(CloseReason reason) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (!closed_) closed_ = reason;
    }
    wake_.notify_all();
}

std::optional<CloseReason> Session::closed() const {
    std::lock_guard<std::mutex> lock(mu_);
    return closed_;
}

void Session::touch(int64_t now_steady_ms) {
    std::lock_guard<std::mutex> lock(mu_);
    last_used_ms_ = std::max(last_used_ms_, now_steady_ms);
}

int64_t Session::last_used_ms() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_used_ms_;
}

}  // namespace yuzu::mcp
