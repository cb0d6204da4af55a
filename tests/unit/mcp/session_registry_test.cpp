// SessionRegistry: session ids, principal binding, the per-principal and
// global caps (refuse, never evict), remove, the sliding idle TTL (an
// attached stream is never idle), shutdown, and the session gauges.
#include "yuzu/mcp/session/session_registry.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>

#include "yuzu/common/clock.hpp"
#include "yuzu/http/stream_budget.hpp"
#include "yuzu/mcp/session/close_reason.hpp"
#include "yuzu/mcp/session/stream_metrics.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::mcp {
namespace {

using Refusal = SessionRegistry::Refusal;
using Opened = std::variant<std::shared_ptr<Session>, Refusal>;

constexpr int64_t kTtlMs = 1000;
constexpr const char* kVersion = "2025-06-18";

SessionRegistryOptions small_options() {
    SessionRegistryOptions options;
    options.max_per_principal = 2;
    options.max_total = 3;
    options.idle_ttl_ms = kTtlMs;
    return options;
}

std::shared_ptr<Session> opened(const Opened& result) {
    const auto* session = std::get_if<std::shared_ptr<Session>>(&result);
    EXPECT_NE(session, nullptr) << "open() was refused";
    return session ? *session : nullptr;
}

std::optional<Refusal> refusal(const Opened& result) {
    const auto* why = std::get_if<Refusal>(&result);
    return why ? std::optional<Refusal>(*why) : std::nullopt;
}

// The value of the sample line "<series> <value>", if there is one.
std::optional<double> sample(const std::string& text, const std::string& series) {
    const std::string key = "\n" + series + " ";
    const size_t at = text.find(key);
    if (at == std::string::npos) return std::nullopt;
    return std::stod(text.substr(at + key.size()));
}

class SessionRegistryTest : public ::testing::Test {
  protected:
    std::shared_ptr<Session> open(const std::string& principal) {
        return opened(registry_.open(principal, kVersion));
    }

    // Both outlive the registry's sessions (and their streams' leases).
    ManualClock clock_;
    http::StreamBudget budget_{4, 4};
    SessionRegistry registry_{small_options(), clock_, nullptr};
};

TEST(SessionRegistryIds, AreThirtyTwoLowercaseHexCharactersAndDistinct) {
    ManualClock clock;
    SessionRegistryOptions options;
    options.max_per_principal = 64;
    options.max_total = 64;
    SessionRegistry registry(options, clock, nullptr);
    std::set<std::string> seen;
    for (int i = 0; i < 64; ++i) {
        auto session = opened(registry.open("p" + std::to_string(i % 4), kVersion));
        ASSERT_NE(session, nullptr);
        const std::string& id = session->id();
        ASSERT_EQ(id.size(), 32u) << id;
        for (const char c : id) {
            EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << id;
        }
        seen.insert(id);
    }
    EXPECT_EQ(seen.size(), 64u);
}

TEST_F(SessionRegistryTest, OpenBindsThePrincipalAndVersion) {
    auto s = open("alice");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->principal(), "alice");
    EXPECT_EQ(s->protocol_version(), kVersion);
    EXPECT_EQ(s->closed(), std::nullopt);
    EXPECT_EQ(registry_.active(), 1u);
    EXPECT_EQ(registry_.active_for("alice"), 1u);
}

TEST_F(SessionRegistryTest, FindAnswersOnlyTheOpeningPrincipal) {
    auto s = open("alice");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(registry_.find(s->id(), "alice"), s);
    EXPECT_EQ(registry_.find(s->id(), "bob"), nullptr);
    EXPECT_EQ(registry_.find("0123456789abcdef0123456789abcdef", "alice"), nullptr);
    EXPECT_EQ(registry_.find("", "alice"), nullptr);
    // Another principal's attempt does not end the session.
    EXPECT_EQ(registry_.find(s->id(), "alice"), s);
    EXPECT_EQ(s->closed(), std::nullopt);
}

