// ToolSpec: one MCP tool, declared once beside its domain service — name,
// schemas, annotations, tier key, RBAC permission and scope, approval hooks
// and handler side by side. tools/list, the tier check, the approval gate and the docs table
// are all read from these declarations.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>

#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/rbac.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::jsonschema {
class JsonSchema;
}

namespace yuzu::mcp {

class CallStream;

struct ToolAnnotations {
    bool read_only = true;
    bool destructive = false;
    bool idempotent = true;
    bool open_world = false;
};

// Where a tool's permission applies; the pipeline's RBAC step enforces it,
// so a handler never checks permissions by hand.
enum class AccessScope {
    // The permission held fleet-wide (a global role).
    kFleet,
    // The permission held per agent. When the `target` argument names an
    // agent the caller must hold it there (an agent outside the caller's view
    // reads as unknown); the handler gets the caller's view, possibly empty,
    // in ToolCall::view and works inside it.
    kAgents,
    // As kAgents, and the caller must hold the permission on at least one
    // agent (fleet-wide counts, dispatches): an empty view is refused.
    kView,
    // The permission held fleet-wide, or the ITServiceOwner role on the
    // management group the `target` argument names (the compound gate).
    kGroup,
    // Only the caller's own objects or rights; no role is needed beyond
    // what the tier allows (check_permission, the caller's own tokens).
    kSelf,
};

std::string_view access_scope_name(AccessScope scope);

struct ToolAccess {
    auth::Permission permission;
    AccessScope scope = AccessScope::kFleet;
    std::string target;  // kAgents / kGroup: the argument naming the agent or group
};

// What a handler sees of one tools/call.
struct ToolCall {
    const auth::Principal& principal;
    const nlohmann::json& arguments;  // schema-validated; a top-level approval_id removed
    const std::string& correlation_id;
    const std::string& source_ip;
    // kAgents / kView tools: the agents on which the caller holds the
    // permission (nullopt = fleet-wide), filled by the access step. Until then,
    // and for every other scope, it is the empty set: no agent.
    std::optional<std::set<std::string>> view = std::set<std::string>{};
    // Progress and log messages to the caller while the handler runs, and
    // the executions it dispatched (bridge/call_stream.hpp). Null outside an
    // MCP session.
    CallStream* stream = nullptr;
    // What the handler adds to the call's success audit row (e.g. whether a
    // cache answered; no caller text): at most 256 bytes are kept, control
    // bytes replaced. Null outside the pipeline.
    std::string* audit_note = nullptr;
};

// A handler failure that carries a remediation for the client. A plain
// Status maps by code (InvalidArgument/NotFound → -32602, PermissionDenied →
// -32003, Unavailable → -32603 with a retry, Internal → -32603).
struct ToolFailure {
    Status status;
    std::string remediation;                // "" = the default for the code
    std::optional<int64_t> retry_after_ms;  // a named constant from retry.hpp, or null
    std::string audit_detail;               // "" = the status message
};

using ToolHandler = std::function<Result<nlohmann::json>(const ToolCall&)>;
// A handler that returns the whole MCP CallToolResult ({content, isError,
// structuredContent?}) itself, for tools whose output is not structured data
// (images, audio, embedded resources) or that report a tool-level error
// (isError: true). The pipeline passes it through unchanged.
using ToolContentHandler = std::function<Result<nlohmann::json>(const ToolCall&)>;
// A handler whose failure carries its own remediation, retry hint and audit
// detail (e.g. approve_request's approver_assurance_required refusal).
using ToolCheckedHandler =
    std::function<std::variant<nlohmann::json, ToolFailure>(const ToolCall&)>;
// A check of the arguments that needs the services (a definition exists,
// params match its schema, the caller may dispatch there), run before the
// approval gate so nothing is minted for a call that cannot run. Not ok →
// the Status's JSON-RPC code, nothing minted, audited by the one table.
using ToolPrecheck = std::function<Status(const ToolCall&)>;
// A recall's pre-consume precondition: re-checks live state right before an
// approved ticket is consumed. Not ok → -32003 "approval cannot be redeemed
// right now: <message>", and the ticket stays approved and recallable.
using ToolPrecondition = std::function<Status(const ToolCall&)>;

struct ToolSpec {
    std::string name;
    std::string title;
    std::string description;
    nlohmann::json input_schema;   // JSON Schema 2020-12, an object schema
    nlohmann::json output_schema;  // null when the tool declares none
    ToolAnnotations annotations;
    // The security registration: the (securable type, operation) pair the
    // tier policy and the approval decision read. A tool without one is
    // refused at call time (fail closed).
    std::optional<auth::Permission> tier_key;
    // RBAC: the permission and where it applies. A tool without one is
    // refused at call time (fail closed).
    std::optional<ToolAccess> access;
    // Empty = the arguments need no check beyond the inputSchema.
    ToolPrecheck precheck;
    // What the call's final audit row adds to its detail (e.g. the filter of
    // an audit-log read); empty = nothing.
    std::function<std::string(const ToolCall&)> describe;
    // Approval-gated recalls only; empty = no precondition beyond the ticket.
    ToolPrecondition precondition;
    // Exactly one of these is set: `handler` (structured result, wrapped by
    // tool_result()), `checked_handler` (the same, with rich failures) or
    // `content_handler` (a complete result object).
    ToolHandler handler;
    ToolCheckedHandler checked_handler;
    ToolContentHandler content_handler;

    // Filled by the catalogue when the tool is added.
    std::shared_ptr<const jsonschema::JsonSchema> compiled_input_schema;
    // The tool reports progress (CallStream::progress or ::follow): a call
    // with _meta.progressToken gets a bridge record, and with an SSE Accept a
    // streamed response. Other tools ignore the token.
    bool reports_progress = false;
    // Client capabilities a call needs (e.g. "sampling"): a 2026 request
    // whose _meta does not declare each one is refused with -32021 before
    // anything runs. Empty for every Yuzu tool (none asks the client).
    std::vector<std::string> required_client_capabilities;

    // Some MCP tier needs approval for this tool, so its inputSchema declares
    // the recall's approval_id, which the pipeline takes out of the arguments.
    bool approval_gated = false;

    bool is_write() const { return !tier_key || tier_key->op != auth::Operation::kRead; }
};

}  // namespace yuzu::mcp
