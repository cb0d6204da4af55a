// Private to the web module: what the execution-related route files
// (definitions, executions, responses, bundles, quarantine, events) share —
// the MCP-tier half of the permission check for per-agent routes, the
// caller's view, execution visibility, parameter checks and query helpers.
//
// Per-agent routes check the tier first (a token cannot get around its MCP
// tier by using REST), then RBAC per agent: an agent or execution outside
// the caller's management groups answers exactly like an unknown one.
#pragma once

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/execution/execution_access.hpp"
#include "yuzu/execution/execution_tracker.hpp"
#include "yuzu/web/execution_context.hpp"
#include "yuzu/web/web_context.hpp"

namespace yuzu::execution {
class Executions;
}

namespace yuzu::web {

// The id patterns of route regexes.
inline constexpr char kAgentIdPattern[] = "([0-9a-f]{32})";
inline constexpr char kExecutionIdPattern[] = "([0-9a-f]{32})";

inline execution::Executions& executions_of(const WebContext& ctx) {
    return ctx.executions->executions;
}

// The MCP tier and approval half of require_permission(); on refusal writes
// 403 and a denied audit row for `action`.
bool tier_permits(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const auth::Principal& who, auth::Permission what, const std::string& action,
                  const std::string& target_type, const std::string& target_id);

// The caller's view for `what`; writes the error and answers nullopt when it
// cannot be computed.
std::optional<execution::AgentView> view_or_error(const WebContext& ctx, httplib::Response& res,
                                                  const auth::Principal& who,
                                                  auth::Permission what);

// Tier, then `what` on the agent; an agent the caller may not see reads as
// missing (404 "agent not found"). Writes the error and audits `action`.
bool agent_permitted(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who, auth::Permission what, const std::string& action,
                     const std::string& agent_id);

struct VisibleExecution {
    execution::ExecutionRecord record;
    std::vector<execution::AgentExecutionState> agents;  // inside the view only
    execution::AgentView view;
};
// NotFound "execution not found: <id>" for an unknown execution and for one
// the caller cannot see through its view for `what`.
Result<VisibleExecution> visible_execution(const WebContext& ctx, const auth::Principal& who,
                                           auth::Permission what, const std::string& execution_id);

// `params` against plugin.action's parameter_schema; a missing definition
// is left to the tracker, which refuses it with its own message.
Status check_definition_params(const WebContext& ctx, const std::string& plugin,
                               const std::string& action, const nlohmann::json& params,
                               std::string_view what);

std::optional<std::string> query_param(const httplib::Request& req, const char* name);
// ?limit= within 1..max (fallback when absent); writes 400 and answers -1
// when malformed.
int64_t query_limit(const httplib::Request& req, httplib::Response& res, int64_t fallback,
                    int64_t max);

std::string lower_ascii(std::string text);
// A global Administrator (reads other principals' bundles).
bool is_administrator(const WebContext& ctx, const auth::Principal& who);

}  // namespace yuzu::web
