// GET /api/v1/audit: the filtered, paged audit trail (AuditLog:Read).
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>

#include "route_registry.hpp"
#include "yuzu/audit/audit_json.hpp"
#include "yuzu/audit/audit_log.hpp"

namespace yuzu::web {
namespace {

// Parses query parameter `key` as a non-negative integer when present.
bool int_param(const httplib::Request& req, const char* key, int64_t& out, httplib::Response& res) {
    if (!req.has_param(key)) return true;
    const std::string v = req.get_param_value(key);
    int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n < 0) {
        http::write_error(
            res, 400, std::string("query parameter '") + key + "' must be a non-negative integer");
        return false;
    }
    out = n;
    return true;
}

void query_audit(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, {auth::Securable::kAuditLog, auth::Operation::kRead},
                   "audit.query", "audit_log", ""))
        return;
    audit::AuditQuery q;
    q.principal = req.get_param_value("principal");
    q.action = req.get_param_value("action");
    q.target_type = req.get_param_value("target_type");
    q.target_id = req.get_param_value("target_id");
    q.result = req.get_param_value("result");
    q.cursor = req.get_param_value("cursor");
    int64_t since_s = 0;
    int64_t until_s = 0;
    int64_t limit = audit::kDefaultQueryLimit;
    if (!int_param(req, "since", since_s, res) || !int_param(req, "until", until_s, res) ||
        !int_param(req, "limit", limit, res))
        return;
    // Bounds past any real time would overflow as milliseconds.
    constexpr int64_t kMaxSeconds = INT64_MAX / 1000;
    if (since_s > kMaxSeconds || until_s > kMaxSeconds) {
        http::write_error(res, 400, "'since' and 'until' are epoch seconds");
        return;
    }
    q.since_ms = since_s * 1000;
    q.until_ms = until_s * 1000;
    q.limit = static_cast<int>(std::min<int64_t>(limit, audit::kMaxQueryLimit));
    auto page = ctx.audit.query(q);
    if (!page.ok()) {
        write_status(res, page.status());
        return;
    }
    nlohmann::json events = nlohmann::json::array();
    for (const auto& e : page->events) events.push_back(audit::to_json(e));
    nlohmann::json out = {{"events", events}, {"next_cursor", nullptr}};
    if (!page->next_cursor.empty()) out["next_cursor"] = page->next_cursor;
    http::write_json(res, 200, out.dump());
}

}  // namespace

void register_audit_routes(http::HttpServer& server, const WebContext& ctx) {
    server.get("/api/v1/audit", "/api/v1/audit", with_principal(ctx, query_audit));
}

}  // namespace yuzu::web
