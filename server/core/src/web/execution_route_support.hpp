// Private to the web module: what the execution-related route files
// (definitions, executions, responses, bundles, quarantine, events) share —
// execution visibility and query helpers. The access rules themselves are
// in route_access.hpp, over the access layer.
#pragma once

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "route_access.hpp"
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

// The execution when `who` may see it through its view for `what`;
// NotFound "execution not found: <id>" for unknown and invisible alike.
Result<access::VisibleExecution> visible_execution(const WebContext& ctx,
                                                   const auth::Principal& who,
                                                   auth::Permission what,
                                                   const std::string& execution_id);

std::string lower_ascii(std::string text);

}  // namespace yuzu::web
