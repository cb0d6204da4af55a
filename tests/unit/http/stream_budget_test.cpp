// StreamBudget: the global and per-principal caps, apply_per_principal,
// leases giving their slot back on destruction, release() and
// move-assignment, and moved-from leases never giving one back twice.
#include "yuzu/http/stream_budget.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace yuzu::http {
namespace {

using Lease = StreamBudget::Lease;
using Refusal = StreamBudget::Refusal;

// Acquires a slot the test expects to get.
Lease take(StreamBudget& budget, const std::string& principal, bool per_principal = true) {
    auto admission = budget.acquire(principal, per_principal);
    EXPECT_TRUE(admission.lease.has_value()) << "refused a slot for " << principal;
    if (!admission.lease) return Lease();
    EXPECT_TRUE(admission.lease->held());
    return std::move(*admission.lease);
}

TEST(StreamBudget, StartsEmptyAndReportsItsCaps) {
    const StreamBudget budget(5, 2);
    EXPECT_EQ(budget.cap(), 5u);
    EXPECT_EQ(budget.per_principal_cap(), 2u);
    EXPECT_EQ(budget.active(), 0u);
    EXPECT_EQ(budget.active_for("alice"), 0u);
}

TEST(StreamBudget, PerPrincipalCapRefusesOnlyThatPrincipal) {
    StreamBudget budget(10, 2);
    Lease a1 = take(budget, "alice");
    Lease a2 = take(budget, "alice");
    EXPECT_EQ(budget.active_for("alice"), 2u);

    auto third = budget.acquire("alice");
    EXPECT_FALSE(third.lease.has_value());
    EXPECT_EQ(third.refusal, Refusal::kPerPrincipalCap);
    EXPECT_EQ(budget.active(), 2u);
    EXPECT_EQ(budget.active_for("alice"), 2u);

    Lease b1 = take(budget, "bob");
    EXPECT_EQ(budget.active(), 3u);
    EXPECT_EQ(budget.active_for("bob"), 1u);
    EXPECT_EQ(budget.active_for("carol"), 0u);
}

TEST(StreamBudget, GlobalCapRefusesEveryone) {
    StreamBudget budget(3, 2);
    Lease a1 = take(budget, "alice");
    Lease a2 = take(budget, "alice");
    Lease b1 = take(budget, "bob");
    EXPECT_EQ(budget.active(), 3u);

    auto carol = budget.acquire("carol");
    EXPECT_FALSE(carol.lease.has_value());
    EXPECT_EQ(carol.refusal, Refusal::kGlobalCap);
    // Bob is under his per-principal cap, but the listener is full.
    auto bob = budget.acquire("bob");
    EXPECT_FALSE(bob.lease.has_value());
    EXPECT_EQ(bob.refusal, Refusal::kGlobalCap);
    auto unscoped = budget.acquire("dave", /*apply_per_principal=*/false);
    EXPECT_FALSE(unscoped.lease.has_value());
    EXPECT_EQ(unscoped.refusal, Refusal::kGlobalCap);
    EXPECT_EQ(budget.active(), 3u);
    EXPECT_EQ(budget.active_for("carol"), 0u);
    EXPECT_EQ(budget.active_for("dave"), 0u);
}

TEST(StreamBudget, ZeroPerPrincipalCapMeansNoPerPrincipalLimit) {
    StreamBudget budget(4, 0);
    std::vector<Lease> leases;
    for (int i = 0; i < 4; ++i) leases.push_back(take(budget, "alice"));
    EXPECT_EQ(budget.active_for("alice"), 4u);
    auto fifth = budget.acquire("alice");
    EXPECT_FALSE(fifth.lease.has_value());
    EXPECT_EQ(fifth.refusal, Refusal::kGlobalCap);
}

TEST(StreamBudget, ZeroGlobalCapRefusesEverything) {
    StreamBudget budget(0, 0);
    auto admission = budget.acquire("alice", false);
    EXPECT_FALSE(admission.lease.has_value());
    EXPECT_EQ(admission.refusal, Refusal::kGlobalCap);
    EXPECT_EQ(budget.active(), 0u);
}

TEST(StreamBudget, ApplyPerPrincipalFalseIgnoresOnlyThePerPrincipalCap) {
    StreamBudget budget(3, 1);
    Lease a1 = take(budget, "alice");
    auto refused = budget.acquire("alice");
    EXPECT_FALSE(refused.lease.has_value());
    EXPECT_EQ(refused.refusal, Refusal::kPerPrincipalCap);

    Lease a2 = take(budget, "alice", /*per_principal=*/false);
    Lease a3 = take(budget, "alice", /*per_principal=*/false);
    EXPECT_EQ(budget.active_for("alice"), 3u);
    EXPECT_EQ(budget.active(), 3u);

    auto over = budget.acquire("alice", false);
    EXPECT_FALSE(over.lease.has_value());
    EXPECT_EQ(over.refusal, Refusal::kGlobalCap);
}

TEST(StreamBudget, UnscopedLeasesStillCountAgainstThePrincipal) {
    StreamBudget budget(5, 1);
    Lease unscoped = take(budget, "alice", false);
    auto scoped = budget.acquire("alice");
    EXPECT_FALSE(scoped.lease.has_value());
    EXPECT_EQ(scoped.refusal, Refusal::kPerPrincipalCap);
}

TEST(StreamBudget, LeaseReleasesOnDestruction) {
    StreamBudget budget(2, 1);
    {
        Lease a = take(budget, "alice");
        Lease b = take(budget, "bob");
        EXPECT_EQ(budget.active(), 2u);
    }
    EXPECT_EQ(budget.active(), 0u);
    EXPECT_EQ(budget.active_for("alice"), 0u);
    EXPECT_EQ(budget.active_for("bob"), 0u);
    // The slots are usable again, per principal too.
    Lease again = take(budget, "alice");
    EXPECT_EQ(budget.active_for("alice"), 1u);
}

TEST(StreamBudget, AdmissionGoingOutOfScopeReleasesItsLease) {
    StreamBudget budget(1, 1);
    {
        auto admission = budget.acquire("alice");
        ASSERT_TRUE(admission.lease.has_value());
        EXPECT_EQ(budget.active(), 1u);
    }
    EXPECT_EQ(budget.active(), 0u);
}

TEST(StreamBudget, ExplicitReleaseIsIdempotentAndDestructionDoesNotReleaseAgain) {
    StreamBudget budget(3, 3);
    Lease keep = take(budget, "alice");
    {
        Lease a = take(budget, "alice");
        EXPECT_EQ(budget.active_for("alice"), 2u);
        a.release();
        EXPECT_FALSE(a.held());
        EXPECT_EQ(budget.active_for("alice"), 1u);
        a.release();
        EXPECT_EQ(budget.active_for("alice"), 1u);
    }
    EXPECT_EQ(budget.active(), 1u);
    EXPECT_EQ(budget.active_for("alice"), 1u);
    EXPECT_TRUE(keep.held());
}

TEST(StreamBudget, MoveConstructionTransfersTheSlotOnce) {
    StreamBudget budget(3, 3);
    Lease keep = take(budget, "alice");
    {
        Lease first = take(budget, "alice");
        Lease second(std::move(first));
        EXPECT_FALSE(first.held());  // NOLINT(bugprone-use-after-move)
        EXPECT_TRUE(second.held());
        EXPECT_EQ(budget.active_for("alice"), 2u);
    }
    // Both the moved-from and the moved-to lease are gone; one slot came back.
    EXPECT_EQ(budget.active_for("alice"), 1u);
    EXPECT_EQ(budget.active(), 1u);
}

TEST(StreamBudget, MoveAssignmentReleasesTheTargetsSlotAndTakesTheSource) {
    StreamBudget budget(4, 4);
    Lease a = take(budget, "alice");
    Lease b = take(budget, "bob");
    EXPECT_EQ(budget.active(), 2u);

    a = std::move(b);
    EXPECT_TRUE(a.held());
    EXPECT_FALSE(b.held());  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(budget.active(), 1u);
    EXPECT_EQ(budget.active_for("alice"), 0u);
    EXPECT_EQ(budget.active_for("bob"), 1u);

    // The moved-from lease gives nothing back; the target gives back bob's.
    b.release();
    EXPECT_EQ(budget.active_for("bob"), 1u);
    a.release();
    EXPECT_EQ(budget.active_for("bob"), 0u);
    EXPECT_EQ(budget.active(), 0u);
}

TEST(StreamBudget, MoveAssigningIntoAnEmptyLeaseReleasesNothing) {
    StreamBudget budget(2, 2);
    Lease empty;
    EXPECT_FALSE(empty.held());
    empty.release();  // a no-op
    Lease a = take(budget, "alice");
    empty = std::move(a);
    EXPECT_TRUE(empty.held());
    EXPECT_EQ(budget.active_for("alice"), 1u);
    EXPECT_EQ(budget.active(), 1u);
}

TEST(StreamBudget, MoveAssigningAnEmptyLeaseReleasesTheTarget) {
    StreamBudget budget(2, 2);
    Lease a = take(budget, "alice");
    a = Lease();
    EXPECT_FALSE(a.held());
    EXPECT_EQ(budget.active(), 0u);
    EXPECT_EQ(budget.active_for("alice"), 0u);
}

TEST(StreamBudget, LeasesMayOutliveTheirAdmissionInAContainer) {
    StreamBudget budget(3, 0);
    std::vector<Lease> leases;
    leases.push_back(take(budget, "alice"));
    leases.push_back(take(budget, "bob"));
    leases.push_back(take(budget, "alice"));  // reallocation moves leases
    EXPECT_EQ(budget.active(), 3u);
    EXPECT_EQ(budget.active_for("alice"), 2u);
    leases.erase(leases.begin());
    EXPECT_EQ(budget.active(), 2u);
    EXPECT_EQ(budget.active_for("alice"), 1u);
    EXPECT_EQ(budget.active_for("bob"), 1u);
    leases.clear();
    EXPECT_EQ(budget.active(), 0u);
}

}  // namespace
}  // namespace yuzu::http