TEST_F(SessionRegistryTest, PerPrincipalCapRefusesWithoutEvicting) {
    auto a1 = open("alice");
    auto a2 = open("alice");
    ASSERT_NE(a1, nullptr);
    ASSERT_NE(a2, nullptr);
    EXPECT_EQ(refusal(registry_.open("alice", kVersion)), Refusal::kPerPrincipalCap);
    EXPECT_EQ(registry_.find(a1->id(), "alice"), a1);
    EXPECT_EQ(registry_.find(a2->id(), "alice"), a2);
    EXPECT_EQ(a1->closed(), std::nullopt);
    EXPECT_EQ(registry_.active_for("alice"), 2u);
    EXPECT_EQ(registry_.active(), 2u);
    EXPECT_NE(open("bob"), nullptr);  // other principals are unaffected
}

TEST_F(SessionRegistryTest, GlobalCapRefusesWithoutEvicting) {
    auto a = open("alice");
    auto b = open("bob");
    auto c = open("carol");
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(refusal(registry_.open("dave", kVersion)), Refusal::kGlobalCap);
    EXPECT_EQ(refusal(registry_.open("alice", kVersion)), Refusal::kGlobalCap);
    EXPECT_EQ(registry_.active(), 3u);
    EXPECT_EQ(registry_.active_for("dave"), 0u);
    EXPECT_EQ(registry_.find(a->id(), "alice"), a);
    EXPECT_EQ(registry_.find(b->id(), "bob"), b);
}

TEST_F(SessionRegistryTest, RemoveEndsTheSessionAndFreesItsSlot) {
    auto a1 = open("alice");
    auto a2 = open("alice");
    ASSERT_NE(a1, nullptr);
    ASSERT_NE(a2, nullptr);
    EXPECT_FALSE(registry_.remove(a1->id(), "bob"));  // not bob's to end
    EXPECT_EQ(a1->closed(), std::nullopt);

    EXPECT_TRUE(registry_.remove(a1->id(), "alice"));
    EXPECT_EQ(a1->closed(), CloseReason::kSessionTerminated);
    EXPECT_EQ(registry_.find(a1->id(), "alice"), nullptr);
    EXPECT_FALSE(registry_.remove(a1->id(), "alice"));
    EXPECT_EQ(registry_.active(), 1u);
    EXPECT_EQ(registry_.active_for("alice"), 1u);
    EXPECT_NE(open("alice"), nullptr);  // the freed slot
    EXPECT_EQ(registry_.find(a2->id(), "alice"), a2);
}

TEST_F(SessionRegistryTest, IdleSessionsExpireAndAreSwept) {
    auto s = open("alice");
    ASSERT_NE(s, nullptr);
    clock_.advance_ms(kTtlMs - 1);
    EXPECT_EQ(registry_.sweep(), 0u);
    EXPECT_EQ(s->closed(), std::nullopt);
    clock_.advance_ms(2);
    EXPECT_EQ(registry_.sweep(), 1u);
    EXPECT_EQ(s->closed(), CloseReason::kSessionTerminated);
    EXPECT_EQ(registry_.active(), 0u);
    EXPECT_EQ(registry_.active_for("alice"), 0u);
    EXPECT_EQ(registry_.find(s->id(), "alice"), nullptr);
    EXPECT_EQ(registry_.sweep(), 0u);
}

TEST_F(SessionRegistryTest, FindDoesNotAnswerAnExpiredSession) {
    auto s = open("alice");
    ASSERT_NE(s, nullptr);
    clock_.advance_ms(kTtlMs + 1);
    EXPECT_EQ(registry_.find(s->id(), "alice"), nullptr);
    EXPECT_EQ(s->closed(), CloseReason::kSessionTerminated);
    EXPECT_EQ(registry_.active(), 0u);
}

TEST_F(SessionRegistryTest, FindSlidesTheIdleTtl) {
    auto s = open("alice");
    ASSERT_NE(s, nullptr);
    clock_.advance_ms(kTtlMs / 2);
    EXPECT_EQ(registry_.find(s->id(), "alice"), s);
    clock_.advance_ms(kTtlMs / 2 + 100);  // 1100 ms since open, 600 since find
    EXPECT_EQ(registry_.sweep(), 0u);
    EXPECT_EQ(registry_.find(s->id(), "alice"), s);
    clock_.advance_ms(kTtlMs + 1);
    EXPECT_EQ(registry_.find(s->id(), "alice"), nullptr);
}

TEST_F(SessionRegistryTest, AnotherPrincipalsFindDoesNotSlideTheTtl) {
    auto s = open("alice");
    ASSERT_NE(s, nullptr);
    clock_.advance_ms(kTtlMs / 2);
    EXPECT_EQ(registry_.find(s->id(), "bob"), nullptr);
    clock_.advance_ms(kTtlMs / 2 + 1);
    EXPECT_EQ(registry_.sweep(), 1u);
}

