#include "yuzu/approval/approval_manager.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"
#include "yuzu/common/clock.hpp"

namespace yuzu::approval {
namespace {

using yuzu::testing::TempDir;

MintRequest mcp_request(std::string tool, std::string args, std::string who) {
    MintRequest r;
    r.definition_id = "mcp." + std::move(tool);
    r.scope_expression = std::move(args);
    r.submitted_by = std::move(who);
    r.surface = Surface::kMcp;
    return r;
}

RedeemRequest redeem(const Approval& a, std::string principal) {
    return RedeemRequest{a.id, a.definition_id, a.scope_expression, std::move(principal)};
}

class ApprovalManagerTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto m = ApprovalManager::open(":memory:", clock_);
        ASSERT_TRUE(m.ok()) << m.status().to_string();
        mgr_ = std::move(m).value();
    }

    Approval mint(const MintRequest& r) {
        auto minted = mgr_->mint(r);
        EXPECT_TRUE(minted.ok()) << minted.status().to_string();
        return minted.ok() ? minted->approval : Approval{};
    }

    Approval mint_approved(const MintRequest& r, const std::string& reviewer = "bob") {
        Approval a = mint(r);
        auto approved = mgr_->approve(a.id, reviewer, "ok");
        EXPECT_TRUE(approved.ok()) << approved.status().to_string();
        return approved.ok() ? *approved : a;
    }

    ApprovalState state_of(const std::string& id) {
        auto a = mgr_->get(id);
        EXPECT_TRUE(a.ok());
        return a.ok() ? a->effective_state(clock_.now_ms()) : ApprovalState::kExpired;
    }

    ManualClock clock_;
    std::unique_ptr<ApprovalManager> mgr_;
};

TEST_F(ApprovalManagerTest, MintCreatesAPendingTicketWithA32HexId) {
    auto minted = mgr_->mint(mcp_request("create_management_group", R"({"name":"g"})", "alice"));
    ASSERT_TRUE(minted.ok()) << minted.status().to_string();
    EXPECT_TRUE(minted->created);
    const Approval& a = minted->approval;
    EXPECT_TRUE(is_approval_id(a.id)) << a.id;
    EXPECT_EQ(a.state, ApprovalState::kPending);
    EXPECT_EQ(a.created_at_ms, clock_.now_ms());

    auto read = mgr_->get(a.id);
    ASSERT_TRUE(read.ok());
    EXPECT_EQ(read->definition_id, "mcp.create_management_group");
    EXPECT_EQ(read->scope_expression, R"({"name":"g"})");
    EXPECT_EQ(read->submitted_by, "alice");
    EXPECT_EQ(read->surface, Surface::kMcp);
    EXPECT_EQ(read->reviewer, "");
    EXPECT_EQ(read->consumed_at_ms, 0);
    EXPECT_EQ(*mgr_->pending_count(), 1);
}

TEST_F(ApprovalManagerTest, MintIsDeduplicatedWhileTheSameRequestIsPending) {
    const auto req = mcp_request("unlock_account", R"({"username":"x"})", "alice");
    const Approval first = mint(req);
    auto again = mgr_->mint(req);
    ASSERT_TRUE(again.ok());
    EXPECT_FALSE(again->created);
    EXPECT_EQ(again->approval.id, first.id);

    // Any difference in tool, arguments, submitter or surface is a new ticket.
    std::set<std::string> ids{first.id};
    ids.insert(mint(mcp_request("unlock_account", R"({"username":"y"})", "alice")).id);
    ids.insert(mint(mcp_request("revoke_api_token", R"({"username":"x"})", "alice")).id);
    ids.insert(mint(mcp_request("unlock_account", R"({"username":"x"})", "carol")).id);
    MintRequest rest = req;
    rest.surface = Surface::kRest;
    ids.insert(mint(rest).id);
    EXPECT_EQ(ids.size(), 5u);
    EXPECT_EQ(*mgr_->pending_count(), 5);
}

TEST_F(ApprovalManagerTest, MintAfterTheTicketWasDecidedCreatesANewOne) {
    const auto req = mcp_request("unlock_account", R"({"username":"x"})", "alice");
    const Approval first = mint_approved(req);
    auto again = mgr_->mint(req);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->created);
    EXPECT_NE(again->approval.id, first.id);
}

