// Approval tickets over REST: list, get, approve, reject.
//
//   GET  /api/v1/approvals?state=&submitted_by=&limit=&cursor=   Approval:Read
//   GET  /api/v1/approvals/{id}                                  Approval:Read
//   POST /api/v1/approvals/{id}/approve | /reject                (also under
//   /api/approvals/)
//
// Deciding a ticket is the one place a person vouches for an AI client's
// request, so it needs, in this order: Approval:Approve; an interactive web
// session (cookie; a bearer token never qualifies); an active TOTP factor; a
// step-up proof younger than 5 minutes; and a reviewer other than the
// submitter. Each refusal is a 403 whose message starts with
// approver_assurance_required:<reason> (except the RBAC and reviewer ones),
// and is audited as approval.approve / approval.reject, result denied.
#include <charconv>
#include <string>

#include "route_registry.hpp"
#include "yuzu/access/approver_assurance.hpp"
#include "yuzu/approval/approval_json.hpp"
#include "yuzu/approval/approval_manager.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/mfa_service.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Securable;

constexpr char kTarget[] = "approval";
constexpr char kIdPattern[] = "([0-9a-f]{32})";

bool manager_available(const WebContext& ctx, httplib::Response& res) {
    if (ctx.approvals != nullptr) return true;
    http::write_error(res, 503, "this server runs without an approval manager");
    return false;
}

void list_approvals(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                    const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, {Securable::kApproval, Operation::kRead}, "approval.list",
                   kTarget, ""))
        return;
    if (!manager_available(ctx, res)) return;
    approval::ApprovalFilter filter;
    std::string state = req.get_param_value("state");
    if (state.empty()) state = req.get_param_value("status");
    if (!state.empty()) {
        filter.state = approval::parse_approval_state(state);
        if (!filter.state) {
            http::write_error(res, 400,
                              "state must be one of pending, approved, rejected, expired, "
                              "consumed");
            return;
        }
    }
    filter.submitted_by = req.get_param_value("submitted_by");
    filter.cursor = req.get_param_value("cursor");
    if (req.has_param("limit")) {
        const std::string text = req.get_param_value("limit");
        int limit = 0;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), limit);
        if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || limit < 1) {
            http::write_error(res, 400, "limit must be a positive integer");
            return;
        }
        filter.limit = limit;
    }
    auto page = ctx.approvals->list(filter);
    if (!page.ok()) {
        write_status(res, page.status());
        return;
    }
    const int64_t now = ctx.clock.now_ms();
    nlohmann::json list = nlohmann::json::array();
    for (const auto& a : page->approvals) list.push_back(approval::to_json(a, now));
    http::write_json(res, 200,
                     nlohmann::json{{"approvals", list}, {"next_cursor", page->next_cursor}});
}

void get_approval(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, {Securable::kApproval, Operation::kRead}, "approval.get",
                   kTarget, id))
        return;
    if (!manager_available(ctx, res)) return;
    auto found = ctx.approvals->get(id);
    if (!found.ok()) {
        write_status(res, found.status());
        return;
    }
    http::write_json(res, 200, approval::to_json(*found, ctx.clock.now_ms()));
}

void decide(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
            const auth::Principal& who, bool approve) {
    const std::string id = req.matches[1];
    const std::string action = approve ? "approval.approve" : "approval.reject";
    if (!permitted(ctx, req, res, who, {Securable::kApproval, Operation::kApprove}, action, kTarget,
                   id))
        return;
    // Every decision attempt past RBAC leaves a row, the ones refused for
    // the server's state or a malformed body included.
    if (!manager_available(ctx, res)) {
        audit_request(ctx, req, res, &who, action, kTarget, id, "error",
                      "approval_id=" + id + " no approval manager");
        return;
    }
    if (const std::string gap = access::approver_assurance_gap(
            who, access::DecisionSurface::kRest, ctx.identity.mfa(), ctx.clock.now_ms());
        !gap.empty()) {
        audit_request(ctx, req, res, &who, action, kTarget, id, "denied",
                      "approval_id=" + id + " approver_assurance:" + gap);
        nlohmann::json body = {{"error",
                                {{"code", 403},
                                 {"message", "approver_assurance_required:" + gap},
                                 {"reason", gap},
                                 {"remediation", access::approver_assurance_remediation(gap)},
                                 {"correlation_id", http::correlation_id_of(res)}}}};
        http::write_json(res, 403, body);
        return;
    }
    std::string comment;
    auto body = parse_json_body(req, res);
    if (!body || !read_string(*body, "comment", comment, false, res)) {
        audit_request(ctx, req, res, &who, action, kTarget, id, "failure",
                      "approval_id=" + id + " malformed body");
        return;
    }

    auto decided = approve ? ctx.approvals->approve(id, who.username, comment)
                           : ctx.approvals->reject(id, who.username, comment);
    if (!decided.ok()) {
        audit_request(ctx, req, res, &who, action, kTarget, id, audit_result_for(decided.status()),
                      decided.status().message());
        write_status(res, decided.status());
        return;
    }
    audit_request(
        ctx, req, res, &who, action, kTarget, id, approve ? "approved" : "rejected",
        "definition_id=" + decided->definition_id + " submitted_by=" + decided->submitted_by);
    http::write_json(res, 200, approval::to_json(*decided, ctx.clock.now_ms()));
}

void approve_route(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                   const auth::Principal& who) {
    decide(ctx, req, res, who, true);
}

void reject_route(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const auth::Principal& who) {
    decide(ctx, req, res, who, false);
}

}  // namespace

void register_approval_routes(http::HttpServer& server, const WebContext& ctx) {
    server.get("/api/v1/approvals", "/api/v1/approvals", with_principal(ctx, list_approvals));
    for (const std::string base : {"/api/v1/approvals/", "/api/approvals/"}) {
        const std::string one = base + kIdPattern;
        const std::string tmpl = base + "{id}";
        if (base == "/api/v1/approvals/") {
            server.get(one, tmpl, with_principal(ctx, get_approval));
        }
        server.post(one + "/approve", tmpl + "/approve", with_principal(ctx, approve_route));
        server.post(one + "/reject", tmpl + "/reject", with_principal(ctx, reject_route));
    }
}

}  // namespace yuzu::web
