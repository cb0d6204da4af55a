// What REST and dashboard route files need: the identity services, the audit
// log, the clock, the listener's TLS state and the login throttle. Built once
// by the app.
#pragma once

#include <functional>
#include <string>

#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/http/authenticator.hpp"
#include "yuzu/http/server.hpp"

namespace yuzu::audit {
class AuditLog;
}
namespace yuzu::auth {
class Identity;
class LoginThrottle;
}  // namespace yuzu::auth
namespace yuzu::fleet {
class Fleet;
}
namespace yuzu::approval {
class ApprovalManager;
}
namespace yuzu::compliance {
class Compliance;
}
namespace yuzu::pki {
class CertificateAuthority;
}
namespace yuzu::schedule {
class Schedules;
}

namespace yuzu::web {

struct ExecutionContext;  // execution_context.hpp

struct WebContext {
    auth::Identity& identity;
    audit::AuditLog& audit;
    const http::CredentialResolver& resolver;
    const Clock& clock;
    bool tls = false;                                // cookies get Secure under TLS
    fleet::Fleet* fleet = nullptr;                   // null in harnesses without a fleet
    approval::ApprovalManager* approvals = nullptr;  // null: approval routes answer 503
    const ExecutionContext* executions = nullptr;    // null: execution routes are not offered
    compliance::Compliance* compliance = nullptr;    // null: policy and DEX routes not offered
    auth::LoginThrottle* login_throttle = nullptr;   // null: POST /login is not throttled
    schedule::Schedules* schedules = nullptr;        // null: schedule routes are not offered
    pki::CertificateAuthority* ca = nullptr;         // null: the /api/v1/pki routes are not offered
};

using AuthedHandler =
    std::function<void(const httplib::Request&, httplib::Response&, const http::Authenticated&)>;

// Authenticates (401 with WWW-Authenticate otherwise), rejects cookie
// requests that change state without the CSRF token (403), then runs `fn`.
http::Handler authed(const WebContext& ctx, AuthedHandler fn);

// The REST permission check, identical to the MCP pipeline's: for MCP tokens
// the tier must allow the operation and it must not need approval (approval
// is an MCP flow), then RBAC. PermissionDenied names what is missing.
Status require_permission(const WebContext& ctx, const auth::Principal& who, auth::Permission what);

// One audit row for a REST action, with the request's correlation id,
// source address and user agent. Never throws; a failed write is logged.
void audit_request(const WebContext& ctx, const httplib::Request& req, const httplib::Response& res,
                   const auth::Principal* who, const std::string& action,
                   const std::string& target_type, const std::string& target_id,
                   const std::string& result, const std::string& detail = "");

// Writes the REST error body for a non-ok Status (code → HTTP status via the
// one table in status.cpp).
void write_status(httplib::Response& res, const Status& status);

}  // namespace yuzu::web
