// CredentialWatch: a valid credential keeps the stream going, an invalid one
// ends it at once with credential_revoked, and an unverifiable one is given
// a grace window (then auth_unavailable) that any valid answer resets.
#include "yuzu/mcp/transport/credential_watch.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "yuzu/common/clock.hpp"
#include "yuzu/mcp/session/close_reason.hpp"

namespace yuzu::mcp {
namespace {

constexpr int64_t kGraceMs = 1000;

class CredentialWatchTest : public ::testing::Test {
  protected:
    ManualClock clock_;
    CredentialWatch watch_{clock_, kGraceMs};
};

TEST_F(CredentialWatchTest, ValidKeepsGoing) {
    for (int tick = 0; tick < 5; ++tick) {
        EXPECT_EQ(watch_.observe(CredentialCheck::kValid), std::nullopt);
        clock_.advance_ms(kGraceMs * 10);
    }
}

TEST_F(CredentialWatchTest, InvalidEndsTheStreamAtOnce) {
    EXPECT_EQ(watch_.observe(CredentialCheck::kInvalid), CloseReason::kCredentialRevoked);
}

TEST_F(CredentialWatchTest, InvalidDuringTheGraceWindowIsStillRevoked) {
    EXPECT_EQ(watch_.observe(CredentialCheck::kUnverifiable), std::nullopt);
    clock_.advance_ms(10);
    EXPECT_EQ(watch_.observe(CredentialCheck::kInvalid), CloseReason::kCredentialRevoked);
}

TEST_F(CredentialWatchTest, UnverifiableIsToleratedWithinTheGraceWindowOnly) {
    EXPECT_EQ(watch_.observe(CredentialCheck::kUnverifiable), std::nullopt);
    clock_.advance_ms(kGraceMs / 2);
    EXPECT_EQ(watch_.observe(CredentialCheck::kUnverifiable), std::nullopt);
    clock_.advance_ms(kGraceMs / 2 - 1);  // 999 ms since the first
    EXPECT_EQ(watch_.observe(CredentialCheck::kUnverifiable), std::nullopt);
    clock_.advance_ms(1);  // the window is over
    EXPECT_EQ(watch_.observe(CredentialCheck::kUnverifiable), CloseReason::kAuthUnavailable);
    clock_.advance_ms(kGraceMs);
    EXPECT_EQ(watch_.observe(CredentialCheck::kUnverifiable), CloseReason::kAuthUnavailable);
}

TEST_F(CredentialWatchTest, TheWindowStartsAtTheFirstUnverifiableAnswer) {
    clock_.advance_ms(kGraceMs * 5);  // time before any failure does not count
    EXPECT_EQ(watch_.observe(CredentialCheck::kValid), std::nullopt);
    clock_.advance_ms(kGraceMs * 5);
    EXPECT_EQ(watch_.observe(CredentialCheck::kUnverifiable), std::nullopt);
    clock_.advance_ms(kGraceMs - 1);
    EXPECT_EQ(watch_.observe(CredentialCheck::kUnverifiable), std::nullopt);
}

TEST_F(CredentialWatchTest, AValidAnswerResetsTheWindow) {
    EXPECT_EQ(watch_.observe(CredentialCheck::kUnverifiable), std::nullopt);
    clock_.advance_ms(kGraceMs - 200);
    EXPECT_EQ(watch_.observe(CredentialCheck::kValid), std::nullopt);
    clock_.advance_ms(kGraceMs - 200);  // 1600 ms after the first failure
    EXPECT_EQ(watch_.observe(CredentialCheck::kUnverifiable), std::nullopt);
    clock_.advance_ms(kGraceMs - 1);
    EXPECT_EQ(watch_.observe(CredentialCheck::kUnverifiable), std::nullopt);
    clock_.advance_ms(1);
    EXPECT_EQ(watch_.observe(CredentialCheck::kUnverifiable), CloseReason::kAuthUnavailable);
}

TEST(CredentialWatch, ZeroGraceEndsOnTheFirstUnverifiableAnswer) {
    const ManualClock clock;
    CredentialWatch watch(clock, 0);
    EXPECT_EQ(watch.observe(CredentialCheck::kValid), std::nullopt);
    EXPECT_EQ(watch.observe(CredentialCheck::kUnverifiable), CloseReason::kAuthUnavailable);
}

}  // namespace
}  // namespace yuzu::mcp
