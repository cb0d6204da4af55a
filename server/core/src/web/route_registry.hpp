// Private to the web module: the per-area REST route registrars that
// register_rest_routes() calls, and the small request helpers they share.
//
// Thread-safety: registration runs once before serving; the handlers it
// installs are called concurrently and keep no state of their own.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/web/web_context.hpp"

namespace yuzu::web {

void register_session_routes(http::HttpServer& server, const WebContext& ctx);
void register_token_routes(http::HttpServer& server, const WebContext& ctx);
void register_user_routes(http::HttpServer& server, const WebContext& ctx);
void register_rbac_routes(http::HttpServer& server, const WebContext& ctx);
void register_group_routes(http::HttpServer& server, const WebContext& ctx);
void register_audit_routes(http::HttpServer& server, const WebContext& ctx);
void register_mfa_routes(http::HttpServer& server, const WebContext& ctx);
void register_approval_routes(http::HttpServer& server, const WebContext& ctx);
void register_fleet_routes(http::HttpServer& server, const WebContext& ctx);
void register_definition_routes(http::HttpServer& server, const WebContext& ctx);
void register_execution_routes(http::HttpServer& server, const WebContext& ctx);
void register_response_routes(http::HttpServer& server, const WebContext& ctx);
void register_bundle_routes(http::HttpServer& server, const WebContext& ctx);
void register_quarantine_routes(http::HttpServer& server, const WebContext& ctx);
void register_events_routes(http::HttpServer& server, const WebContext& ctx);
void register_compliance_routes(http::HttpServer& server, const WebContext& ctx);
void register_schedule_routes(http::HttpServer& server, const WebContext& ctx);
void register_pki_routes(http::HttpServer& server, const WebContext& ctx);

// The request body as a JSON object; an empty body counts as {}. Writes 400
// and answers nullopt when it is not a JSON object.
std::optional<nlohmann::json> parse_json_body(const httplib::Request& req, httplib::Response& res);

// Reads body[key] into out. Absent (or null) leaves out alone and is fine
// unless required. Writes 400 and answers false on a missing required field
// or a value of the wrong type.
bool read_string(const nlohmann::json& body, const char* key, std::string& out, bool required,
                 httplib::Response& res);
bool read_int(const nlohmann::json& body, const char* key, int64_t& out, bool required,
              httplib::Response& res);

// require_permission(); on refusal also records a "denied" audit row for
// action and writes the error. Answers whether the caller may go on.
bool permitted(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
               const auth::Principal& who, auth::Permission what, const std::string& action,
               const std::string& target_type, const std::string& target_id);

// The audit result word for a Status: success, denied (403/401) or failure.
std::string audit_result_for(const Status& status);

std::optional<std::string> query_param(const httplib::Request& req, const char* name);
// ?limit= within 1..max (fallback when absent); writes 400 and answers -1
// when malformed.
int64_t query_limit(const httplib::Request& req, httplib::Response& res, int64_t fallback,
                    int64_t max);

// authed() for handlers written as fn(ctx, req, res, principal).
template <typename Fn>
http::Handler with_principal(const WebContext& ctx, Fn fn) {
    return authed(ctx,
                  [&ctx, fn](const httplib::Request& req, httplib::Response& res,
                             const http::Authenticated& who) { fn(ctx, req, res, who.principal); });
}

}  // namespace yuzu::web