TEST_F(ApprovalManagerTest, MintValidatesItsFields) {
    EXPECT_EQ(mgr_->mint(mcp_request("t", "{}", "")).status().code(), StatusCode::kInvalidArgument);
    MintRequest no_def = mcp_request("t", "{}", "alice");
    no_def.definition_id.clear();
    EXPECT_EQ(mgr_->mint(no_def).status().code(), StatusCode::kInvalidArgument);
    MintRequest ctl = mcp_request("t\n", "{}", "alice");
    EXPECT_EQ(mgr_->mint(ctl).status().code(), StatusCode::kInvalidArgument);
    MintRequest big = mcp_request("t", std::string(64 * 1024 + 1, 'x'), "alice");
    EXPECT_EQ(mgr_->mint(big).status().code(), StatusCode::kPayloadTooLarge);
}

TEST_F(ApprovalManagerTest, TheQueueOfPendingTicketsIsBounded) {
    for (size_t i = 0; i < kMaxPendingApprovals; ++i) {
        ASSERT_TRUE(mgr_->mint(mcp_request("t", std::to_string(i), "alice")).ok()) << i;
    }
    auto full = mgr_->mint(mcp_request("t", "one more", "alice"));
    EXPECT_EQ(full.status().code(), StatusCode::kResourceExhausted);
    // A duplicate of a pending ticket is still answered.
    EXPECT_TRUE(mgr_->mint(mcp_request("t", "7", "alice")).ok());
}

TEST_F(ApprovalManagerTest, PendingTicketsExpireAfterSevenDays) {
    const auto req = mcp_request("unlock_account", "{}", "alice");
    const Approval a = mint(req);
    clock_.advance_ms(kApprovalLifetimeMs - 1);
    EXPECT_EQ(state_of(a.id), ApprovalState::kPending);
    clock_.advance_ms(1);
    EXPECT_EQ(state_of(a.id), ApprovalState::kExpired);
    EXPECT_EQ(*mgr_->pending_count(), 0);
    EXPECT_EQ(mgr_->approve(a.id, "bob", "").status().code(), StatusCode::kFailedPrecondition);

    // A new mint sweeps it for good and answers with a fresh ticket.
    auto again = mgr_->mint(req);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->created);
    EXPECT_EQ(mgr_->get(a.id)->state, ApprovalState::kExpired);
}

