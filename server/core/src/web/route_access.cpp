#include "route_access.hpp"

#include "route_registry.hpp"
#include "yuzu/access/permission_check.hpp"
#include "yuzu/auth/identity.hpp"

namespace yuzu::web {

bool tier_permits(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const auth::Principal& who, auth::Permission what, const std::string& action,
                  const std::string& target_type, const std::string& target_id) {
    Status st = access::check_direct_tier(who, what);
    if (st.ok()) return true;
    audit_request(ctx, req, res, &who, action, target_type, target_id, audit_result_for(st),
                  st.message());
    write_status(res, st);
    return false;
}

std::optional<access::AgentView> view_or_error(const WebContext& ctx, httplib::Response& res,
                                               const auth::Principal& who, auth::Permission what) {
    auto view = execution::agent_view(ctx.identity.authorizer(), *ctx.fleet, who, what);
    if (!view.ok()) {
        write_status(res, view.status());
        return std::nullopt;
    }
    return std::move(view).value();
}

bool reader_view(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who, auth::Permission what, const std::string& action,
                 const std::string& target_type, access::AgentView& view) {
    if (!tier_permits(ctx, req, res, who, what, action, target_type, "")) return false;
    auto visible = access::acting_view(ctx.identity.authorizer(), *ctx.fleet, who, what);
    if (visible.ok()) {
        view = std::move(visible).value();
        return true;
    }
    const Status& st = visible.status();
    if (st.code() == StatusCode::kPermissionDenied) {
        audit_request(ctx, req, res, &who, action, target_type, "", audit_result_for(st),
                      st.message());
    }
    write_status(res, st);
    return false;
}

bool agent_permitted(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who, auth::Permission what, const std::string& action,
                     const std::string& agent_id) {
    if (!tier_permits(ctx, req, res, who, what, action, "agent", agent_id)) return false;
    Status st =
        access::require_visible_agent(ctx.identity.authorizer(), *ctx.fleet, who, what, agent_id);
    if (st.ok()) return true;
    audit_request(ctx, req, res, &who, action, "agent", agent_id, audit_result_for(st),
                  st.message());
    write_status(res, st);
    return false;
}

}  // namespace yuzu::web
