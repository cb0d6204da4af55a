// ReplayRing: eviction by frame count and by bytes (counted), the resume
// rule (exactly the frames after the cursor, or a gap, never a shortened
// replay), and pinned frames (skipped by eviction, bounded by max_pinned).
#include "yuzu/mcp/session/replay_ring.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace yuzu::mcp {
namespace {

constexpr size_t kManyBytes = size_t{1} << 20;

// A frame whose text is "frame <id>" padded with '.' to `bytes` when given.
StreamFrame frame(uint64_t id, size_t bytes = 0, bool pinned = false) {
    std::string text = "frame " + std::to_string(id);
    if (bytes > 0) text.resize(bytes, '.');
    StreamFrame f;
    f.id = id;
    f.text = std::make_shared<const std::string>(std::move(text));
    f.pinned = pinned;
    return f;
}

std::vector<uint64_t> ids(const std::vector<StreamFrame>& frames) {
    std::vector<uint64_t> out;
    for (const auto& f : frames) out.push_back(f.id);
    return out;
}

// frames_after() that must succeed.
std::vector<uint64_t> after(const ReplayRing& ring, uint64_t cursor) {
    std::vector<StreamFrame> out;
    EXPECT_TRUE(ring.frames_after(cursor, &out)) << "gap after " << cursor;
    return ids(out);
}

// frames_after() that must report a gap, leaving *out untouched.
void expect_gap(const ReplayRing& ring, uint64_t cursor) {
    std::vector<StreamFrame> out = {frame(1000)};
    EXPECT_FALSE(ring.frames_after(cursor, &out)) << "no gap after " << cursor;
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].id, 1000u);
}

using Ids = std::vector<uint64_t>;

TEST(ReplayRing, FreshRingResumesFromZeroWithNothing) {
    const ReplayRing ring(4, kManyBytes, 2);
    EXPECT_EQ(ring.last_id(), 0u);
    EXPECT_EQ(ring.size(), 0u);
    EXPECT_EQ(ring.bytes(), 0u);
    EXPECT_EQ(after(ring, 0), Ids{});
    expect_gap(ring, 1);
}

TEST(ReplayRing, FramesAfterReturnsExactlyTheFramesAfterTheCursor) {
    ReplayRing ring(10, kManyBytes, 2);
    for (uint64_t id = 1; id <= 5; ++id) EXPECT_EQ(ring.append(frame(id)), 0u);
    EXPECT_EQ(ring.last_id(), 5u);
    EXPECT_EQ(ring.size(), 5u);
    EXPECT_EQ(after(ring, 0), (Ids{1, 2, 3, 4, 5}));
    EXPECT_EQ(after(ring, 2), (Ids{3, 4, 5}));
    EXPECT_EQ(after(ring, 4), (Ids{5}));
    EXPECT_EQ(after(ring, 5), Ids{});  // cursor == last_id
    expect_gap(ring, 6);               // beyond last_id
    expect_gap(ring, 600);

    std::vector<StreamFrame> out;
    ASSERT_TRUE(ring.frames_after(3, &out));
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(*out[0].text, "frame 4");
    EXPECT_EQ(*out[1].text, "frame 5");
}

TEST(ReplayRing, FramesAfterAppendsToWhatTheCallerHolds) {
    ReplayRing ring(10, kManyBytes, 0);
    ring.append(frame(1));
    ring.append(frame(2));
    std::vector<StreamFrame> out = {frame(1000)};
    ASSERT_TRUE(ring.frames_after(0, &out));
    EXPECT_EQ(ids(out), (Ids{1000, 1, 2}));
}

