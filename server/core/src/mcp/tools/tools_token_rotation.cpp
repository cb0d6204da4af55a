// Token rotation over MCP, twins of POST /api/v1/tokens/{id}/rotate and
// POST /api/v1/tokens/{id}/confirm-rotation (ApiToken:Rotate):
//   rotate_api_token            mints a new secret for one of the caller's
//                               tokens; the old one keeps working until the
//                               rotation is confirmed (or its grace ends)
//   confirm_api_token_rotation  retires the old secret
// Reachable at the operator tier and never approval-gated: an MCP token
// rotates only itself (a token of the same owner may hold more: a plain API
// token has no tier at all), and the new secret carries the same tier,
// roles and expiry, so nothing is gained that the caller did not hold
// already. Without token_id both act on the token making the call.
#include "yuzu/access/permission_check.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/mcp/retry.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const json kTokenIdProperty = {
    {"type", "string"},
    {"pattern", "^[0-9a-f]{24}$"},
    {"description", "the token's id from list_api_tokens; absent = the token making this call"}};

const Permission kRotate{Securable::kApiToken, Operation::kRotate};

ToolSpec rotation_tool(std::string name, std::string title, std::string description) {
    ToolSpec spec;
    spec.name = std::move(name);
    spec.title = std::move(title);
    spec.description = std::move(description);
    spec.input_schema = {{"type", "object"},
                         {"properties", {{"token_id", kTokenIdProperty}}},
                         {"additionalProperties", false}};
    spec.tier_key = kRotate;
    // Parity with the REST routes: the role must grant ApiToken:Rotate, and
    // the store only ever finds tokens the caller owns.
    spec.access = ToolAccess{kRotate, AccessScope::kFleet, ""};
    spec.annotations.read_only = false;
    spec.annotations.destructive = false;
    spec.annotations.idempotent = false;
    spec.describe = [](const ToolCall& call) {
        return "token_id=" + call.arguments.value("token_id", call.principal.token_id);
    };
    return spec;
}

// The token a call names, or the one it came in with.
Result<std::string> target_token(const ToolCall& call) {
    if (call.arguments.contains("token_id")) {
        std::string id = call.arguments.at("token_id").get<std::string>();
        YUZU_RETURN_IF_ERROR(access::require_mcp_token_acts_on_itself(call.principal, id));
        return id;
    }
    if (call.principal.token_id.empty()) {
        return Status::InvalidArgument(
            "token_id is required: this call was not made with an API token");
    }
    return call.principal.token_id;
}

// Store faults carry the short retry the REST routes' Retry-After: 2 gives.
ToolFailure to_failure(const Status& st) {
    ToolFailure failure;
    failure.status = st;
    if (st.code() == StatusCode::kUnavailable || st.code() == StatusCode::kResourceExhausted) {
        failure.retry_after_ms = kMcpStoreFaultShortRetryMs;
    } else if (st.code() == StatusCode::kFailedPrecondition) {
        // Revoked, expired, or no rotation pending: the token's state, not
        // a missing permission.
        failure.remediation =
            "check the token with list_api_tokens; rotate it first, or create a new token";
    }
    return failure;
}

ToolSpec rotate_api_token_tool(auth::Identity& identity) {
    ToolSpec spec = rotation_tool(
        "rotate_api_token", "Rotate an API token",
        "Mints a new secret for one of the caller's own API or MCP tokens and returns it once. "
        "The old secret keeps working until confirm_api_token_rotation (or until the rotation "
        "grace period ends), so a client can switch without a gap. Tier, roles and expiry are "
        "unchanged.");
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"token_id", {{"type", "string"}}},
                            {"token", {{"type", "string"}}},
                            {"rotation_pending", {{"type", "boolean"}}},
                            {"expires_at", {{"type", "integer"}}}}},
                          {"required", {"token_id", "token"}}};
    spec.checked_handler = [&identity](const ToolCall& call) -> std::variant<json, ToolFailure> {
        auto id = target_token(call);
        if (!id.ok()) return to_failure(id.status());
        auto rotated = identity.tokens().rotate(*id, call.principal.username);
        if (!rotated.ok()) return to_failure(rotated.status());
        return json{{"token_id", rotated->info.id},
                    {"token", rotated->secret},
                    {"rotation_pending", rotated->info.rotation_pending},
                    {"expires_at", rotated->info.expires_at_s}};
    };
    return spec;
}

ToolSpec confirm_rotation_tool(auth::Identity& identity) {
    ToolSpec spec = rotation_tool(
        "confirm_api_token_rotation", "Confirm an API token rotation",
        "Retires the old secret of one of the caller's tokens after rotate_api_token: from now "
        "on only the new secret authenticates. Call it with the new secret once the client uses "
        "it.");
    spec.output_schema = {
        {"type", "object"},
        {"properties", {{"confirmed", {{"type", "boolean"}}}, {"token_id", {{"type", "string"}}}}},
        {"required", {"confirmed", "token_id"}}};
    spec.checked_handler = [&identity](const ToolCall& call) -> std::variant<json, ToolFailure> {
        auto id = target_token(call);
        if (!id.ok()) return to_failure(id.status());
        const Status st = identity.tokens().confirm_rotation(*id, call.principal.username);
        if (!st.ok()) return to_failure(st);
        return json{{"confirmed", true}, {"token_id", *id}};
    };
    return spec;
}

}  // namespace

Status register_token_rotation_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    YUZU_RETURN_IF_ERROR(tools.add(rotate_api_token_tool(deps.identity)));
    YUZU_RETURN_IF_ERROR(tools.add(confirm_rotation_tool(deps.identity)));
    return Status::Ok();
}

}  // namespace yuzu::mcp
