// GET /approvals: the pending approval tickets, server-rendered from the
// ApprovalManager's list, with Approve / Reject driven by /ui/app.js
// through the REST approval and MFA routes.
#include <string>

#include "dashboard_approvals_view.hpp"
#include "dashboard_page.hpp"
#include "dashboard_routes.hpp"
#include "dashboard_text.hpp"
#include "yuzu/approval/approval_manager.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/mfa_service.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Securable;

// Milliseconds the session's step-up proof stays fresh; 0 when there is none.
int64_t proof_remaining_ms(const auth::Principal& who, int64_t now_ms) {
    if (!auth::mfa_proof_fresh(who.mfa_verified_at_ms, now_ms)) return 0;
    return who.mfa_verified_at_ms + auth::kMfaProofLifetimeMs - now_ms;
}

void fill_pending(const WebContext& ctx, ApprovalsView& view) {
    if (ctx.approvals == nullptr) {
        view.list_error = "this server runs without an approval manager";
        return;
    }
    approval::ApprovalFilter filter;
    filter.state = approval::ApprovalState::kPending;
    filter.limit = approval::kMaxListLimit;
    auto page = ctx.approvals->list(filter);
    if (!page.ok()) {
        view.list_error = page.status().message();
        return;
    }
    view.pending = std::move(page->approvals);
    view.truncated = !page->next_cursor.empty();
}

void approvals_page(const WebContext& ctx, const httplib::Request& req, httplib::Response& res) {
    auto who = dashboard_session(ctx, req);
    if (!who) {
        write_redirect(res, "/login?next=/approvals");
        return;
    }
    const auth::Principal& p = who->principal;
    Page page;
    page.title = "Approvals";
    page.page_id = "approvals";
    page.session = &*who;

    Status may_read = require_permission(ctx, p, {Securable::kApproval, Operation::kRead});
    if (!may_read.ok()) {
        page.body_html = "<section class=\"panel\">\n<h1>Approvals</h1>\n<p class=\"error\">" +
                         html_escape(may_read.message()) + "</p>\n</section>\n";
        write_page(res, may_read.code() == StatusCode::kPermissionDenied ? 403 : 500, page);
        return;
    }

    ApprovalsView view;
    view.username = p.username;
    view.now_ms = ctx.clock.now_ms();
    view.mfa_active = ctx.identity.mfa().is_active(p.username);
    view.may_approve = require_permission(ctx, p, {Securable::kApproval, Operation::kApprove}).ok();
    fill_pending(ctx, view);

    page.body_html = render_approvals_body(view);
    page.data_attrs =
        " data-mfa-valid-ms=\"" + std::to_string(proof_remaining_ms(p, view.now_ms)) + "\"";
    write_page(res, 200, page);
}

}  // namespace

void register_dashboard_approval_routes(http::HttpServer& server, const WebContext& ctx) {
    server.get("/approvals", "/approvals",
               [&ctx](const httplib::Request& req, httplib::Response& res) {
                   approvals_page(ctx, req, res);
               });
}

}  // namespace yuzu::web