TEST(ReplayRing, EvictsTheOldestByFrameCount) {
    ReplayRing ring(3, kManyBytes, 2);
    EXPECT_EQ(ring.append(frame(1)), 0u);
    EXPECT_EQ(ring.append(frame(2)), 0u);
    EXPECT_EQ(ring.append(frame(3)), 0u);
    EXPECT_EQ(ring.append(frame(4)), 1u);
    EXPECT_EQ(ring.append(frame(5)), 1u);
    EXPECT_EQ(ring.size(), 3u);
    EXPECT_EQ(ring.evictions(), 2u);
    EXPECT_EQ(ring.last_id(), 5u);

    EXPECT_EQ(after(ring, 2), (Ids{3, 4, 5}));
    EXPECT_EQ(after(ring, 3), (Ids{4, 5}));
    // Frames 1 and 2 are gone: a resume from before them is a gap, never
    // frames 3..5 alone.
    expect_gap(ring, 1);
    expect_gap(ring, 0);
}

TEST(ReplayRing, EvictsTheOldestByBytes) {
    ReplayRing ring(100, 10, 0);
    EXPECT_EQ(ring.append(frame(1, 4)), 0u);
    EXPECT_EQ(ring.append(frame(2, 4)), 0u);
    EXPECT_EQ(ring.bytes(), 8u);
    EXPECT_EQ(ring.append(frame(3, 4)), 1u);  // 12 > 10: frame 1 goes
    EXPECT_EQ(ring.bytes(), 8u);
    EXPECT_EQ(ring.size(), 2u);
    EXPECT_EQ(ring.append(frame(4, 10)), 2u);  // 18: frames 2 and 3 go
    EXPECT_EQ(ring.bytes(), 10u);
    EXPECT_EQ(ring.size(), 1u);
    EXPECT_EQ(ring.evictions(), 3u);
    EXPECT_EQ(after(ring, 3), (Ids{4}));
    expect_gap(ring, 2);
}

TEST(ReplayRing, AFrameLargerThanTheByteBoundDoesNotStay) {
    ReplayRing ring(100, 10, 0);
    ring.append(frame(1, 4));
    EXPECT_EQ(ring.append(frame(2, 11)), 2u);
    EXPECT_EQ(ring.size(), 0u);
    EXPECT_EQ(ring.bytes(), 0u);
    EXPECT_EQ(ring.last_id(), 2u);
    EXPECT_EQ(after(ring, 2), Ids{});
    expect_gap(ring, 1);
    expect_gap(ring, 0);
}

TEST(ReplayRing, PinnedFramesSurviveEvictionAndAreReturned) {
    ReplayRing ring(2, kManyBytes, 2);
    ring.append(frame(1));
    ring.append(frame(2, 0, /*pinned=*/true));
    EXPECT_EQ(ring.pinned(), 1u);
    EXPECT_EQ(ring.append(frame(3)), 1u);  // frame 1 goes
    std::vector<StreamFrame> out;
    ASSERT_TRUE(ring.frames_after(1, &out));
    ASSERT_EQ(ids(out), (Ids{2, 3}));
    EXPECT_TRUE(out[0].pinned);
    EXPECT_FALSE(out[1].pinned);

    // Frame 3 is evicted next, though it is newer than the pinned frame 2.
    EXPECT_EQ(ring.append(frame(4)), 1u);
    EXPECT_EQ(ring.size(), 2u);
    EXPECT_EQ(ring.pinned(), 1u);
    EXPECT_EQ(after(ring, 3), (Ids{4}));
    EXPECT_TRUE(ring.unpin(2));  // still held
    EXPECT_EQ(ring.pinned(), 0u);
    EXPECT_FALSE(ring.pin(3));  // evicted
}

TEST(ReplayRing, APinnedSurvivorDoesNotHideEvictedNeighbours) {
    ReplayRing ring(3, kManyBytes, 2);
    ring.append(frame(1, 0, /*pinned=*/true));
    for (uint64_t id = 2; id <= 5; ++id) ring.append(frame(id));
    // Held: 1 (pinned), 4, 5; frames 2 and 3 were evicted around it.
    EXPECT_EQ(ring.size(), 3u);
    EXPECT_EQ(ring.evictions(), 2u);
    expect_gap(ring, 0);
    expect_gap(ring, 1);
    expect_gap(ring, 2);
    EXPECT_EQ(after(ring, 3), (Ids{4, 5}));
}

