// GET /api/v1/audit: the filtered, paged audit trail (AuditLog:Read). Each
// read is itself audited: one audit.read row (yuzu/audit/audit_read.hpp).
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>

#include "route_registry.hpp"
#include "yuzu/audit/audit_json.hpp"
#include "yuzu/audit/audit_log.hpp"
#include "yuzu/audit/audit_read.hpp"

namespace yuzu::web {
namespace {

// Reads query parameter `key` as a non-negative integer when present; on a
// bad value sets `error` (if not set already) and leaves `out` alone.
void int_param(const httplib::Request& req, const char* key, int64_t& out, std::string& error) {
    if (!req.has_param(key)) return;
    const std::string v = req.get_param_value(key);
    int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n < 0) {
        if (error.empty()) {
            error = std::string("query parameter '") + key + "' must be a non-negative integer";
        }
        return;
    }
    out = n;
}

// Every read leaves one audit.read row naming its filter (audit_read.hpp),
// denied and failed reads included. The row is written after the query, so
// the page never holds it.
void query_audit(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who) {
    audit::AuditQuery q;
    q.principal = req.get_param_value("principal");
    q.action = req.get_param_value("action");
    q.target_type = req.get_param_value("target_type");
    q.target_id = req.get_param_value("target_id");
    q.result = req.get_param_value("result");
    q.cursor = req.get_param_value("cursor");
    std::string bad_param;
    int64_t since_s = 0;
    int64_t until_s = 0;
    int64_t limit = audit::kDefaultQueryLimit;
    int_param(req, "since", since_s, bad_param);
    int_param(req, "until", until_s, bad_param);
    int_param(req, "limit", limit, bad_param);
    // Bounds past any real time would overflow as milliseconds.
    constexpr int64_t kMaxSeconds = INT64_MAX / 1000;
    if (bad_param.empty() && (since_s > kMaxSeconds || until_s > kMaxSeconds)) {
        bad_param = "'since' and 'until' are epoch seconds";
    }
    q.since_ms = std::min(since_s, kMaxSeconds) * 1000;
    q.until_ms = std::min(until_s, kMaxSeconds) * 1000;
    q.limit = static_cast<int>(std::min<int64_t>(limit, audit::kMaxQueryLimit));
    const auto record = [&](const std::string& result, const std::string& error) {
        audit_request(ctx, req, res, &who, std::string(audit::kAuditReadAction),
                      std::string(audit::kAuditReadTargetType), "", result,
                      audit::audit_read_detail(q, error));
    };

    // The permission first: a caller who may not read learns nothing more.
    if (Status st =
            require_permission(ctx, who, {auth::Securable::kAuditLog, auth::Operation::kRead});
        !st.ok()) {
        record(audit_result_for(st), st.message());
        write_status(res, st);
        return;
    }
    if (!bad_param.empty()) {
        record("failure", bad_param);
        http::write_error(res, 400, bad_param);
        return;
    }
    auto page = ctx.audit.query(q);
    if (!page.ok()) {
        record(audit_result_for(page.status()), page.status().message());
        write_status(res, page.status());
        return;
    }
    record("success", "");
    nlohmann::json events = nlohmann::json::array();
    for (const auto& e : page->events) events.push_back(audit::to_json(e));
    nlohmann::json out = {{"events", events}, {"next_cursor", nullptr}};
    if (!page->next_cursor.empty()) out["next_cursor"] = page->next_cursor;
    http::write_json(res, 200, out);
}

}  // namespace

void register_audit_routes(http::HttpServer& server, const WebContext& ctx) {
    server.get("/api/v1/audit", "/api/v1/audit", with_principal(ctx, query_audit));
}

}  // namespace yuzu::web
