#include "yuzu/mcp/session/replay_ring.hpp"

#include <algorithm>
#include <cassert>

namespace yuzu::mcp {

ReplayRing::ReplayRing(size_t max_frames, size_t max_bytes, size_t max_pinned)
    : max_frames_(std::max<size_t>(1, max_frames)),
      max_bytes_(max_bytes),
      max_pinned_(max_pinned) {}

bool ReplayRing::over_bounds() const {
    return frames_.size() > max_frames_ || bytes_ > max_bytes_;
}

size_t ReplayRing::append(StreamFrame frame, bool* displaced_pin) {
    assert(frame.id > last_id_);
    last_id_ = frame.id;
    bytes_ += frame.bytes();
    if (displaced_pin) *displaced_pin = false;
    if (frame.pinned) {
        if (max_pinned_ == 0) {
            frame.pinned = false;
        } else {
            if (pinned_ == max_pinned_) {
                unpin_oldest();
                if (displaced_pin) *displaced_pin = true;
            }
            ++pinned_;
        }
    }
    frames_.push_back(std::move(frame));
    return evict_over_bounds();
}

size_t ReplayRing::evict_over_bounds() {
    size_t evicted = 0;
    // Oldest unpinned first; pinned frames are passed over, and so are
    // owned ones (their pump's outbox holds the same text, so keeping them
    // costs little, and a pump writing a frame the ring had dropped would
    // leave the ring thinking it owed). The newest frame may go too (a frame
    // larger than the byte bound never stays).
    auto it = frames_.begin();
    while (over_bounds() && it != frames_.end()) {
        if (it->pinned || it->owner != 0) {
            ++it;
            continue;
        }
        bytes_ -= it->bytes();
        if (!it->ring_only) {
            evicted_stream_max_ = std::max(evicted_stream_max_, it->id);
        } else if (!it->delivered) {
            evicted_owed_max_ = std::max(evicted_owed_max_, it->id);
        }
        it = frames_.erase(it);
        ++evicted;
    }
    evictions_ += evicted;
    return evicted;
}

bool ReplayRing::frames_after(uint64_t cursor, std::vector<StreamFrame>* out,
                              bool include_ring_only) const {
    if (cursor > last_id_) return false;
    if (evicted_stream_max_ > cursor) return false;
    if (include_ring_only && evicted_owed_max_ > cursor) return false;
    const auto first = std::upper_bound(frames_.begin(), frames_.end(), cursor,
                                        [](uint64_t c, const StreamFrame& f) { return c < f.id; });
    for (auto it = first; it != frames_.end(); ++it) {
        if (!it->ring_only || (include_ring_only && !it->delivered && it->owner == 0)) {
            out->push_back(*it);
        }
    }
    return true;
}

bool ReplayRing::pin(uint64_t id) {
    auto it = std::find_if(frames_.begin(), frames_.end(),
                           [id](const StreamFrame& f) { return f.id == id; });
    if (it == frames_.end()) return false;
    if (it->pinned || max_pinned_ == 0) return it->pinned;
    if (pinned_ == max_pinned_) unpin_oldest();
    it->pinned = true;
    ++pinned_;
    return true;
}

bool ReplayRing::unpin(uint64_t id) {
    auto it = std::find_if(frames_.begin(), frames_.end(),
                           [id](const StreamFrame& f) { return f.id == id; });
    if (it == frames_.end()) return false;
    if (it->pinned) {
        it->pinned = false;
        --pinned_;
    }
    return true;
}

size_t ReplayRing::unpin_through(uint64_t cursor) {
    size_t released = 0;
    for (auto& f : frames_) {
        if (f.id > cursor) break;
        if (f.pinned && !f.ring_only) {
            f.pinned = false;
            --pinned_;
            ++released;
        }
    }
    if (released > 0) evict_over_bounds();
    return released;
}

bool ReplayRing::mark_delivered(uint64_t id) {
    auto it = std::lower_bound(frames_.begin(), frames_.end(), id,
                               [](const StreamFrame& f, uint64_t v) { return f.id < v; });
    if (it == frames_.end() || it->id != id) return false;
    it->delivered = true;
    it->owner = 0;
    if (it->pinned) {
        it->pinned = false;
        --pinned_;
    }
    // Frames kept past the bounds for their pump or their pin go now, not
    // at the session's next commit.
    evict_over_bounds();
    return true;
}

size_t ReplayRing::release_owner(uint64_t owner) {
    assert(owner != 0);
    size_t released = 0;
    for (auto& f : frames_) {
        if (f.owner == owner) {
            f.owner = 0;
            ++released;
        }
    }
    if (released > 0) evict_over_bounds();
    return released;
}

bool ReplayRing::unpin_oldest() {
    if (pinned_ == 0) return false;
    auto oldest =
        std::find_if(frames_.begin(), frames_.end(), [](const StreamFrame& f) { return f.pinned; });
    assert(oldest != frames_.end());
    oldest->pinned = false;
    --pinned_;
    return true;
}

}  // namespace yuzu::mcp