TEST(ReplayRing, PinningBeyondMaxPinnedUnpinsTheOldestPin) {
    ReplayRing ring(4, kManyBytes, 2);
    for (uint64_t id = 1; id <= 4; ++id) ring.append(frame(id));
    EXPECT_TRUE(ring.pin(1));
    EXPECT_TRUE(ring.pin(2));
    EXPECT_EQ(ring.pinned(), 2u);
    EXPECT_TRUE(ring.pin(3));  // frame 1 loses its pin
    EXPECT_EQ(ring.pinned(), 2u);

    EXPECT_EQ(ring.append(frame(5)), 1u);  // frame 1 can go now
    EXPECT_FALSE(ring.pin(1));
    EXPECT_EQ(after(ring, 1), (Ids{2, 3, 4, 5}));
    EXPECT_EQ(ring.append(frame(6)), 1u);  // 2 and 3 are pinned: frame 4 goes
    EXPECT_FALSE(ring.unpin(4));
    EXPECT_TRUE(ring.unpin(2));
    EXPECT_TRUE(ring.unpin(3));
    EXPECT_EQ(ring.pinned(), 0u);
    EXPECT_EQ(ring.size(), 4u);  // 2, 3, 5, 6
    EXPECT_EQ(after(ring, 4), (Ids{5, 6}));
    expect_gap(ring, 3);
}

TEST(ReplayRing, AppendingPinnedFramesBeyondMaxPinnedUnpinsTheOldest) {
    ReplayRing ring(3, kManyBytes, 1);
    ring.append(frame(1, 0, true));
    ring.append(frame(2, 0, true));  // frame 1 is unpinned
    EXPECT_EQ(ring.pinned(), 1u);
    ring.append(frame(3));
    EXPECT_EQ(ring.append(frame(4)), 1u);
    expect_gap(ring, 0);  // frame 1 went, pinned frame 2 stayed
    EXPECT_EQ(after(ring, 1), (Ids{2, 3, 4}));
    EXPECT_EQ(ring.append(frame(5)), 1u);  // frame 3 goes, 2 is still pinned
    EXPECT_EQ(after(ring, 3), (Ids{4, 5}));
    EXPECT_TRUE(ring.unpin(2));
}

TEST(ReplayRing, PinIsIdempotentAndUnpinOfAnUnpinnedFrameIsHeld) {
    ReplayRing ring(4, kManyBytes, 2);
    ring.append(frame(1));
    EXPECT_TRUE(ring.pin(1));
    EXPECT_TRUE(ring.pin(1));
    EXPECT_EQ(ring.pinned(), 1u);
    EXPECT_TRUE(ring.unpin(1));
    EXPECT_TRUE(ring.unpin(1));
    EXPECT_EQ(ring.pinned(), 0u);
}

TEST(ReplayRing, PinAndUnpinOfAnUnknownIdAreFalse) {
    ReplayRing ring(4, kManyBytes, 2);
    EXPECT_FALSE(ring.pin(1));
    EXPECT_FALSE(ring.unpin(1));
    ring.append(frame(1));
    EXPECT_FALSE(ring.pin(2));
    EXPECT_FALSE(ring.unpin(0));
    EXPECT_FALSE(ring.unpin(99));
    EXPECT_EQ(ring.pinned(), 0u);
}

TEST(ReplayRing, NoPinningWhenMaxPinnedIsZero) {
    ReplayRing ring(2, kManyBytes, 0);
    ring.append(frame(1, 0, true));
    EXPECT_EQ(ring.pinned(), 0u);
    ring.append(frame(2));
    EXPECT_EQ(ring.append(frame(3)), 1u);  // frame 1 was never pinned
    EXPECT_EQ(after(ring, 1), (Ids{2, 3}));
    expect_gap(ring, 0);
}

