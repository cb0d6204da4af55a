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

}  // namespace
}  // namespace yuzu::mcp
