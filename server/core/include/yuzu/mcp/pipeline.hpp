// The tools/call pipeline. Each step is a function with one job, run in this
// order (DESIGN.md, "One tools/call, end to end"):
//
//   1. check_read_only      --mcp-read-only refuses non-read tools     -32004
//   2. check_registration   a tool with no tier key is refused         -32603
//   3. check_tier           tier_allows(tier, type, op)                -32004
//   4. check_arguments      inputSchema validation                     -32602
//   4b. check_precheck      the tool's own argument checks against the
//                           services (definition, parameter schema,
//                           dispatch gates)                            by the Status table
//   5. check_approval       requires_approval → ticket flow            -32006/-32004/-32003
//   6. check_access         the tool's declared permission and scope   -32003 (-32602 for an
//                                                                      agent outside the view)
//   7. the handler          a thrown exception is contained           -32603
//   8. one audit row mcp.<tool> for the outcome, success or denial
//
// Every Status becomes a JSON-RPC error and an audit result through the one
// table in common/status.cpp.
//
// The --mcp-disable kill switch runs earlier, in the transport, before auth.
// The approval gate (approval_gate.cpp) also writes a `pending` row when it
// mints or re-answers a ticket and a `consumed` row when a recall consumes
// one; RBAC runs after the consume, as the seed specifies.
#pragma once

#include <atomic>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "yuzu/auth/principal.hpp"
#include "yuzu/mcp/catalogue.hpp"
#include "yuzu/mcp/jsonrpc.hpp"

namespace yuzu::approval {
class ApprovalManager;
}
namespace yuzu::audit {
class AuditLog;
}
namespace yuzu::auth {
class Authorizer;
class Identity;
}  // namespace yuzu::auth
namespace yuzu::fleet {
class Fleet;
}

namespace yuzu::mcp {

class ToolCallMetrics;

// Kill switches; atomics so an operator toggle takes effect on the next call.
struct McpSettings {
    std::atomic<bool> disabled{false};
    std::atomic<bool> read_only{false};
};

struct RequestInfo {
    std::string correlation_id;
    std::string source_ip;
    std::string user_agent;
};

struct PipelineEnv {
    const ToolCatalogue& tools;
    const McpSettings& settings;
    audit::AuditLog* audit = nullptr;              // null only in stripped harnesses
    const auth::Authorizer* authorizer = nullptr;  // null → every RBAC check denies
    // null → approval-gated calls get -32004 with no approval_id.
    approval::ApprovalManager* approvals = nullptr;
    const ToolCallMetrics* call_metrics = nullptr;  // null → calls are not counted
    // The services the access step needs for group and per-agent scopes;
    // null → tools with those scopes are refused.
    auth::Identity* identity = nullptr;
    fleet::Fleet* fleet = nullptr;
};

// The -32003 messages of the approval gate. kApprovalNotRedeemableMessage is
// one text for rejected, expired, consumed, another surface's, another
// principal's and unknown tickets alike.
inline constexpr std::string_view kApprovalMismatchMessage =
    "approval_id does not match this tool and arguments";
inline constexpr std::string_view kApprovalExpiredMessage =
    "approval expired (past its 7-day lifetime)";
inline constexpr std::string_view kApprovalNotRedeemableMessage =
    "approval_id is not redeemable (rejected, expired, already consumed, or not issued to this "
    "caller for this call)";
inline constexpr std::string_view kApprovalPreconditionPrefix =
    "approval cannot be redeemed right now: ";

// A step's refusal: the JSON-RPC error and what the audit row says.
struct Denial {
    RpcError error;
    std::string audit_result;  // "denied", "failure" or "error"
    std::string audit_detail;
};

std::optional<Denial> check_read_only(const McpSettings& settings, const ToolSpec& tool,
                                      const RequestInfo& info);
std::optional<Denial> check_registration(const ToolSpec& tool, const RequestInfo& info);
std::optional<Denial> check_tier(const ToolSpec& tool, const auth::Principal& who,
                                 const RequestInfo& info);
std::optional<Denial> check_arguments(const ToolSpec& tool, const nlohmann::json& arguments,
                                      const RequestInfo& info);
// `call.arguments` has approval_id removed; `approval_id` is the recall's
// ticket, if any. nullopt: the call goes on (nothing needed approval, or a
// recall's ticket has just been consumed).
std::optional<Denial> check_approval(const PipelineEnv& env, const ToolSpec& tool,
                                     const ToolCall& call,
                                     const std::optional<std::string>& approval_id,
                                     const RequestInfo& info);
std::optional<Denial> check_precheck(const ToolSpec& tool, const ToolCall& call,
                                     const RequestInfo& info);
// Fills call.view for kAgents tools.
std::optional<Denial> check_access(const PipelineEnv& env, const ToolSpec& tool, ToolCall& call,
                                   const RequestInfo& info);

struct CallOutcome {
    std::optional<nlohmann::json> result;  // the tools/call result object
    std::optional<RpcError> error;
    // The result of the call's final audit row ("success", "denied", ...);
    // empty when the call named no catalogued tool.
    std::string audit_result;
};

// Runs steps 1–8 for one tools/call whose params are `params`.
// `stream` (may be null) reaches the handler as ToolCall::stream.
CallOutcome run_tool_call(const PipelineEnv& env, const auth::Principal& who,
                          const nlohmann::json& params, const RequestInfo& info,
                          CallStream* stream = nullptr);

// The result object for a successful call: structuredContent plus its text
// copy in content[0].
nlohmann::json tool_result(nlohmann::json structured);

}  // namespace yuzu::mcp