// --- ring-only frames, displaced pins, unpin_through, unpin_oldest --------

StreamFrame ring_only_frame(uint64_t id, bool pinned = false) {
    StreamFrame f = frame(id, 0, pinned);
    f.ring_only = true;
    return f;
}

// frames_after(..., include_ring_only=false) that must succeed.
std::vector<uint64_t> after_live(const ReplayRing& ring, uint64_t cursor) {
    std::vector<StreamFrame> out;
    EXPECT_TRUE(ring.frames_after(cursor, &out, false)) << "gap after " << cursor;
    return ids(out);
}

TEST(ReplayRing, RingOnlyFramesAreReturnedByDefaultAndSkippedOnRequest) {
    ReplayRing ring(10, kManyBytes, 2);
    ring.append(ring_only_frame(1));
    ring.append(frame(2));
    ring.append(ring_only_frame(3));
    ring.append(frame(4));
    ring.append(ring_only_frame(5));

    EXPECT_EQ(after(ring, 0), (Ids{1, 2, 3, 4, 5}));
    EXPECT_EQ(after_live(ring, 0), (Ids{2, 4}));
    EXPECT_EQ(after_live(ring, 2), (Ids{4}));
    EXPECT_EQ(after_live(ring, 4), Ids{});  // only the ring-only frame 5 follows
    EXPECT_EQ(after(ring, 4), (Ids{5}));

    std::vector<StreamFrame> out;
    ASSERT_TRUE(ring.frames_after(0, &out));
    ASSERT_EQ(out.size(), 5u);
    EXPECT_TRUE(out[0].ring_only);
    EXPECT_FALSE(out[1].ring_only);
    EXPECT_TRUE(out[2].ring_only);
    EXPECT_EQ(*out[2].text, "frame 3");
}

// A missing frame is a gap only for a replay that would have carried it.
TEST(ReplayRing, AMissingRingOnlyFrameIsAGapOnlyWhereItWouldBeReplayed) {
    ReplayRing ring(3, kManyBytes, 0);
    ring.append(frame(1));
    ring.append(ring_only_frame(2));
    ring.append(frame(3));
    ring.append(ring_only_frame(4));  // frame 1 goes
    ring.append(frame(5));            // ring-only frame 2 goes, never written
    EXPECT_EQ(ring.evictions(), 2u);

    // A live catch-up never carries ring-only frames: 2's absence is no gap
    // for it.
    EXPECT_EQ(after_live(ring, 1), (Ids{3, 5}));
    EXPECT_EQ(after_live(ring, 2), (Ids{3, 5}));
    EXPECT_EQ(after_live(ring, 3), (Ids{5}));
    // A resume would have replayed 2, which its response never wrote.
    expect_gap(ring, 1);
    EXPECT_EQ(after(ring, 2), (Ids{3, 4, 5}));
    // Frame 1 went to GET streams: missing after cursor 0 is a gap either way.
    std::vector<StreamFrame> out = {frame(1000)};
    EXPECT_FALSE(ring.frames_after(0, &out, false));
    EXPECT_FALSE(ring.frames_after(6, &out, false));  // beyond last_id
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].id, 1000u);
}

// A streamed answer's frames that its pump wrote are not a resume's, so
// their eviction leaves no gap: a long streamed call must not end a GET
// stream that resumes from before it.
TEST(ReplayRing, EvictedFramesTheirResponseWroteAreNoGap) {
    ReplayRing ring(3, kManyBytes, 0);
    ring.append(frame(1));
    for (uint64_t id = 2; id <= 9; ++id) {
        ring.append(ring_only_frame(id));
        ASSERT_TRUE(ring.mark_delivered(id));
    }
    ring.append(frame(10));
    EXPECT_EQ(after(ring, 1), (Ids{10}));
    EXPECT_EQ(after_live(ring, 1), (Ids{10}));
    expect_gap(ring, 0);  // frame 1 itself is gone
}

