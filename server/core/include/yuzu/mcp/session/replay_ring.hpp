// ReplayRing: the frames of one MCP session's server→client stream, kept so
// that a client that lost its connection can resume with Last-Event-ID.
//
// Bounded by a frame count and a byte total; the oldest frame goes first,
// and every eviction is counted. A pinned frame (a call's final answer, in
// the streamed-POST work) is skipped by eviction; at most `max_pinned` are
// pinned at once, and pinning one more unpins the oldest.
//
// Resuming never returns a shortened history: frames_after() reports a gap
// when any frame after the cursor is no longer held.
//
// Not thread-safe: its Session guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace yuzu::mcp {

struct StreamFrame {
    uint64_t id = 0;
    std::shared_ptr<const std::string> text;  // the whole SSE frame
    bool pinned = false;
    size_t bytes() const { return text ? text->size() : 0; }
};

class ReplayRing {
  public:
    ReplayRing(size_t max_frames, size_t max_bytes, size_t max_pinned);

    // Appends a frame whose id is above every id appended before (asserted)
    // and evicts until both bounds hold. Answers how many were evicted.
    size_t append(StreamFrame frame);

    // Every held frame with id > cursor, oldest first, into *out. False (a
    // gap; *out untouched) when a frame in (cursor, last_id()] is no longer
    // held, or the cursor is beyond last_id().
    bool frames_after(uint64_t cursor, std::vector<StreamFrame>* out) const;

    // Pins or unpins a held frame; false when it is not held.
    bool pin(uint64_t id);
    bool unpin(uint64_t id);

    uint64_t last_id() const { return last_id_; }
    size_t size() const { return frames_.size(); }
    size_t bytes() const { return bytes_; }
    size_t pinned() const { return pinned_; }
    uint64_t evictions() const { return evictions_; }

  private:
    bool over_bounds() const;

    const size_t max_frames_;
    const size_t max_bytes_;
    const size_t max_pinned_;
    std::deque<StreamFrame> frames_;  // ascending ids
    size_t bytes_ = 0;
    size_t pinned_ = 0;
    uint64_t last_id_ = 0;
    uint64_t evictions_ = 0;
};

}  // namespace yuzu::mcp
