#include "yuzu/auth/login_throttle.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "yuzu/common/clock.hpp"

namespace yuzu::auth {
namespace {

LoginThrottleOptions small_options() {
    LoginThrottleOptions o;
    o.burst = 3;
    o.refill_interval_ms = 3'000;
    o.max_sources = 4;
    o.max_concurrent_hashes = 8;
    return o;
}

// Admits and releases at once, as a login whose check is over.
LoginRefusal try_once(LoginThrottle& throttle, const std::string& source,
                      int* retry_after_s = nullptr) {
    LoginAdmission a = throttle.admit(source);
    if (retry_after_s != nullptr) *retry_after_s = a.retry_after_s();
    return a.refusal();
}

TEST(LoginThrottle, ASourceGetsItsBurstThenWaitsWithRetryAfter) {
    ManualClock clock;
    LoginThrottle throttle(clock, small_options());
    for (int i = 0; i < 3; ++i) EXPECT_EQ(try_once(throttle, "10.0.0.1"), LoginRefusal::kNone) << i;
    int retry = 0;
    EXPECT_EQ(try_once(throttle, "10.0.0.1", &retry), LoginRefusal::kRateLimited);
    EXPECT_EQ(retry, 3);
    // Another address has its own bucket.
    EXPECT_EQ(try_once(throttle, "10.0.0.2"), LoginRefusal::kNone);
    EXPECT_EQ(throttle.count(LoginRefusal::kNone), 4u);
    EXPECT_EQ(throttle.count(LoginRefusal::kRateLimited), 1u);
}

TEST(LoginThrottle, OneAttemptComesBackPerInterval) {
    ManualClock clock;
    LoginThrottle throttle(clock, small_options());
    for (int i = 0; i < 3; ++i) ASSERT_EQ(try_once(throttle, "a"), LoginRefusal::kNone);
    int retry = 0;
    clock.advance_ms(1'100);
    EXPECT_EQ(try_once(throttle, "a", &retry), LoginRefusal::kRateLimited);
    EXPECT_EQ(retry, 2);  // 1.9 s left, rounded up
    clock.advance_ms(1'899);
    EXPECT_EQ(try_once(throttle, "a", &retry), LoginRefusal::kRateLimited);
    EXPECT_EQ(retry, 1);
    clock.advance_ms(1);  // 3 s since the bucket emptied: one attempt back
    EXPECT_EQ(try_once(throttle, "a"), LoginRefusal::kNone);
    EXPECT_EQ(try_once(throttle, "a"), LoginRefusal::kRateLimited);
    // A long pause refills to the burst and no further.
    clock.advance_ms(3'600'000);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(try_once(throttle, "a"), LoginRefusal::kNone) << i;
    EXPECT_EQ(try_once(throttle, "a"), LoginRefusal::kRateLimited);
}

TEST(LoginThrottle, AWallClockSetBackDoesNotStrandASource) {
    ManualClock clock;
    LoginThrottle throttle(clock, small_options());
    for (int i = 0; i < 3; ++i) ASSERT_EQ(try_once(throttle, "a"), LoginRefusal::kNone);
    clock.advance_ms(-86'400'000);
    int retry = 0;
    EXPECT_EQ(try_once(throttle, "a", &retry), LoginRefusal::kRateLimited);
    EXPECT_LE(retry, 3);
    clock.advance_ms(3'000);
    EXPECT_EQ(try_once(throttle, "a"), LoginRefusal::kNone);
}

TEST(LoginThrottle, OnlyTheFirstRefusalOfARunIsWorthAnAuditRow) {
    ManualClock clock;
    LoginThrottle throttle(clock, small_options());
    for (int i = 0; i < 3; ++i) ASSERT_EQ(try_once(throttle, "a"), LoginRefusal::kNone);
    EXPECT_TRUE(throttle.admit("a").worth_auditing());
    EXPECT_FALSE(throttle.admit("a").worth_auditing());
    EXPECT_FALSE(throttle.admit("a").worth_auditing());
    clock.advance_ms(3'000);
    ASSERT_TRUE(throttle.admit("a").admitted());
    EXPECT_TRUE(throttle.admit("a").worth_auditing());  // a new run
}

TEST(LoginThrottle, RemembersABoundedNumberOfSourcesForgettingTheLeastRecent) {
    ManualClock clock;
    LoginThrottle throttle(clock, small_options());  // 4 sources
    for (int i = 0; i < 3; ++i) ASSERT_EQ(try_once(throttle, "drained"), LoginRefusal::kNone);
    ASSERT_EQ(try_once(throttle, "drained"), LoginRefusal::kRateLimited);
    for (int i = 0; i < 100; ++i) {
        (void)try_once(throttle, "other-" + std::to_string(i));
        // Seen again each round, "drained" stays among the most recent and
        // stays drained.
        if (i % 2 == 0) {
            EXPECT_EQ(try_once(throttle, "drained"), LoginRefusal::kRateLimited) << i;
        }
        EXPECT_LE(throttle.tracked_sources(), 4u);
    }
    EXPECT_EQ(throttle.tracked_sources(), 4u);
    // Once four other sources have come since, it is forgotten: a fresh burst.
    for (int i = 0; i < 4; ++i) (void)try_once(throttle, "late-" + std::to_string(i));
    EXPECT_EQ(try_once(throttle, "drained"), LoginRefusal::kNone);
}

TEST(LoginThrottle, AtMostMaxConcurrentHashesAndABusyRefusalStillSpendsAToken) {
    ManualClock clock;
    LoginThrottleOptions o = small_options();
    o.max_concurrent_hashes = 2;
    LoginThrottle throttle(clock, o);
    EXPECT_EQ(throttle.max_concurrent_hashes(), 2);
    std::optional<LoginAdmission> first(throttle.admit("a"));
    std::optional<LoginAdmission> second(throttle.admit("b"));
    ASSERT_TRUE(first->admitted());
    ASSERT_TRUE(second->admitted());
    EXPECT_EQ(throttle.hashes_in_flight(), 2);

    LoginAdmission busy = throttle.admit("c");
    EXPECT_EQ(busy.refusal(), LoginRefusal::kBusy);
    EXPECT_EQ(busy.retry_after_s(), kLoginBusyRetryAfterS);
    EXPECT_TRUE(busy.worth_auditing());
    EXPECT_FALSE(throttle.admit("c").worth_auditing());  // within the same second
    EXPECT_EQ(throttle.hashes_in_flight(), 2);           // a refusal holds no slot
    EXPECT_EQ(throttle.count(LoginRefusal::kBusy), 2u);
    clock.advance_ms(1'000);
    EXPECT_TRUE(throttle.admit("d").worth_auditing());  // a second later, audited again

    // "c" spent two of its three attempts on busy refusals: a source that
    // keeps knocking while every slot is taken runs dry, and is then refused
    // before the slots, however many there are free.
    EXPECT_EQ(throttle.admit("c").refusal(), LoginRefusal::kBusy);
    EXPECT_EQ(throttle.admit("c").refusal(), LoginRefusal::kRateLimited);
    first.reset();
    second.reset();
    EXPECT_EQ(throttle.hashes_in_flight(), 0);
    EXPECT_EQ(throttle.admit("c").refusal(), LoginRefusal::kRateLimited);
    // Other sources get the free slots.
    std::optional<LoginAdmission> again(throttle.admit("a"));
    EXPECT_TRUE(again->admitted());
    EXPECT_EQ(throttle.hashes_in_flight(), 1);
    // A rate-limited refusal takes no slot.
    ASSERT_EQ(try_once(throttle, "a"), LoginRefusal::kNone);  // "a"'s third
    ASSERT_EQ(try_once(throttle, "a"), LoginRefusal::kRateLimited);
    EXPECT_EQ(throttle.hashes_in_flight(), 1);
}

TEST(LoginThrottle, AMovedAdmissionReleasesItsSlotOnce) {
    ManualClock clock;
    LoginThrottleOptions o = small_options();
    o.max_concurrent_hashes = 1;
    LoginThrottle throttle(clock, o);
    {
        std::vector<LoginAdmission> held;
        held.push_back(throttle.admit("a"));
        LoginAdmission moved(std::move(held.back()));
        held.pop_back();  // the moved-from one holds nothing
        EXPECT_EQ(throttle.hashes_in_flight(), 1);
        EXPECT_EQ(throttle.admit("b").refusal(), LoginRefusal::kBusy);
    }
    EXPECT_EQ(throttle.hashes_in_flight(), 0);
    EXPECT_TRUE(throttle.admit("b").admitted());
}

TEST(LoginThrottle, DefaultsToHalfTheCoresAndAtLeastOne) {
    ManualClock clock;
    LoginThrottle throttle(clock);
    EXPECT_GE(throttle.max_concurrent_hashes(), 1);
    EXPECT_EQ(login_refusal_name(LoginRefusal::kNone), "none");
    EXPECT_EQ(login_refusal_name(LoginRefusal::kRateLimited), "rate_limited");
    EXPECT_EQ(login_refusal_name(LoginRefusal::kBusy), "busy");
}

}  // namespace
}  // namespace yuzu::auth