// While its pump is attached, a streamed answer's frames are the pump's: a
// resume leaves them out (the pump writes them). Released, the ones not
// written are replayed.
TEST(ReplayRing, OwnedFramesAreLeftToTheirPumpUntilReleased) {
    ReplayRing ring(10, kManyBytes, 2);
    ring.append(frame(1));
    for (uint64_t id = 2; id <= 4; ++id) {
        StreamFrame f = ring_only_frame(id);
        f.owner = 7;
        ring.append(std::move(f));
    }
    StreamFrame other = ring_only_frame(5);
    other.owner = 8;
    ring.append(std::move(other));
    EXPECT_EQ(after(ring, 0), (Ids{1}));
    ASSERT_TRUE(ring.mark_delivered(2));        // the pump wrote 2, then its client left
    EXPECT_EQ(ring.release_owner(7), 2u);       // 3 and 4: 2 lost its owner when written
    EXPECT_EQ(after(ring, 0), (Ids{1, 3, 4}));  // 5 is still owner 8's
    EXPECT_EQ(after_live(ring, 0), (Ids{1}));
    EXPECT_EQ(ring.release_owner(7), 0u);
}

// Owned frames may hold the ring past its bounds while their pump has them;
// the bounds hold again as soon as the pump writes them or goes, not at the
// session's next commit.
TEST(ReplayRing, FramesKeptPastTheBoundsGoOnceWrittenOrReleased) {
    ReplayRing ring(2, kManyBytes, 0);
    for (uint64_t id = 1; id <= 4; ++id) {
        StreamFrame f = ring_only_frame(id);
        f.owner = 9;
        ring.append(std::move(f));
    }
    EXPECT_EQ(ring.size(), 4u);
    EXPECT_EQ(ring.evictions(), 0u);
    ASSERT_TRUE(ring.mark_delivered(1));
    EXPECT_EQ(ring.size(), 3u);  // 1 went at once
    EXPECT_EQ(ring.release_owner(9), 3u);
    EXPECT_EQ(ring.size(), 2u);  // 2 went too, unwritten
    EXPECT_EQ(ring.evictions(), 2u);
    expect_gap(ring, 1);  // a resume from 1 would have carried 2
    EXPECT_EQ(after(ring, 2), (Ids{3, 4}));
}

// A frame a pump holds to write is passed over by eviction like a pinned
// one, so writing it can never leave the ring thinking it owed it; once
// written it goes as usual.
TEST(ReplayRing, OwnedFramesSurviveEvictionUntilWritten) {
    ReplayRing ring(2, kManyBytes, 0);
    StreamFrame owned = ring_only_frame(1);
    owned.owner = 5;
    ring.append(std::move(owned));
    ring.append(frame(2));
    ring.append(frame(3));  // 2 goes, not the owned 1
    ring.append(frame(4));  // 3 goes
    EXPECT_EQ(ring.size(), 2u);
    ASSERT_TRUE(ring.mark_delivered(1));
    ring.append(frame(5));  // now 1 goes
    EXPECT_EQ(after(ring, 3), (Ids{4, 5}));
    EXPECT_EQ(after_live(ring, 3), (Ids{4, 5}));
    expect_gap(ring, 2);  // frame 3 went to GET streams and is gone
}

TEST(ReplayRing, AllRingOnlyFramesAfterTheCursorAnswerEmptyNotAGap) {
    ReplayRing ring(10, kManyBytes, 0);
    ring.append(frame(1));
    ring.append(ring_only_frame(2));
    ring.append(ring_only_frame(3));
    std::vector<StreamFrame> out;
    EXPECT_TRUE(ring.frames_after(1, &out, false));
    EXPECT_TRUE(out.empty());
}

