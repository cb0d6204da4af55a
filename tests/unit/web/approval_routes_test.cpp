// The REST approval routes on a real HttpServer (port 0) with a real identity
// store and a ManualClock, so the MFA proof's 5-minute freshness and the
// tickets' lifetime can be crossed without sleeping: each approver-assurance
// refusal, the reviewer rule, the decision and its audit rows.
#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "route_test.hpp"
#include "web/route_registry.hpp"
#include "yuzu/approval/approval_manager.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/totp.hpp"
#include "yuzu/http/identity_resolver.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::web {
namespace {

using nlohmann::json;

class ApprovalRoutes : public testing::RouteTest {
  protected:
    void SetUp() override {
        open_identity();
        ASSERT_TRUE(ctx_);
        auto approvals = approval::ApprovalManager::open(":memory:", clock_);
        ASSERT_TRUE(approvals.ok()) << approvals.status().to_string();
        approvals_ = std::move(approvals).value();
        ctx_->approvals = approvals_.get();
        serve(register_approval_routes);
    }

    // An active TOTP factor for username, activated with the current code.
    void activate_factor(const std::string& username) {
        auto enrolled = identity_->mfa().enroll(username);
        ASSERT_TRUE(enrolled.ok()) << enrolled.status().to_string();
        auto key = auth::base32_decode(enrolled->secret_base32);
        ASSERT_TRUE(key.ok());
        ASSERT_TRUE(identity_->mfa().activate(username, auth::totp_at(*key, clock_.now_s())).ok());
    }

    // An active factor and a fresh step-up proof on `signed_in`'s session:
    // everything a reviewer needs besides the permission.
    void prove_factor(const std::string& username, const auth::NewSession& signed_in) {
        activate_factor(username);
        auto session = identity_->sessions().lookup(signed_in.cookie_secret);
        ASSERT_TRUE(session.ok());
        ASSERT_TRUE(
            identity_->sessions().record_mfa_proof(session->session_id, clock_.now_ms()).ok());
    }

    std::string mint(const std::string& submitter) {
        approval::MintRequest r;
        r.definition_id = "mcp.unlock_account";
        r.submitted_by = submitter;
        r.scope_expression = R"({"username":"x"})";
        auto minted = approvals_->mint(r);
        EXPECT_TRUE(minted.ok()) << minted.status().to_string();
        return minted.ok() ? minted->approval.id : "";
    }

    httplib::Result approve(const httplib::Headers& h, const std::string& id,
                            const std::string& verb = "approve") {
        return client_->Post("/api/v1/approvals/" + id + "/" + verb, h,
                             json{{"comment", "checked"}}.dump(), "application/json");
    }

    static std::string message(const httplib::Result& res) {
        return json::parse(res->body)["error"]["message"];
    }

