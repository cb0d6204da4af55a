// ReplayRing: the frames of one MCP session's server→client stream, kept so
// that a client that lost its connection can resume with Last-Event-ID.
//
// Bounded by a frame count and a byte total; the oldest frame goes first,
// and every eviction is counted. A pinned frame (a streamed call's final
// answer) is skipped by eviction; at most `max_pinned` are pinned at once,
// and pinning one more unpins the oldest (reported to the caller: it means
// the streamed-call admission let more calls in than there are slots).
//
// A ring-only frame belongs to a streamed POST response: a live GET
// connection never gets it. A frame that response's pump holds to write
// has an owner: a resume (Last-Event-ID) does not replay it, and eviction
// passes over it, until the pump writes it (mark_delivered) or is gone
// (release_owner). Then a resume replays every such frame the response
// did not write, so no message reaches a client on two streams.
//
// Resuming never returns a shortened history: frames_after() reports a gap
// when a frame after the cursor that it would have replayed is no longer
// held. A ring-only frame its response already wrote would not have been,
// so its eviction is no gap.
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
    bool ring_only = false;
    bool delivered = false;  // ring-only: its own response wrote it
    uint64_t owner = 0;      // ring-only: the attached pump that will write it (0: none)
    size_t bytes() const { return text ? text->size() : 0; }
};

class ReplayRing {
  public:
    ReplayRing(size_t max_frames, size_t max_bytes, size_t max_pinned);

    // Appends a frame whose id is above every id appended before (asserted)
    // and evicts until both bounds hold. Answers how many were evicted;
    // *displaced_pin (when given) says whether pinning it unpinned another.
    size_t append(StreamFrame frame, bool* displaced_pin = nullptr);

    // Every held frame with id > cursor, oldest first, into *out (ring-only
    // frames only when `include_ring_only`, and then only those neither
    // written nor owned). False (a gap; *out untouched) when a frame in
    // (cursor, last_id()] that would be among them is no longer held, or the
    // cursor is beyond last_id().
    bool frames_after(uint64_t cursor, std::vector<StreamFrame>* out,
                      bool include_ring_only = true) const;

    // Pins or unpins a held frame; false when it is not held.
    bool pin(uint64_t id);
    bool unpin(uint64_t id);
    // Unpins every pinned frame with id <= cursor that a GET stream carried
    // (a resume acknowledged them; a ring-only one it never saw keeps its
    // pin); answers how many.
    size_t unpin_through(uint64_t cursor);
    // A frame reached a wire: unpinned, no longer owned, and a ring-only one
    // is no longer replayed (then evicts if the ring is over its bounds).
    // False when it is not held.
    bool mark_delivered(uint64_t id);
    // Unpins the oldest pinned frame; false when none is pinned.
    bool unpin_oldest();
    // The pump that owned these frames is gone: the ones it did not write
    // become a resume's. Answers how many were released.
    size_t release_owner(uint64_t owner);

    uint64_t last_id() const { return last_id_; }
    size_t size() const { return frames_.size(); }
    size_t bytes() const { return bytes_; }
    size_t pinned() const { return pinned_; }
    uint64_t evictions() const { return evictions_; }

  private:
    bool over_bounds() const;
    // Evicts until both bounds hold, or only pinned and owned frames are
    // left; counts and answers how many went. Run by append() and by every
    // call that lets a kept frame go.
    size_t evict_over_bounds();

    const size_t max_frames_;
    const size_t max_bytes_;
    const size_t max_pinned_;
    std::deque<StreamFrame> frames_;  // ascending ids
    size_t bytes_ = 0;
    size_t pinned_ = 0;
    uint64_t last_id_ = 0;
    uint64_t evictions_ = 0;
    // The highest id evicted among frames a GET stream carries, and among
    // ring-only frames their response had not written (0: none).
    uint64_t evicted_stream_max_ = 0;
    uint64_t evicted_owed_max_ = 0;
};

}  // namespace yuzu::mcp