TEST(ReplayRing, AppendReportsWhenPinningDisplacedAnotherPin) {
    ReplayRing ring(10, kManyBytes, 2);
    bool displaced = true;
    ring.append(frame(1, 0, true), &displaced);
    EXPECT_FALSE(displaced);
    displaced = true;
    ring.append(frame(2, 0, true), &displaced);
    EXPECT_FALSE(displaced);
    EXPECT_EQ(ring.pinned(), 2u);

    displaced = false;
    ring.append(frame(3, 0, true), &displaced);
    EXPECT_TRUE(displaced);
    EXPECT_EQ(ring.pinned(), 2u);

    // An unpinned frame never displaces, and the flag is reset.
    displaced = true;
    ring.append(frame(4), &displaced);
    EXPECT_FALSE(displaced);
    EXPECT_EQ(ring.pinned(), 2u);

    // The oldest pin (frame 1) was the one that went.
    std::vector<StreamFrame> out;
    ASSERT_TRUE(ring.frames_after(0, &out));
    ASSERT_EQ(ids(out), (Ids{1, 2, 3, 4}));
    EXPECT_FALSE(out[0].pinned);
    EXPECT_TRUE(out[1].pinned);
    EXPECT_TRUE(out[2].pinned);
    EXPECT_FALSE(out[3].pinned);

    // Works without the out-parameter as well.
    ring.append(frame(5, 0, true));
    EXPECT_EQ(ring.pinned(), 2u);
}

TEST(ReplayRing, AppendDoesNotReportADisplacedPinWhenPinningIsOff) {
    ReplayRing ring(10, kManyBytes, 0);
    bool displaced = true;
    ring.append(frame(1, 0, true), &displaced);
    EXPECT_FALSE(displaced);
    ring.append(frame(2, 0, true), &displaced);
    EXPECT_FALSE(displaced);
    EXPECT_EQ(ring.pinned(), 0u);
}

TEST(ReplayRing, UnpinThroughUnpinsOnlyIdsUpToTheCursor) {
    ReplayRing ring(10, kManyBytes, 3);
    ring.append(frame(1, 0, true));
    ring.append(frame(2));
    ring.append(frame(3, 0, true));
    ring.append(frame(4));
    ring.append(frame(5, 0, true));
    EXPECT_EQ(ring.pinned(), 3u);

    EXPECT_EQ(ring.unpin_through(0), 0u);
    EXPECT_EQ(ring.pinned(), 3u);
    EXPECT_EQ(ring.unpin_through(3), 2u);  // frames 1 and 3
    EXPECT_EQ(ring.pinned(), 1u);
    EXPECT_EQ(ring.unpin_through(4), 0u);  // already unpinned
    EXPECT_EQ(ring.pinned(), 1u);

    std::vector<StreamFrame> out;
    ASSERT_TRUE(ring.frames_after(0, &out));
    ASSERT_EQ(ids(out), (Ids{1, 2, 3, 4, 5}));
    EXPECT_FALSE(out[0].pinned);
    EXPECT_FALSE(out[2].pinned);
    EXPECT_TRUE(out[4].pinned);

    EXPECT_EQ(ring.unpin_through(100), 1u);
    EXPECT_EQ(ring.pinned(), 0u);
    EXPECT_EQ(ring.unpin_through(100), 0u);
    // Nothing was removed: unpinning is not eviction.
    EXPECT_EQ(ring.size(), 5u);
    EXPECT_EQ(ring.evictions(), 0u);
}

TEST(ReplayRing, UnpinnedThroughFramesBecomeEvictable) {
    ReplayRing ring(2, kManyBytes, 2);
    ring.append(frame(1, 0, true));
    ring.append(frame(2, 0, true));
    EXPECT_EQ(ring.append(frame(3)), 1u);  // both pinned: frame 3 itself goes
    EXPECT_EQ(ring.size(), 2u);
    EXPECT_EQ(ring.unpin_through(1), 1u);
    EXPECT_EQ(ring.append(frame(4)), 1u);  // frame 1 can go now
    EXPECT_EQ(ring.size(), 2u);
    EXPECT_FALSE(ring.unpin(1));  // evicted
    EXPECT_TRUE(ring.unpin(2));   // still held
    EXPECT_EQ(after(ring, 3), (Ids{4}));
}

