// Step 5 of the tools/call pipeline: the approval gate (ticket-then-recall).
//
//   first call         mint (deduplicated)                → -32006 + approval_id
//   recall, pending    same ticket                        → -32006 (keep polling)
//   recall, mismatch   other tool or arguments            → -32003, ticket untouched
//   recall, redeemable precondition, then atomic consume   → the call goes on
//   recall, otherwise  one message for rejected / expired / consumed / another
//                      surface / another principal / unknown → -32003
//   approved, past its 7-day lifetime (caller's own)      → -32003, distinct message
//   no ApprovalManager                                     → -32004, no approval_id
#include <spdlog/spdlog.h>

#include "pipeline_support.hpp"
#include "yuzu/approval/approval_json.hpp"
#include "yuzu/approval/approval_manager.hpp"
#include "yuzu/approval/canonical_json.hpp"
#include "yuzu/auth/tier_policy.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/retry.hpp"

namespace yuzu::mcp {
namespace {

using approval::RedeemVerdict;

constexpr char kPollRemediation[] =
    "an admin must approve this approval_id (see status_url), then re-call this tool with the "
    "approval_id argument to execute";
constexpr char kNewTicketRemediation[] =
    "call the tool again without approval_id to request a new approval";

Denial approval_required(const ToolSpec& tool, const auth::Principal& who,
                         const std::string& approval_id, const RequestInfo& info,
                         std::string audit_detail) {
    Denial d = detail::make_denial(
        kApprovalRequired,
        "approval required: " + tool.name + " (" + auth::permission_name(*tool.tier_key) +
            ") needs a person's approval at the '" + who.mcp_tier + "' MCP tier",
        info, kMcpApprovalPollRetryMs, kPollRemediation, "pending", std::move(audit_detail));
    d.error.data["approval_id"] = approval_id;
    d.error.data["status_url"] = approval::status_url(approval_id);
    return d;
}

Denial refusal(std::string message, const std::string& remediation, const RequestInfo& info,
               std::string audit_detail) {
    return detail::make_denial(kPermissionDenied, std::move(message), info, std::nullopt,
                               remediation, "denied", std::move(audit_detail));
}

Denial store_failure(const Status& s, const ToolSpec& tool, const RequestInfo& info,
                     const std::string& what) {
    Denial d;
    d.error = detail::map_failure(s, info, tool.name);
    d.audit_result = detail::audit_result_for(s);
    d.audit_detail = what + ": " + s.message();
    return d;
}

// The answer for a recall that cannot be redeemed (verdict != kRedeemable).
Denial refuse_recall(RedeemVerdict verdict, const ToolSpec& tool, const auth::Principal& who,
                     const std::string& id, const RequestInfo& info) {
    const std::string audit =
        "approval_id=" + id + " " + std::string(approval::redeem_verdict_name(verdict));
    switch (verdict) {
        case RedeemVerdict::kPending:
            return approval_required(tool, who, id, info, audit);
        case RedeemVerdict::kMismatch:
            return refusal(std::string(kApprovalMismatchMessage),
                           "re-call with exactly the tool and arguments the approval was "
                           "requested for, or call without approval_id to request a new one",
                           info, audit);
        case RedeemVerdict::kExpiredPastLifetime:
            return refusal(std::string(kApprovalExpiredMessage), kNewTicketRemediation, info,
                           audit);
        case RedeemVerdict::kRedeemable:
        case RedeemVerdict::kNotRedeemable:
            break;
    }
    // One answer for every other cause, so the caller learns nothing about a
    // ticket that is not theirs to redeem.
    return refusal(std::string(kApprovalNotRedeemableMessage), kNewTicketRemediation, info, audit);
}

std::optional<Denial> mint(const PipelineEnv& env, const ToolSpec& tool, const ToolCall& call,
                           const approval::RedeemRequest& request, const RequestInfo& info) {
    approval::MintRequest m;
    m.definition_id = request.definition_id;
    m.submitted_by = request.principal;
    m.scope_expression = request.scope_expression;
    m.surface = approval::Surface::kMcp;
    auto minted = env.approvals->mint(m);
    if (!minted.ok()) return store_failure(minted.status(), tool, info, "approval mint failed");
    const std::string& id = minted->approval.id;
    return approval_required(tool, call.principal, id, info,
                             "approval_id=" + id + (minted->created ? " minted" : " deduplicated"));
}

}  // namespace

std::optional<Denial> check_approval(const PipelineEnv& env, const ToolSpec& tool,
                                     const ToolCall& call,
                                     const std::optional<std::string>& approval_id,
                                     const RequestInfo& info) {
    const auto& key = *tool.tier_key;
    const auth::Principal& who = call.principal;
    if (!auth::requires_approval(who.mcp_tier, key.type, key.op)) return std::nullopt;
    if (env.approvals == nullptr) {
        // No pollable ticket can be minted: refuse with the tier code and no
        // approval_id.
        return detail::make_denial(
            kTierDenied,
            auth::permission_name(key) + " requires human approval at the '" + who.mcp_tier +
                "' tier, and this server has no approval manager",
            info, std::nullopt, "use a higher-tier MCP token, or the REST API / dashboard",
            "denied", "approval required; no manager");
    }

    approval::RedeemRequest request;
    request.id = approval_id.value_or("");
    request.definition_id = "mcp." + tool.name;
    request.scope_expression = approval::canonical_json(call.arguments);
    request.principal = who.username;
    if (!approval_id) return mint(env, tool, call, request, info);

    auto inspected = env.approvals->inspect(request);
    if (!inspected.ok()) {
        return store_failure(inspected.status(), tool, info, "approval lookup failed");
    }
    if (inspected->verdict != RedeemVerdict::kRedeemable) {
        return refuse_recall(inspected->verdict, tool, who, request.id, info);
    }
    if (tool.precondition) {
        if (Status s = tool.precondition(call); !s.ok()) {
            // The ticket stays approved: the caller may recall it later.
            return refusal(std::string(kApprovalPreconditionPrefix) + s.message(),
                           "the approval is still valid; re-call with the same approval_id once "
                           "the condition has cleared",
                           info, "approval_id=" + request.id + " precondition: " + s.message());
        }
    }
    auto consumed = env.approvals->consume(request);
    if (!consumed.ok()) {
        return store_failure(consumed.status(), tool, info, "approval consume failed");
    }
    if (!consumed->consumed) {
        // Another recall won the race, or the ticket changed since the lookup.
        return refuse_recall(consumed->verdict, tool, who, request.id, info);
    }
    detail::write_audit(env, who, tool.name, "consumed", "approval_id=" + request.id, info);
    return std::nullopt;
}

}  // namespace yuzu::mcp
