// MCP tools over approval tickets: list_pending_approvals (twin of GET
// /api/v1/approvals) and approve_request / reject_request. The last two exist
// so that an AI client that tries them gets a stable, explained refusal: a
// ticket is decided only by a person, on an interactive web session with a
// fresh MFA proof (POST /api/v1/approvals/{id}/approve or the dashboard), so
// over MCP they always answer -32003 approver_assurance_required:<reason>,
// after the Approval:Approve RBAC check.
#include "yuzu/access/approver_assurance.hpp"
#include "yuzu/approval/approval_json.hpp"
#include "yuzu/approval/approval_manager.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const json kApprovalIdSchema = {{"type", "string"},
                                {"pattern", "^[0-9a-f]{32}$"},
                                {"description", "the approval_id of a ticket (32 hex)"}};

ToolSpec list_pending_approvals_tool(approval::ApprovalManager& approvals, const Clock& clock) {
    ToolSpec spec;
    spec.name = "list_pending_approvals";
    spec.title = "List approval tickets";
    spec.description =
        "Approval tickets, newest first: by default those still "
        "waiting for a person "
        "(status=pending). Each has id, definition_id "
        "(mcp.<tool>), status, submitted_by, "
        "submitted_at, scope_expression (the canonical arguments) "
        "and status_url.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"status",
           {{"type", "string"},
            {"enum", {"pending", "approved", "rejected", "expired", "consumed"}},
            {"default", "pending"}}},
          {"submitted_by", {{"type", "string"}, {"minLength", 1}, {"maxLength", 256}}},
          {"limit",
           {{"type", "integer"},
            {"minimum", 1},
            {"maximum", approval::kMaxListLimit},
            {"default", approval::kDefaultListLimit}}},
          {"cursor",
           {{"type", "string"},
            {"maxLength", 32},
            {"description", "next_cursor from the previous page"}}}}},
        {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties", {{"approvals", {{"type", "array"}}}, {"next_cursor", {{"type", "string"}}}}},
        {"required", {"approvals", "next_cursor"}}};
    spec.tier_key = Permission{Securable::kApproval, Operation::kRead};
    spec.access =
        ToolAccess{Permission{Securable::kApproval, Operation::kRead}, AccessScope::kFleet, ""};
    spec.handler = [&approvals, &clock](const ToolCall& call) -> Result<json> {
        approval::ApprovalFilter filter;
        filter.state = approval::parse_approval_state(call.arguments.value("status", "pending"));
        filter.submitted_by = call.arguments.value("submitted_by", "");
        filter.limit = call.arguments.value("limit", approval::kDefaultListLimit);
        filter.cursor = call.arguments.value("cursor", "");
        auto page = approvals.list(filter);
        if (!page.ok()) return page.status();
        const int64_t now = clock.now_ms();
        json list = json::array();
        for (const auto& a : page->approvals) list.push_back(approval::to_json(a, now));
        return json{{"approvals", std::move(list)}, {"next_cursor", page->next_cursor}};
    };
    return spec;
}

ToolSpec decide_tool(auth::Identity& identity, const Clock& clock, bool approve) {
    ToolSpec spec;
    spec.name = approve ? "approve_request" : "reject_request";
    spec.title = approve ? "Approve a request" : "Reject a request";
    spec.description = std::string(approve ? "Approving" : "Rejecting") +
                       " an approval ticket needs a person on an interactive web session with a "
                       "fresh MFA "
                       "proof. Over MCP this always answers -32003 "
                       "approver_assurance_required:<reason>; use "
                       "the dashboard's Approvals page or POST /api/v1/approvals/{id}/" +
                       (approve ? "approve" : "reject") + " instead.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"approval_id", kApprovalIdSchema},
          {"comment", {{"type", "string"}, {"maxLength", approval::kMaxCommentLength}}}}},
        {"required", {"approval_id"}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{approve ? "approved" : "rejected", {{"type", "boolean"}}},
                            {"approval_id", {{"type", "string"}}}}},
                          {"required", {"approval_id"}}};
    spec.annotations.read_only = false;
    spec.annotations.idempotent = false;
    spec.tier_key = Permission{Securable::kApproval, Operation::kWrite};
    // The RBAC step checks what deciding needs, Approval:Approve, so a caller
    // without it hears that first.
    spec.access =
        ToolAccess{Permission{Securable::kApproval, Operation::kApprove}, AccessScope::kFleet, ""};
    spec.checked_handler = [&identity,
                            &clock](const ToolCall& call) -> std::variant<json, ToolFailure> {
        const std::string id = call.arguments.at("approval_id").get<std::string>();
        // Over MCP the policy always finds a gap: no MCP caller is an
        // interactive session with a fresh MFA proof.
        const std::string reason = access::approver_assurance_gap(
            call.principal, access::DecisionSurface::kMcp, identity.mfa(), clock.now_ms());
        ToolFailure refusal;
        refusal.status = Status::PermissionDenied("approver_assurance_required:" + reason);
        refusal.remediation = "a person must decide approval " + id +
                              " on the dashboard's Approvals page, or with POST " +
                              approval::status_url(id) +
                              "/approve (or /reject) from an interactive web "
                              "session with a fresh MFA proof";
        refusal.audit_detail = "approval_id=" + id + " approver_assurance:" + reason;
        return refusal;
    };
    return spec;
}

}  // namespace

Status register_approval_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    if (deps.approvals != nullptr) {
        YUZU_RETURN_IF_ERROR(tools.add(list_pending_approvals_tool(*deps.approvals, deps.clock)));
    }
    YUZU_RETURN_IF_ERROR(tools.add(decide_tool(deps.identity, deps.clock, true)));
    YUZU_RETURN_IF_ERROR(tools.add(decide_tool(deps.identity, deps.clock, false)));
    return Status::Ok();
}

}  // namespace yuzu::mcp
