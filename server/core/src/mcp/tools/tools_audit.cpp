// MCP tools over the audit log (twin of GET /api/v1/audit). A read's
// mcp.query_audit_log row names its filter, as the REST audit.read row does.
#include "yuzu/audit/audit_json.hpp"
#include "yuzu/audit/audit_log.hpp"
#include "yuzu/audit/audit_read.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

// The filter of one query_audit_log call, as the REST route reads it.
audit::AuditQuery query_of(const nlohmann::json& a) {
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
    return q;
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
    // Reading the audit log is itself audited: the call's mcp.query_audit_log
    // row (success or denial) names the filter, as REST's audit.read row does.
    spec.describe = [](const ToolCall& call) {
        return "filter=" + audit::audit_read_detail(query_of(call.arguments));
    };
    spec.handler = [&log](const ToolCall& call) -> Result<nlohmann::json> {
        auto page = log.query(query_of(call.arguments));
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
