// Private to the MCP module: what the instruction, execution, response,
// bundle and quarantine tools share — their dependencies, the poll verdict
// of the three result-poll tools (get_execution_status, query_responses,
// get_bundle_result) and its counter, execution visibility, parameter
// checks and the per-execution audit row.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "yuzu/access/agent_scope.hpp"
#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/execution/execution_access.hpp"
#include "yuzu/execution/execution_tracker.hpp"
#include "yuzu/mcp/tool.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::audit {
class AuditLog;
}
namespace yuzu::auth {
class Identity;
}
namespace yuzu::execution {
class Executions;
class DefinitionStore;
}  // namespace yuzu::execution
namespace yuzu::fleet {
class Fleet;
}
namespace yuzu::metrics {
class Registry;
class Counter;
template <typename T>
class Family;
}  // namespace yuzu::metrics

namespace yuzu::mcp {

// Counts yuzu_mcp_poll_total{tool,result}: result is ready, not_ready or
// not_found, one per served verdict (pre-verdict denials are not counted).
// Without a registry it counts nothing. Safe from any thread.
class PollCounter {
  public:
    explicit PollCounter(metrics::Registry* registry);
    void count(std::string_view tool, std::string_view result) const;

  private:
    metrics::Family<metrics::Counter>* family_ = nullptr;
};

struct ExecutionToolDeps {
    auth::Identity& identity;
    fleet::Fleet& fleet;
    execution::Executions& executions;
    audit::AuditLog& audit;
    PollCounter polls;
};

// nullopt when the catalogue has no fleet or no executions (the tools are
// then not offered).
std::optional<ExecutionToolDeps> execution_tool_deps(const CatalogueDeps& deps);

// Adds the poll verdict to a result-poll tool's payload: ready, and when not
// ready retry_after_ms = kMcpResultPollRetryMs; counts it.
void add_poll_verdict(nlohmann::json& payload, const PollCounter& polls, std::string_view tool,
                      bool ready);

// The execution when `who` may see it through its view for `what`;
// NotFound "execution not found: <id>" for unknown and invisible alike.
using access::VisibleExecution;
Result<VisibleExecution> visible_execution(const ExecutionToolDeps& deps,
                                           const auth::Principal& who, auth::Permission what,
                                           const std::string& execution_id,
                                           const access::AgentPage& page = {});

// A pre-mint refusal of the instruction itself as the -32602 the seed asks
// for: a disabled definition (FailedPrecondition) is, to the caller, an
// argument that names nothing runnable.
Status as_argument_error(Status s);

// One audit row per execution: execution.dispatch, target the execution id.
// "failure" when no agent was reached. A failed write is logged.
void audit_dispatch(audit::AuditLog& audit, const ToolCall& call,
                    const execution::DispatchResult& result);

// A domain audit row written by a tool handler (bundle steps).
void audit_row(audit::AuditLog& audit, const ToolCall& call, const std::string& action,
               const std::string& target_type, const std::string& target_id,
               const std::string& result, const std::string& detail);

// Lower-cases ASCII letters (plugin and action names are lower-case).
std::string lower_ascii(std::string text);

}  // namespace yuzu::mcp