TEST(ReplayRing, UnpinOldestOnNoPinIsFalse) {
    ReplayRing empty(4, kManyBytes, 2);
    EXPECT_FALSE(empty.unpin_oldest());

    ReplayRing ring(4, kManyBytes, 2);
    ring.append(frame(1));
    ring.append(frame(2));
    EXPECT_FALSE(ring.unpin_oldest());
    EXPECT_EQ(ring.pinned(), 0u);
}

TEST(ReplayRing, UnpinOldestUnpinsTheOldestPinOnly) {
    ReplayRing ring(10, kManyBytes, 3);
    ring.append(frame(1));
    ring.append(frame(2, 0, true));
    ring.append(frame(3, 0, true));
    ring.append(frame(4, 0, true));
    EXPECT_TRUE(ring.unpin_oldest());
    EXPECT_EQ(ring.pinned(), 2u);
    std::vector<StreamFrame> out;
    ASSERT_TRUE(ring.frames_after(0, &out));
    ASSERT_EQ(out.size(), 4u);
    EXPECT_FALSE(out[1].pinned);  // frame 2 went first
    EXPECT_TRUE(out[2].pinned);
    EXPECT_TRUE(out[3].pinned);

    EXPECT_TRUE(ring.unpin_oldest());
    EXPECT_TRUE(ring.unpin_oldest());
    EXPECT_EQ(ring.pinned(), 0u);
    EXPECT_FALSE(ring.unpin_oldest());
}

TEST(ReplayRing, APinnedFrameSurvivesEvictionWhileItsUnpinnedNeighboursGo) {
    ReplayRing ring(3, kManyBytes, 2);
    ring.append(frame(1));
    ring.append(frame(2, 0, true));
    ring.append(frame(3));
    EXPECT_EQ(ring.append(frame(4)), 1u);  // frame 1 goes
    EXPECT_EQ(ring.append(frame(5)), 1u);  // frame 3 goes, pinned frame 2 stays
    EXPECT_EQ(ring.append(frame(6)), 1u);  // frame 4 goes
    EXPECT_EQ(ring.size(), 3u);
    EXPECT_EQ(ring.pinned(), 1u);
    EXPECT_EQ(ring.evictions(), 3u);

    EXPECT_FALSE(ring.unpin(1));
    EXPECT_FALSE(ring.unpin(3));
    EXPECT_FALSE(ring.unpin(4));
    EXPECT_EQ(after(ring, 4), (Ids{5, 6}));
    expect_gap(ring, 3);
    expect_gap(ring, 1);

    // Once unpinned, it is the oldest and goes next.
    EXPECT_TRUE(ring.unpin(2));
    EXPECT_EQ(ring.append(frame(7)), 1u);
    EXPECT_FALSE(ring.unpin(2));
    EXPECT_EQ(after(ring, 4), (Ids{5, 6, 7}));
}

TEST(ReplayRing, APinnedFrameSurvivesByteEviction) {
    ReplayRing ring(100, 10, 1);
    ring.append(frame(1, 4));
    ring.append(frame(2, 4, true));
    EXPECT_EQ(ring.append(frame(3, 4)), 1u);  // 12 > 10: frame 1 goes
    EXPECT_EQ(ring.append(frame(4, 4)), 1u);  // frame 3 goes, not pinned frame 2
    EXPECT_EQ(ring.bytes(), 8u);
    EXPECT_EQ(ring.size(), 2u);
    std::vector<StreamFrame> out;
    EXPECT_FALSE(ring.frames_after(1, &out));  // frame 3 is gone
    EXPECT_EQ(after(ring, 3), (Ids{4}));
    EXPECT_TRUE(ring.unpin(2));
}

}  // namespace
}  // namespace yuzu::mcp
