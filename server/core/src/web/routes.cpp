#include "yuzu/web/routes.hpp"

#include "dashboard_routes.hpp"
#include "route_registry.hpp"
#include "yuzu/common/json_parse.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/web/web_context.hpp"

namespace yuzu::web {

void register_rest_routes(http::HttpServer& server, const WebContext& ctx) {
    register_session_routes(server, ctx);
    register_token_routes(server, ctx);
    register_user_routes(server, ctx);
    register_rbac_routes(server, ctx);
    register_group_routes(server, ctx);
    register_audit_routes(server, ctx);
    register_mfa_routes(server, ctx);
    register_approval_routes(server, ctx);
    register_fleet_routes(server, ctx);
    register_definition_routes(server, ctx);
    register_execution_routes(server, ctx);
    register_response_routes(server, ctx);
    register_bundle_routes(server, ctx);
    register_quarantine_routes(server, ctx);
    register_events_routes(server, ctx);
    register_compliance_routes(server, ctx);
    register_schedule_routes(server, ctx);
    register_pki_routes(server, ctx);
    register_dashboard_routes(server, ctx);
}

std::optional<nlohmann::json> parse_json_body(const httplib::Request& req, httplib::Response& res) {
    if (req.body.empty()) return nlohmann::json::object();
    auto body = parse_json(req.body);
    if (!body.ok()) {
        http::write_error(res, 400,
                          "the request body must be a JSON object: " + body.status().message());
        return std::nullopt;
    }
    if (!body->is_object()) {
        http::write_error(res, 400, "the request body must be a JSON object");
        return std::nullopt;
    }
    return std::move(body).value();
}

bool read_string(const nlohmann::json& body, const char* key, std::string& out, bool required,
                 httplib::Response& res) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null()) {
        if (!required) return true;
        http::write_error(res, 400, std::string("missing field '") + key + "'");
        return false;
    }
    if (!it->is_string()) {
        http::write_error(res, 400, std::string("field '") + key + "' must be a string");
        return false;
    }
    out = it->get<std::string>();
    return true;
}

bool read_int(const nlohmann::json& body, const char* key, int64_t& out, bool required,
              httplib::Response& res) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null()) {
        if (!required) return true;
        http::write_error(res, 400, std::string("missing field '") + key + "'");
        return false;
    }
    if (!it->is_number_integer()) {
        http::write_error(res, 400, std::string("field '") + key + "' must be an integer");
        return false;
    }
    out = it->get<int64_t>();
    return true;
}

bool permitted(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
               const auth::Principal& who, auth::Permission what, const std::string& action,
               const std::string& target_type, const std::string& target_id) {
    Status st = require_permission(ctx, who, what);
    if (st.ok()) return true;
    audit_request(ctx, req, res, &who, action, target_type, target_id, audit_result_for(st),
                  st.message());
    write_status(res, st);
    return false;
}

std::optional<std::string> query_param(const httplib::Request& req, const char* name) {
    if (!req.has_param(name)) return std::nullopt;
    return req.get_param_value(name);
}

int64_t query_limit(const httplib::Request& req, httplib::Response& res, int64_t fallback,
                    int64_t max) {
    if (!req.has_param("limit")) return fallback;
    const std::string raw = req.get_param_value("limit");
    char* end = nullptr;
    const long long v = std::strtoll(raw.c_str(), &end, 10);
    if (raw.empty() || *end != '\0' || v < 1 || v > max) {
        http::write_error(res, 400, "limit must be an integer from 1 to " + std::to_string(max));
        return -1;
    }
    return v;
}

std::string audit_result_for(const Status& status) {
    return std::string(yuzu::audit_result_for(status.code()));
}

}  // namespace yuzu::web