    std::unique_ptr<approval::ApprovalManager> approvals_;
};

TEST_F(ApprovalRoutes, EachAssuranceStepHasItsOwnReason) {
    const std::string id = mint("alice");
    const auto rita = sign_in("rita", {"Administrator"});

    auto no_factor = approve(cookie(rita), id);
    ASSERT_TRUE(no_factor);
    EXPECT_EQ(no_factor->status, 403);
    EXPECT_EQ(message(no_factor), "approver_assurance_required:mfa_not_enrolled");

    activate_factor("rita");
    auto no_proof = approve(cookie(rita), id);
    EXPECT_EQ(no_proof->status, 403);
    EXPECT_EQ(message(no_proof), "approver_assurance_required:mfa_proof_missing");

    auto session = identity_->sessions().lookup(rita.cookie_secret);
    ASSERT_TRUE(session.ok());
    ASSERT_TRUE(identity_->sessions().record_mfa_proof(session->session_id, clock_.now_ms()).ok());
    clock_.advance_ms(auth::kMfaProofLifetimeMs);
    auto stale = approve(cookie(rita), id);
    EXPECT_EQ(stale->status, 403);
    EXPECT_EQ(message(stale), "approver_assurance_required:mfa_proof_stale");
    EXPECT_EQ(approvals_->get(id)->state, approval::ApprovalState::kPending);

    ASSERT_TRUE(identity_->sessions().record_mfa_proof(session->session_id, clock_.now_ms()).ok());
    clock_.advance_ms(auth::kMfaProofLifetimeMs - 1000);
    auto without_csrf = approve(cookie(rita, false), id);
    EXPECT_EQ(without_csrf->status, 403);
    auto ok = approve(cookie(rita), id);
    ASSERT_TRUE(ok);
    ASSERT_EQ(ok->status, 200) << ok->body;
    const json decided = json::parse(ok->body);
    EXPECT_EQ(decided["status"], "approved");
    EXPECT_EQ(decided["reviewed_by"], "rita");
    EXPECT_EQ(decided["review_comment"], "checked");

    size_t denied = 0;
    size_t approved = 0;
    for (const auto& ev : audit_.events()) {
        if (ev.action != "approval.approve") continue;
        EXPECT_EQ(ev.target_id, id);
        denied += ev.result == audit::AuditResult::kDenied ? 1 : 0;
        approved += ev.result == audit::AuditResult::kApproved ? 1 : 0;
    }
    EXPECT_EQ(denied, 3u);
    EXPECT_EQ(approved, 1u);
    const auto last = audit_.events().back();
    EXPECT_EQ(last.detail, "definition_id=mcp.unlock_account submitted_by=alice");
}

TEST_F(ApprovalRoutes, TokensAndUsersWithoutApprovalApproveAreRefused) {
    const std::string id = mint("alice");
    auto token = identity_->tokens().create("admin", "cli", "", 0);
    ASSERT_TRUE(token.ok());
    auto by_token = approve({{"Authorization", "Bearer " + token->secret}}, id);
    ASSERT_TRUE(by_token);
    EXPECT_EQ(by_token->status, 403);
    EXPECT_EQ(message(by_token), "approver_assurance_required:non_interactive_session");
    EXPECT_EQ(json::parse(by_token->body)["error"]["reason"], "non_interactive_session");
    EXPECT_EQ(audit_.events().back().detail,
              "approval_id=" + id + " approver_assurance:non_interactive_session");

    const auto vera = sign_in("vera", {"Viewer"});
    auto viewer = approve(cookie(vera), id, "reject");
    EXPECT_EQ(viewer->status, 403);
    EXPECT_EQ(message(viewer), "permission denied: Approval:Approve");
    EXPECT_EQ(approvals_->get(id)->state, approval::ApprovalState::kPending);
}

TEST_F(ApprovalRoutes, TheSubmitterCannotReviewAndOnlyPendingTicketsAreDecided) {
    const auto alice = sign_in("alice", {"Administrator"});
    ASSERT_NO_FATAL_FAILURE(prove_factor("alice", alice));

    const std::string own = mint("alice");
    auto self = approve(cookie(alice), own);
    EXPECT_EQ(self->status, 403);
    EXPECT_NE(message(self).find("must not be the submitter"), std::string::npos);

    const std::string bobs = mint("bob");
    EXPECT_EQ(approve(cookie(alice), bobs, "reject")->status, 200);
    EXPECT_EQ(approve(cookie(alice), bobs)->status, 409);
    EXPECT_EQ(audit_.events().back().result, audit::AuditResult::kFailure)
        << "a ticket no longer pending is a failed attempt, not a policy refusal";
    EXPECT_EQ(approvals_->get(bobs)->state, approval::ApprovalState::kRejected);
    EXPECT_EQ(approve(cookie(alice), "0123456789abcdef0123456789abcdef")->status, 404);

    // The legacy path decides the same way.
    const std::string other = mint("bob2");
    auto legacy = client_->Post("/api/approvals/" + other + "/approve", cookie(alice), "",
                                "application/json");
    ASSERT_TRUE(legacy);
    EXPECT_EQ(legacy->status, 200) << legacy->body;
}

TEST_F(ApprovalRoutes, AMalformedDecisionIsRefusedAndAudited) {
    const auto rita = sign_in("rita", {"Administrator"});
    ASSERT_NO_FATAL_FAILURE(prove_factor("rita", rita));
    const std::string id = mint("alice");

    for (const std::string& body : {std::string("{\"comment\":"), json{{"comment", 5}}.dump()}) {
        const size_t rows = audit_.events().size();
        auto res = client_->Post("/api/v1/approvals/" + id + "/reject", cookie(rita), body,
                                 "application/json");
        ASSERT_TRUE(res);
        EXPECT_EQ(res->status, 400) << body;
        ASSERT_EQ(audit_.events().size(), rows + 1) << body;
        const auto row = audit_.events().back();
        EXPECT_EQ(row.action, "approval.reject");
        EXPECT_EQ(row.result, audit::AuditResult::kFailure);
        EXPECT_EQ(row.detail, "approval_id=" + id + " malformed body");
    }
    EXPECT_EQ(approvals_->get(id)->state, approval::ApprovalState::kPending);
}

TEST_F(ApprovalRoutes, ListAndGetReportTheEffectiveState) {
    const auto alice = sign_in("alice", {"Viewer"});
    const std::string id = mint("bob");
    auto one = client_->Get("/api/v1/approvals/" + id, cookie(alice));
    ASSERT_TRUE(one);
    ASSERT_EQ(one->status, 200) << one->body;
    EXPECT_EQ(json::parse(one->body)["status"], "pending");

    clock_.advance_ms(approval::kApprovalLifetimeMs);
    // The session would have idled out; sign in again.
    auto again = identity_->sessions().create("alice", "127.0.0.1", "t");
    ASSERT_TRUE(again.ok());
    auto list = client_->Get("/api/v1/approvals?state=expired", cookie(*again));
    ASSERT_TRUE(list);
    ASSERT_EQ(list->status, 200) << list->body;
    const json body = json::parse(list->body);
    ASSERT_EQ(body["approvals"].size(), 1u);
    EXPECT_EQ(body["approvals"][0]["status"], "expired");
    EXPECT_EQ(body["next_cursor"], "");
    EXPECT_EQ(client_->Get("/api/v1/approvals?limit=0", cookie(*again))->status, 400);
    EXPECT_EQ(client_->Get("/api/v1/approvals?cursor=x", cookie(*again))->status, 400);
}

// A server started without an approval manager answers 503 to a decision
// and still records the attempt.
class ApprovalRoutesWithoutManager : public testing::RouteTest {
  protected:
    void SetUp() override {
        open_identity();
        ASSERT_TRUE(ctx_);
        serve(register_approval_routes);
    }
};

TEST_F(ApprovalRoutesWithoutManager, ADecisionIs503AndAudited) {
    const auto rita = sign_in("rita", {"Administrator"});
    const std::string id = "0123456789abcdef0123456789abcdef";
    auto res = client_->Post("/api/v1/approvals/" + id + "/approve", cookie(rita), "{}",
                             "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 503);
    ASSERT_FALSE(audit_.events().empty());
    const auto row = audit_.events().back();
    EXPECT_EQ(row.action, "approval.approve");
    EXPECT_EQ(row.result, audit::AuditResult::kError);
    EXPECT_EQ(row.detail, "approval_id=" + id + " no approval manager");
}

}  // namespace
}  // namespace yuzu::web
