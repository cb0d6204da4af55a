// The dashboard routes on a real HttpServer (port 0) with a real identity
// store, session cookies and an in-memory ApprovalManager: redirects, the
// security headers on every response, and what the Approvals page lists.
#include "web/dashboard_routes.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <thread>

#include "route_test.hpp"
#include "web/dashboard_page.hpp"
#include "yuzu/approval/approval_manager.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/mfa_service.hpp"
#include "yuzu/auth/session_store.hpp"
#include "yuzu/auth/token_store.hpp"
#include "yuzu/auth/totp.hpp"
#include "yuzu/auth/user_store.hpp"
#include "yuzu/http/identity_resolver.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::web {
namespace {

class DashboardRoutes : public testing::RouteTest {
  protected:
    DashboardRoutes() : RouteTest(SystemClock::instance()) {}

    void SetUp() override {
        open_identity();
        ASSERT_TRUE(ctx_);
        auto approvals = approval::ApprovalManager::open(":memory:", SystemClock::instance());
        ASSERT_TRUE(approvals.ok()) << approvals.status().to_string();
        approvals_ = std::move(approvals).value();
        ctx_->approvals = approvals_.get();
        serve(register_dashboard_routes);
    }

    // The session's cookies alone (pages are reads: no CSRF header).
    static httplib::Headers cookie(const auth::NewSession& s) {
        return RouteTest::cookie(s, false);
    }

    std::string mint(const std::string& submitter, const std::string& args) {
        approval::MintRequest r;
        r.definition_id = "mcp.create_management_group";
        r.submitted_by = submitter;
        r.scope_expression = args;
        auto minted = approvals_->mint(r);
        EXPECT_TRUE(minted.ok()) << minted.status().to_string();
        return minted.ok() ? minted->approval.id : "";
    }

    static void expect_security_headers(const httplib::Result& res, const std::string& what) {
        ASSERT_TRUE(res) << what;
        EXPECT_EQ(res->get_header_value("Content-Security-Policy"), kDashboardCsp) << what;
        EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff") << what;
        EXPECT_EQ(res->get_header_value("Referrer-Policy"), "no-referrer") << what;
        EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store") << what;
    }

    std::unique_ptr<approval::ApprovalManager> approvals_;
};

TEST_F(DashboardRoutes, EveryResponseCarriesTheSecurityHeaders) {
    const auto s = sign_in("reviewer", {"ITServiceOwner"});
    for (const char* path : {"/", "/login", "/approvals", "/ui/app.js", "/ui/app.css"}) {
        expect_security_headers(client_->Get(path), std::string("signed out ") + path);
        expect_security_headers(client_->Get(path, cookie(s)), std::string("signed in ") + path);
    }
}

TEST_F(DashboardRoutes, ServesTheScriptAndStylesheetWithTheirTypes) {
    auto js = client_->Get("/ui/app.js");
    ASSERT_TRUE(js);
    EXPECT_EQ(js->status, 200);
    EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
    EXPECT_NE(js->body.find("/api/v1/mfa/verify"), std::string::npos);
    auto css = client_->Get("/ui/app.css");
    ASSERT_TRUE(css);
    EXPECT_EQ(css->status, 200);
    EXPECT_EQ(css->get_header_value("Content-Type"), "text/css; charset=utf-8");
    EXPECT_EQ(client_->Get("/ui/app.jsx")->status, 404);
}

TEST_F(DashboardRoutes, SignedOutPagesLeadToTheSignInForm) {
    auto root = client_->Get("/");
    ASSERT_TRUE(root);
    EXPECT_EQ(root->status, 303);
    EXPECT_EQ(root->get_header_value("Location"), "/login");
    auto approvals = client_->Get("/approvals");
    ASSERT_TRUE(approvals);
    EXPECT_EQ(approvals->status, 303);
    EXPECT_EQ(approvals->get_header_value("Location"), "/login?next=/approvals");

    auto login = client_->Get("/login");
    ASSERT_TRUE(login);
    EXPECT_EQ(login->status, 200);
    EXPECT_EQ(login->get_header_value("Content-Type"), "text/html; charset=utf-8");
    EXPECT_NE(login->body.find("<form id=\"login-form\" method=\"post\" action=\"/login\""),
              std::string::npos);
    EXPECT_NE(login->body.find("data-next=\"/approvals\""), std::string::npos);
}

TEST_F(DashboardRoutes, SignInPageKeepsOnlyALocalNextAndEscapesIt) {
    auto evil = client_->Get("/login?next=%2F%2Fevil.example%2F");
    ASSERT_TRUE(evil);
    EXPECT_NE(evil->body.find("data-next=\"/approvals\""), std::string::npos);
    EXPECT_EQ(evil->body.find("evil.example"), std::string::npos);
    auto quoted = client_->Get("/login?next=%2Fx%22%3E%3Cscript%3E");
    ASSERT_TRUE(quoted);
    EXPECT_NE(quoted->body.find("data-next=\"/x&quot;&gt;&lt;script&gt;\""), std::string::npos);
    EXPECT_EQ(quoted->body.find("<script>"), std::string::npos);
}

TEST_F(DashboardRoutes, SignedInUsersAreSentOnFromRootAndSignIn) {
    const auto s = sign_in("reviewer", {"ITServiceOwner"});
    auto root = client_->Get("/", cookie(s));
    ASSERT_TRUE(root);
    EXPECT_EQ(root->status, 303);
    EXPECT_EQ(root->get_header_value("Location"), "/approvals");
    auto login = client_->Get("/login?next=/approvals%3Fx%3D1", cookie(s));
    ASSERT_TRUE(login);
    EXPECT_EQ(login->status, 303);
    EXPECT_EQ(login->get_header_value("Location"), "/approvals?x=1");
    auto loop = client_->Get("/login?next=%2Flogin", cookie(s));
    ASSERT_TRUE(loop);
    EXPECT_EQ(loop->get_header_value("Location"), "/approvals");
}

TEST_F(DashboardRoutes, ATokenDoesNotOpenThePages) {
    ASSERT_TRUE(identity_->users()
                    .create_user("scripted", testing::kRouteTestPassword, {"Administrator"})
                    .ok());
    auto token = identity_->tokens().create("scripted", "t", "", 0);
    ASSERT_TRUE(token.ok()) << token.status().to_string();
    auto res = client_->Get("/approvals", {{"Authorization", "Bearer " + token->secret}});
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 303);
    EXPECT_EQ(res->get_header_value("Location"), "/login?next=/approvals");
}