TEST_F(ApprovalManagerTest, ApproveAndRejectFollowTheReviewRules) {
    const Approval a = mint(mcp_request("unlock_account", "{}", "alice"));
    EXPECT_EQ(mgr_->approve(a.id, "alice", "").status().code(), StatusCode::kPermissionDenied);
    EXPECT_EQ(mgr_->reject(a.id, "alice", "").status().code(), StatusCode::kPermissionDenied);
    EXPECT_EQ(mgr_->approve(a.id, "", "").status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(mgr_->approve(a.id, "bob", std::string(kMaxCommentLength + 1, 'c')).status().code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(state_of(a.id), ApprovalState::kPending);

    clock_.advance_ms(1000);
    auto approved = mgr_->approve(a.id, "bob", std::string(kMaxCommentLength, 'c'));
    ASSERT_TRUE(approved.ok()) << approved.status().to_string();
    EXPECT_EQ(approved->state, ApprovalState::kApproved);
    EXPECT_EQ(approved->reviewer, "bob");
    EXPECT_EQ(approved->decided_at_ms, clock_.now_ms());

    // Pending only: a decided ticket cannot be decided again.
    EXPECT_EQ(mgr_->approve(a.id, "carol", "").status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(mgr_->reject(a.id, "carol", "").status().code(), StatusCode::kFailedPrecondition);

    const Approval b = mint(mcp_request("unlock_account", R"({"u":1})", "alice"));
    auto rejected = mgr_->reject(b.id, "bob", "no");
    ASSERT_TRUE(rejected.ok());
    EXPECT_EQ(rejected->state, ApprovalState::kRejected);
    EXPECT_EQ(mgr_->get(b.id)->comment, "no");
    EXPECT_EQ(mgr_->approve(b.id, "bob", "").status().code(), StatusCode::kFailedPrecondition);

    EXPECT_EQ(mgr_->approve("0123456789abcdef0123456789abcdef", "bob", "").status().code(),
              StatusCode::kNotFound);
    EXPECT_EQ(mgr_->approve("not-an-id", "bob", "").status().code(), StatusCode::kNotFound);
}

TEST_F(ApprovalManagerTest, ConsumeSucceedsOnceForTheSubmittersApprovedTicket) {
    const Approval a = mint_approved(mcp_request("unlock_account", "{}", "alice"));
    auto first = mgr_->consume(redeem(a, "alice"));
    ASSERT_TRUE(first.ok());
    EXPECT_TRUE(first->consumed);
    EXPECT_EQ(first->verdict, RedeemVerdict::kRedeemable);
    ASSERT_TRUE(first->approval.has_value());
    EXPECT_EQ(first->approval->state, ApprovalState::kConsumed);
    EXPECT_EQ(first->approval->consumed_at_ms, clock_.now_ms());

    auto replay = mgr_->consume(redeem(a, "alice"));
    ASSERT_TRUE(replay.ok());
    EXPECT_FALSE(replay->consumed);
    EXPECT_EQ(replay->verdict, RedeemVerdict::kNotRedeemable);
}

TEST_F(ApprovalManagerTest, ConsumeClassifiesEachRefusal) {
    // Still pending.
    const Approval pending = mint(mcp_request("t", "{}", "alice"));
    EXPECT_EQ(mgr_->consume(redeem(pending, "alice"))->verdict, RedeemVerdict::kPending);

    // Another tool or other arguments: mismatch, and the ticket is untouched.
    const Approval ok = mint_approved(mcp_request("t", R"({"a":1})", "alice"));
    RedeemRequest other_args = redeem(ok, "alice");
    other_args.scope_expression = R"({"a":2})";
    EXPECT_EQ(mgr_->consume(other_args)->verdict, RedeemVerdict::kMismatch);
    RedeemRequest other_tool = redeem(ok, "alice");
    other_tool.definition_id = "mcp.other";
    EXPECT_EQ(mgr_->consume(other_tool)->verdict, RedeemVerdict::kMismatch);
    EXPECT_EQ(state_of(ok.id), ApprovalState::kApproved);

    // Another principal, another surface, rejected, unknown: all the same.
    EXPECT_EQ(mgr_->consume(redeem(ok, "mallory"))->verdict, RedeemVerdict::kNotRedeemable);
    EXPECT_EQ(state_of(ok.id), ApprovalState::kApproved);
    MintRequest rest = mcp_request("t", R"({"a":1})", "alice");
    rest.surface = Surface::kRest;
    const Approval rest_ticket = mint_approved(rest);
    EXPECT_EQ(mgr_->consume(redeem(rest_ticket, "alice"))->verdict, RedeemVerdict::kNotRedeemable);
    EXPECT_EQ(state_of(rest_ticket.id), ApprovalState::kApproved);
    const Approval rejected = mint(mcp_request("t", R"({"r":1})", "alice"));
    ASSERT_TRUE(mgr_->reject(rejected.id, "bob", "").ok());
    EXPECT_EQ(mgr_->consume(redeem(rejected, "alice"))->verdict, RedeemVerdict::kNotRedeemable);
    RedeemRequest unknown = redeem(ok, "alice");
    unknown.id = "0123456789abcdef0123456789abcdef";
    EXPECT_EQ(mgr_->consume(unknown)->verdict, RedeemVerdict::kNotRedeemable);
    unknown.id = "../../etc";
    EXPECT_EQ(mgr_->consume(unknown)->verdict, RedeemVerdict::kNotRedeemable);

    // The redeemable one still works after all of that.
    EXPECT_TRUE(mgr_->consume(redeem(ok, "alice"))->consumed);
}

TEST_F(ApprovalManagerTest, InspectGivesConsumesVerdictWithoutConsuming) {
    const Approval a = mint_approved(mcp_request("t", "{}", "alice"));
    for (int i = 0; i < 2; ++i) {
        auto seen = mgr_->inspect(redeem(a, "alice"));
        ASSERT_TRUE(seen.ok());
        EXPECT_FALSE(seen->consumed);
        EXPECT_EQ(seen->verdict, RedeemVerdict::kRedeemable);
        ASSERT_TRUE(seen->approval.has_value());
        EXPECT_EQ(seen->approval->id, a.id);
    }
    EXPECT_EQ(mgr_->inspect(redeem(a, "mallory"))->verdict, RedeemVerdict::kNotRedeemable);
    RedeemRequest unknown = redeem(a, "alice");
    unknown.id = "nope";
    EXPECT_FALSE(mgr_->inspect(unknown)->approval.has_value());
    EXPECT_EQ(state_of(a.id), ApprovalState::kApproved);
    EXPECT_TRUE(mgr_->consume(redeem(a, "alice"))->consumed);
    EXPECT_EQ(mgr_->inspect(redeem(a, "alice"))->verdict, RedeemVerdict::kNotRedeemable);
}

TEST_F(ApprovalManagerTest, AnApprovedTicketPastItsLifetimeIsExpiredOnlyToItsOwner) {
    const Approval a = mint_approved(mcp_request("t", "{}", "alice"));
    const Approval p = mint(mcp_request("t", R"({"p":1})", "alice"));
    clock_.advance_ms(kApprovalLifetimeMs);
    EXPECT_EQ(mgr_->consume(redeem(a, "alice"))->verdict, RedeemVerdict::kExpiredPastLifetime);
    EXPECT_EQ(mgr_->consume(redeem(a, "mallory"))->verdict, RedeemVerdict::kNotRedeemable);
    // A ticket that expired while pending reads like any other dead ticket.
    EXPECT_EQ(mgr_->consume(redeem(p, "alice"))->verdict, RedeemVerdict::kNotRedeemable);
    EXPECT_EQ(state_of(a.id), ApprovalState::kExpired);
}

TEST_F(ApprovalManagerTest, ListFiltersByStateAndSubmitterAndPages) {
    std::vector<std::string> ids;
    for (int i = 0; i < 7; ++i) {
        ids.push_back(mint(mcp_request("t", std::to_string(i), i % 2 == 0 ? "alice" : "carol")).id);
        clock_.advance_ms(10);
    }
    ASSERT_TRUE(mgr_->approve(ids[0], "bob", "").ok());
    ASSERT_TRUE(mgr_->reject(ids[1], "bob", "").ok());

    ApprovalFilter all;
    all.limit = 3;
    std::vector<std::string> seen;
    for (int page_no = 0; page_no < 5; ++page_no) {
        auto page = mgr_->list(all);
        ASSERT_TRUE(page.ok()) << page.status().to_string();
        for (const auto& a : page->approvals) seen.push_back(a.id);
        if (page->next_cursor.empty()) break;
        all.cursor = page->next_cursor;
    }
    // Newest first, every ticket exactly once.
    ASSERT_EQ(seen.size(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(seen[i], ids[ids.size() - 1 - i]);

    ApprovalFilter pending;
    pending.state = ApprovalState::kPending;
    EXPECT_EQ(mgr_->list(pending)->approvals.size(), 5u);
    pending.submitted_by = "alice";
    EXPECT_EQ(mgr_->list(pending)->approvals.size(), 3u);  // 2, 4, 6
    ApprovalFilter approved;
    approved.state = ApprovalState::kApproved;
    ASSERT_EQ(mgr_->list(approved)->approvals.size(), 1u);
    EXPECT_EQ(mgr_->list(approved)->approvals[0].id, ids[0]);

    clock_.advance_ms(kApprovalLifetimeMs);
    ApprovalFilter expired;
    expired.state = ApprovalState::kExpired;
    EXPECT_EQ(mgr_->list(expired)->approvals.size(),
              6u);  // all but the rejected one
    EXPECT_TRUE(mgr_->list(pending)->approvals.empty());

    ApprovalFilter bad;
    bad.cursor = "abc";
    EXPECT_EQ(mgr_->list(bad).status().code(), StatusCode::kInvalidArgument);
    bad.cursor = "-4";
    EXPECT_EQ(mgr_->list(bad).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ApprovalManagerTest, GetOfAnUnknownOrMalformedIdIsNotFound) {
    EXPECT_EQ(mgr_->get("0123456789abcdef0123456789abcdef").status().code(), StatusCode::kNotFound);
    EXPECT_EQ(mgr_->get("ABCDEF").status().code(), StatusCode::kNotFound);
    EXPECT_TRUE(mgr_->ready().ok());
}

TEST(ApprovalManagerFileTest, TicketsSurviveAReopen) {
    TempDir dir;
    ManualClock clock;
    const std::string path = (dir / "approvals.db").string();
    std::string id;
    {
        auto m = ApprovalManager::open(path, clock);
        ASSERT_TRUE(m.ok()) << m.status().to_string();
        auto minted = (*m)->mint(mcp_request("t", "{}", "alice"));
        ASSERT_TRUE(minted.ok());
        id = minted->approval.id;
        ASSERT_TRUE((*m)->approve(id, "bob", "fine").ok());
    }
    auto m = ApprovalManager::open(path, clock);
    ASSERT_TRUE(m.ok()) << m.status().to_string();
    auto a = (*m)->get(id);
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a->state, ApprovalState::kApproved);
    EXPECT_EQ(a->reviewer, "bob");
    EXPECT_EQ(a->comment, "fine");
}

// 50 threads recall one approved ticket at once, over two connections to the
// same file: exactly one consume succeeds, every other one reads as a replay.
TEST(ApprovalManagerConcurrencyTest, ExactlyOneOfFiftyConcurrentConsumesSucceeds) {
    TempDir dir;
    ManualClock clock;
    const std::string path = (dir / "approvals.db").string();
    auto first = ApprovalManager::open(path, clock);
    ASSERT_TRUE(first.ok()) << first.status().to_string();
    auto second = ApprovalManager::open(path, clock);
    ASSERT_TRUE(second.ok()) << second.status().to_string();
    ApprovalManager* managers[2] = {first->get(), second->get()};

    for (int round = 0; round < 5; ++round) {
        auto minted =
            managers[0]->mint(mcp_request("t", "{\"round\":" + std::to_string(round) + "}", "al"));
        ASSERT_TRUE(minted.ok());
        const Approval ticket = minted->approval;
        ASSERT_TRUE(managers[1]->approve(ticket.id, "bob", "").ok());

        std::atomic<int> consumed{0};
        std::atomic<int> refused{0};
        std::atomic<int> errors{0};
        std::atomic<bool> go{false};
        std::vector<std::thread> threads;
        for (int i = 0; i < 50; ++i) {
            threads.emplace_back([&, i] {
                while (!go.load()) std::this_thread::yield();
                auto r = managers[i % 2]->consume(redeem(ticket, "al"));
                if (!r.ok()) {
                    errors.fetch_add(1);
                } else if (r->consumed) {
                    consumed.fetch_add(1);
                } else if (r->verdict == RedeemVerdict::kNotRedeemable) {
                    refused.fetch_add(1);
                }
            });
        }
        go.store(true);
        for (auto& t : threads) t.join();
        EXPECT_EQ(consumed.load(), 1) << "round " << round;
        EXPECT_EQ(refused.load(), 49) << "round " << round;
        EXPECT_EQ(errors.load(), 0) << "round " << round;
        EXPECT_EQ(managers[0]->get(ticket.id)->state, ApprovalState::kConsumed);
    }
}

// 20 threads mint the same request at once: one ticket.
TEST(ApprovalManagerConcurrencyTest, ConcurrentIdenticalMintsShareOneTicket) {
    TempDir dir;
    ManualClock clock;
    auto m = ApprovalManager::open((dir / "approvals.db").string(), clock);
    ASSERT_TRUE(m.ok());
    std::mutex mu;
    std::set<std::string> ids;
    std::vector<std::thread> threads;
    for (int i = 0; i < 20; ++i) {
        threads.emplace_back([&] {
            auto r = (*m)->mint(mcp_request("t", "{}", "alice"));
            ASSERT_TRUE(r.ok());
            std::lock_guard lock(mu);
            ids.insert(r->approval.id);
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(ids.size(), 1u);
    EXPECT_EQ(*(*m)->pending_count(), 1);
}

}  // namespace
}  // namespace yuzu::approval
