// MCP tools over the audit log (twin of GET /api/v1/audit). A read leaves an
// audit.read row naming its filter, as the REST route does.
#include <spdlog/spdlog.h>

#include "yuzu/audit/audit_json.hpp"
#include "yuzu/audit/audit_log.hpp"
#include "yuzu/audit/audit_read.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

// The audit.read row of one query_audit_log call (audit_read.hpp).
void record_audit_read(audit::AuditLog& log, const ToolCall& call, const audit::AuditQuery& q,
                       const Status& outcome) {
    audit::AuditEvent ev;
    ev.principal = call.principal.username;
    ev.principal_kind = std::string(auth::principal_kind_name(call.principal.kind));
    ev.action = std::string(audit::kAuditReadAction);
    ev.target_type = std::string(audit::kAuditReadTargetType);
    ev.detail = audit::audit_read_detail(q, outcome.message());
    ev.source_ip = call.source_ip;
    const bool fault =
        outcome.code() == StatusCode::kInternal || outcome.code() == StatusCode::kUnavailable;
    ev.result = outcome.ok() ? audit::AuditResult::kSuccess
                : fault      ? audit::AuditResult::kError
                             : audit::AuditResult::kFailure;
    ev.correlation_id = call.correlation_id;
    if (Status s = log.record(std::move(ev)); !s.ok()) {
        spdlog::error("correlation_id={} audit write for audit.read failed: {}",
                      call.correlation_id, s.message());
    }
}

}  // namespace

Status register_audit_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    audit::AuditLog& log = deps.audit;
    ToolSpec spec;
    spec.name = "query_audit_log";
    spec.title = "Query the audit log";
    spec.description =
        "Audit events, newest first, filtered by principal, action (exact, or a prefix ending in "
        "'*', e.g. 'mcp.*'), target, result and time range (epoch seconds). Page with "
        "next_cursor.";
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"principal", {{"type", "string"}, {"maxLength", 256}}},
                           {"action", {{"type", "string"}, {"maxLength", 256}}},
                           {"target_type", {{"type", "string"}, {"maxLength", 256}}},
                           {"target_id", {{"type", "string"}, {"maxLength", 256}}},
                           {"result",
                            {{"type", "string"},
                             {"enum",
                              {"success", "failure", "denied", "error", "pending", "approved",
                               "rejected", "consumed"}}}},
                           {"since", {{"type", "integer"}, {"minimum", 0}}},
                           {"until", {{"type", "integer"}, {"minimum", 0}}},
                           {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 500}}},
                           {"cursor", {{"type", "string"}, {"maxLength", 64}}}}},
                         {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"events", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                            {"next_cursor", {{"type", {"string", "null"}}}}}},
                          {"required", {"events", "next_cursor"}}};
    spec.tier_key = auth::Permission{auth::Securable::kAuditLog, auth::Operation::kRead};
    spec.access = ToolAccess{auth::Permission{auth::Securable::kAuditLog, auth::Operation::kRead},
                             AccessScope::kFleet, ""};
    spec.handler = [&log](const ToolCall& call) -> Result<nlohmann::json> {
        const auto& a = call.arguments;
        audit::AuditQuery q;
        q.principal = a.value("principal", "");
        q.action = a.value("action", "");
        q.target_type = a.value("target_type", "");
        q.target_id = a.value("target_id", "");
        q.result = a.value("result", "");
        q.since_ms = a.value("since", int64_t{0}) * 1000;
        q.until_ms = a.value("until", int64_t{0}) * 1000;
        q.limit = a.value("limit", 50);
        q.cursor = a.value("cursor", "");
        auto page = log.query(q);
        // After the query, so the page never holds it; the pipeline's
        // mcp.query_audit_log row (same correlation id) does not carry the filter.
        record_audit_read(log, call, q, page.ok() ? Status::Ok() : page.status());
        if (!page.ok()) return page.status();
        nlohmann::json events = nlohmann::json::array();
        for (const auto& e : page->events) events.push_back(audit::to_json(e));
        nlohmann::json out = {{"events", std::move(events)}};
        out["next_cursor"] =
            page->next_cursor.empty() ? nlohmann::json() : nlohmann::json(page->next_cursor);
        return out;
    };
    return tools.add(std::move(spec));
}

}  // namespace yuzu::mcp
