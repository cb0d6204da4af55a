#include "yuzu/web/web_context.hpp"

#include <spdlog/spdlog.h>

#include "yuzu/access/permission_check.hpp"
#include "yuzu/audit/audit_log.hpp"
#include "yuzu/auth/identity.hpp"

namespace yuzu::web {

http::Handler authed(const WebContext& ctx, AuthedHandler fn) {
    return [&ctx, fn = std::move(fn)](const httplib::Request& req, httplib::Response& res) {
        http::AuthFailure failure = http::AuthFailure::kNone;
        auto who = http::authenticate(req, ctx.resolver, true, &failure);
        if (!who.ok()) {
            http::write_unauthorized(res, failure, who.status().message());
            return;
        }
        if (http::csrf_rejected(req, *who)) {
            audit_request(ctx, req, res, &who->principal, "auth.csrf_rejected", "route", req.path,
                          "denied");
            http::write_error(res, 403, "missing or wrong X-CSRF-Token");
            return;
        }
        fn(req, res, *who);
    };
}

Status require_permission(const WebContext& ctx, const auth::Principal& who,
                          auth::Permission what) {
    return access::require_permission(ctx.identity.authorizer(), who, what);
}

void audit_request(const WebContext& ctx, const httplib::Request& req, const httplib::Response& res,
                   const auth::Principal* who, const std::string& action,
                   const std::string& target_type, const std::string& target_id,
                   const std::string& result, const std::string& detail) {
    audit::AuditEvent ev;
    ev.principal = who != nullptr ? who->username : "";
    ev.principal_kind =
        who != nullptr ? std::string(auth::principal_kind_name(who->kind)) : "anonymous";
    ev.action = action;
    ev.target_type = target_type;
    ev.target_id = target_id;
    ev.detail = detail;
    ev.source_ip = req.remote_addr;
    ev.user_agent = req.get_header_value("User-Agent");
    ev.result = audit::parse_audit_result(result).value_or(audit::AuditResult::kError);
    ev.correlation_id = http::correlation_id_of(res);
    if (Status s = ctx.audit.record(std::move(ev)); !s.ok()) {
        spdlog::error("correlation_id={} audit write for {} failed: {}",
                      http::correlation_id_of(res), action, s.message());
    }
}

void write_status(httplib::Response& res, const Status& status) {
    http::write_error(res, http_status_for(status.code()), status.message());
}

}  // namespace yuzu::web