TEST_F(DashboardRoutes, ApprovalsPageListsPendingTicketsOnlyWithArgumentsEscaped) {
    const auto s = sign_in("reviewer", {"ITServiceOwner"});
    const std::string xss = mint("admin", R"({"description":"<script>window.__xss=1</script>"})");
    const std::string decided = mint("admin", R"({"name":"done"})");
    ASSERT_TRUE(approvals_->approve(decided, "someone-else", "").ok());

    auto res = client_->Get("/approvals", cookie(s));
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    const std::string& body = res->body;
    EXPECT_NE(body.find("<tr data-approval-id=\"" + xss + "\">"), std::string::npos);
    EXPECT_EQ(body.find(decided), std::string::npos) << "an approved ticket is not pending";
    EXPECT_NE(body.find("&lt;script&gt;window.__xss=1&lt;/script&gt;"), std::string::npos);
    EXPECT_EQ(body.find("<script>window"), std::string::npos);
    EXPECT_NE(body.find("<meta name=\"yuzu-csrf\" content=\"" + s.csrf_token + "\">"),
              std::string::npos);
    EXPECT_NE(body.find("id=\"mfa-enrol\""), std::string::npos) << "no factor yet";
    EXPECT_NE(body.find("data-mfa-valid-ms=\"0\""), std::string::npos);
}

TEST_F(DashboardRoutes, WithAnActiveFactorAndFreshProofDecisionsAreOpen) {
    const auto s = sign_in("reviewer", {"ITServiceOwner"});
    auto enrolment = identity_->mfa().enroll("reviewer");
    ASSERT_TRUE(enrolment.ok());
    auto key = auth::base32_decode(enrolment->secret_base32);
    ASSERT_TRUE(key.ok());
    const int64_t now_s = SystemClock::instance().now_s();
    ASSERT_TRUE(identity_->mfa().activate("reviewer", auth::totp_at(*key, now_s)).ok());
    ASSERT_TRUE(identity_->sessions()
                    .record_mfa_proof(s.session_id, SystemClock::instance().now_ms())
                    .ok());
    const std::string id = mint("admin", "{}");

    auto res = client_->Get("/approvals", cookie(s));
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_NE(res->body.find("<tr data-approval-id=\"" + id + "\">"), std::string::npos);
    EXPECT_EQ(res->body.find("id=\"mfa-enrol\""), std::string::npos);
    EXPECT_NE(res->body.find("data-action=\"approve\">Approve</button>"), std::string::npos);
    EXPECT_EQ(res->body.find(" disabled"), std::string::npos);
    EXPECT_EQ(res->body.find("data-mfa-valid-ms=\"0\""), std::string::npos);
    EXPECT_NE(res->body.find("data-mfa-valid-ms=\""), std::string::npos);
}

TEST_F(DashboardRoutes, AViewerSeesTicketsButCannotDecide) {
    const auto s = sign_in("watcher", {"Viewer"});
    mint("admin", "{}");
    auto res = client_->Get("/approvals", cookie(s));
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_NE(res->body.find("disabled title=\"Your roles do not include Approval:Approve.\""),
              std::string::npos);
}

TEST_F(DashboardRoutes, WithoutApprovalReadThePageIsRefused) {
    const auto s = sign_in("nobody", {});
    const std::string id = mint("admin", "{}");
    auto res = client_->Get("/approvals", cookie(s));
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 403);
    EXPECT_NE(res->body.find("Approval:Read"), std::string::npos);
    EXPECT_EQ(res->body.find(id), std::string::npos);
    expect_security_headers(res, "403 page");
}

}  // namespace
}  // namespace yuzu::web