TEST_F(SessionRegistryTest, AnAttachedSessionIsNeverIdle) {
    auto s = open("alice");
    ASSERT_NE(s, nullptr);
    const auto attach = s->attach(std::nullopt, budget_);
    ASSERT_EQ(attach.outcome, Session::Attach::Outcome::kAttached);
    EXPECT_EQ(registry_.streaming(), 1u);
    clock_.advance_ms(kTtlMs * 5);
    EXPECT_EQ(registry_.sweep(), 0u);
    EXPECT_EQ(s->closed(), std::nullopt);
    EXPECT_EQ(registry_.find(s->id(), "alice"), s);
    EXPECT_EQ(registry_.active(), 1u);
    s->detach(attach.generation);
    EXPECT_EQ(registry_.streaming(), 0u);
    EXPECT_EQ(budget_.active(), 0u);
}

TEST_F(SessionRegistryTest, AClosedSessionIsForgottenButNotCountedAsIdle) {
    auto s = open("alice");
    ASSERT_NE(s, nullptr);
    s->close(CloseReason::kReplayGap);
    EXPECT_EQ(registry_.find(s->id(), "alice"), nullptr);
    EXPECT_EQ(registry_.active(), 0u);
    auto t = open("alice");
    ASSERT_NE(t, nullptr);
    t->close(CloseReason::kReplayGap);
    EXPECT_EQ(registry_.sweep(), 0u);
    EXPECT_EQ(registry_.active(), 0u);
    EXPECT_EQ(t->closed(), CloseReason::kReplayGap);  // the first reason stays
}

TEST_F(SessionRegistryTest, ShutdownClosesEverySessionAndRefusesNewOnes) {
    auto a = open("alice");
    auto b = open("bob");
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    const auto attach = a->attach(std::nullopt, budget_);
    ASSERT_EQ(attach.outcome, Session::Attach::Outcome::kAttached);

    registry_.shutdown();
    EXPECT_EQ(a->closed(), CloseReason::kSessionTerminated);
    EXPECT_EQ(b->closed(), CloseReason::kSessionTerminated);
    EXPECT_EQ(a->wait(attach.generation, attach.cursor, 0).close, CloseReason::kSessionTerminated);
    EXPECT_EQ(registry_.active(), 0u);
    EXPECT_EQ(registry_.find(b->id(), "bob"), nullptr);
    EXPECT_EQ(refusal(registry_.open("carol", kVersion)), Refusal::kShuttingDown);
    a->detach(attach.generation);
    EXPECT_EQ(budget_.active(), 0u);
}

TEST(SessionRegistryMetrics, SessionGaugesFollowOpenAndRemove) {
    metrics::Registry registry;
    const StreamMetrics metrics(registry);
    ManualClock clock;
    SessionRegistry sessions(small_options(), clock, &metrics);
    const std::string active = "yuzu_mcp_sessions_active";
    const std::string opened_total = "yuzu_mcp_sessions_opened_total";
    EXPECT_EQ(sample(registry.Serialize(), active), 0.0);
    EXPECT_EQ(sample(registry.Serialize(), opened_total), 0.0);

    auto a = opened(sessions.open("alice", kVersion));
    auto b = opened(sessions.open("bob", kVersion));
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(sample(registry.Serialize(), active), 2.0);
    EXPECT_EQ(sample(registry.Serialize(), opened_total), 2.0);

    EXPECT_TRUE(sessions.remove(a->id(), "alice"));
    EXPECT_EQ(sample(registry.Serialize(), active), 1.0);
    EXPECT_EQ(sample(registry.Serialize(), opened_total), 2.0);

    clock.advance_ms(kTtlMs + 1);
    EXPECT_EQ(sessions.sweep(), 1u);
    EXPECT_EQ(sample(registry.Serialize(), active), 0.0);

    ASSERT_NE(opened(sessions.open("alice", kVersion)), nullptr);
    sessions.shutdown();
    EXPECT_EQ(sample(registry.Serialize(), active), 0.0);
    EXPECT_EQ(sample(registry.Serialize(), opened_total), 3.0);
}

}  // namespace
}  // namespace yuzu::mcp
