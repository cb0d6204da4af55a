// Private to the web module: the access layer (yuzu/access/) as REST routes
// use it — each helper runs one access rule, and on refusal writes the error
// answer and the route's audit row, then answers false / nullopt.
//
// Per-agent routes check the tier first (a token cannot get around its MCP
// tier by using REST), then RBAC per agent: an agent outside the caller's
// management groups answers exactly like an unknown one.
#pragma once

#include <httplib.h>

#include <optional>
#include <string>

#include "yuzu/access/agent_scope.hpp"
#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/web/web_context.hpp"

namespace yuzu::web {

// The MCP tier and approval half of require_permission(); on refusal writes
// 403 and a denied audit row for `action`.
bool tier_permits(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const auth::Principal& who, auth::Permission what, const std::string& action,
                  const std::string& target_type, const std::string& target_id);

// The caller's view for `what` (nullopt inside = fleet-wide); writes the
// error and answers nullopt when it cannot be computed.
std::optional<access::AgentView> view_or_error(const WebContext& ctx, httplib::Response& res,
                                               const auth::Principal& who, auth::Permission what);

// The tier, then the caller's view for `what`, refused (403, audited) when
// the caller holds `what` on no agent at all.
bool reader_view(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who, auth::Permission what, const std::string& action,
                 const std::string& target_type, access::AgentView& view);

// The tier, then `what` on the agent; an agent the caller may not see reads
// as missing (404 "agent not found"). Writes the error and audits `action`.
bool agent_permitted(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who, auth::Permission what, const std::string& action,
                     const std::string& agent_id);

}  // namespace yuzu::web
