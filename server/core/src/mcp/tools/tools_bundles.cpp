// MCP tools over bundles: execute_bundle and get_bundle_result. Twins of
// POST /api/v1/bundles and GET /api/v1/bundles/{id}.
//
// A bundle is 1–32 plugin actions run on one agent; each step is its own
// execution and writes its own audit row bundle.<plugin>.<action>. Only the
// dispatcher (or an administrator) reads the result; anyone else gets the
// same -32602 "bundle not found" as an unknown id.
#include "execution_tool_support.hpp"
#include "fleet_tool_support.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/execution/execution_json.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/fleet/agent_visibility.hpp"
#include "yuzu/mcp/bridge/call_stream.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kExecute{Securable::kExecution, Operation::kExecute};
const Permission kResponseRead{Securable::kResponse, Operation::kRead};

const json kNameSchema = {{"type", "string"}, {"pattern", "^[A-Za-z0-9_]{1,64}$"}};

// The steps as the service takes them: names lower-cased.
std::vector<execution::BundleStep> parse_steps(const json& steps) {
    std::vector<execution::BundleStep> out;
    for (size_t i = 0; i < steps.size(); ++i) {
        const json& step = steps[i];
        execution::BundleStep s;
        s.plugin = lower_ascii(step.at("plugin").get<std::string>());
        s.action = lower_ascii(step.at("action").get<std::string>());
        const json params = step.value("params", json::object());
        s.params_json = dump_json(params);
        out.push_back(std::move(s));
    }
    return out;
}

ToolSpec execute_bundle_tool(const ExecutionToolDeps& deps) {
    ToolSpec spec;
    spec.name = "execute_bundle";
    spec.title = "Run a bundle of instructions on one agent";
    spec.description =
        "Runs 1 to 32 plugin actions (steps, each {plugin, action, params}) on one agent and "
        "returns at once with a bundle_id; get_bundle_result collates the answers in request "
        "order. Each step's params must match its definition's parameter_schema. An offline "
        "agent makes every step dispatch_failed. With _meta.progressToken, "
        "notifications/progress count steps settled.";
    json step = {
        {"type", "object"},
        {"properties",
         {{"plugin", kNameSchema},
          {"action", kNameSchema},
          {"params",
           {{"type", "object"}, {"maxProperties", static_cast<int>(execution::kMaxParams)}}}}},
        {"required", {"plugin", "action"}},
        {"additionalProperties", false}};
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"agent_id", kAgentIdSchema},
                           {"steps",
                            {{"type", "array"},
                             {"items", step},
                             {"minItems", 1},
                             {"maxItems", static_cast<int>(execution::kMaxBundleSteps)}}}}},
                         {"required", {"agent_id", "steps"}},
                         {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"bundle_id", {{"type", "string"}}},
                            {"agent_id", {{"type", "string"}}},
                            {"expected", {{"type", "integer"}}},
                            {"dispatched", {{"type", "integer"}}}}},
                          {"required", {"bundle_id", "agent_id", "expected"}}};
    spec.annotations.read_only = false;
    spec.annotations.destructive = true;
    spec.annotations.idempotent = false;
    spec.reports_progress = true;
    spec.tier_key = kExecute;
    spec.access = ToolAccess{kExecute, AccessScope::kAgents, "agent_id"};
    // Before the approval gate: every step's definition and parameter schema.
    // Before the approval gate: the caller may run instructions on the agent
    // (dispatch authorization), then every step's definition and parameter
    // schema.
    spec.precheck = [deps](const ToolCall& call) -> Status {
        YUZU_RETURN_IF_ERROR(access::require_visible_agent(
            deps.identity.authorizer(), deps.fleet, call.principal, kExecute,
            call.arguments.at("agent_id").get<std::string>()));
        return as_argument_error(
            deps.executions.bundles().check_steps(parse_steps(call.arguments.at("steps"))));
    };
    spec.handler = [deps](const ToolCall& call) -> Result<json> {
        const std::string agent_id = call.arguments.at("agent_id").get<std::string>();
        execution::BundleRequest request;
        request.agent_id = agent_id;
        request.steps = parse_steps(call.arguments.at("steps"));
        request.requester = call.principal.username;
        auto dispatched = deps.executions.bundles().execute(request);
        if (!dispatched.ok()) return dispatched.status();
        // One audit row per step, with the execution it became.
        auto collated =
            deps.executions.bundles().get(dispatched->bundle_id, call.principal.username, true);
        if (collated.ok()) {
            if (call.stream) {
                std::vector<std::string> followed;
                for (const auto& s : collated->steps) {
                    if (!s.execution_id.empty()) followed.push_back(s.execution_id);
                }
                call.stream->follow(followed);
            }
            for (const auto& s : collated->steps) {
                const bool sent = s.state != "dispatch_failed";
                audit_row(deps.audit, call, "bundle." + s.plugin + "." + s.action, "agent",
                          agent_id, sent ? "success" : "failure",
                          std::string(sent ? "dispatched" : "dispatch_failed") + " bundle_id=" +
                              dispatched->bundle_id + " step=" + std::to_string(s.index) +
                              " execution_id=" + s.execution_id +
                              (s.error.empty() ? "" : " error=" + s.error));
            }
        } else {
            audit_row(
                deps.audit, call, "bundle.dispatch", "agent", agent_id, "error",
                "bundle_id=" + dispatched->bundle_id +
                    " steps could not be read back for the audit: " + collated.status().message());
        }
        return json{{"bundle_id", dispatched->bundle_id},
                    {"agent_id", dispatched->agent_id},
                    {"expected", dispatched->expected},
                    {"dispatched", dispatched->dispatched}};
    };
    return spec;
}

ToolSpec get_bundle_result_tool(const ExecutionToolDeps& deps) {
    ToolSpec spec;
    spec.name = "get_bundle_result";
    spec.title = "Bundle result";
    spec.description =
        "The collated result of a bundle, steps in request order, each with its state "
        "(pending, responded, dispatch_failed, timed_out), the agent's status and output. "
        "complete means no step is pending; compare succeeded with expected for success. "
        "While steps are pending the answer has ready:false and retry_after_ms.";
    spec.input_schema = {
        {"type", "object"},
        {"properties", {{"bundle_id", {{"type", "string"}, {"minLength", 1}, {"maxLength", 64}}}}},
        {"required", {"bundle_id"}},
        {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties",
         {{"bundle_id", {{"type", "string"}}},
          {"complete", {{"type", "boolean"}}},
          {"received", {{"type", "integer"}}},
          {"succeeded", {{"type", "integer"}}},
          {"expected", {{"type", "integer"}}},
          {"steps", {{"type", "array"}}},
          {"ready", {{"type", "boolean"}}},
          {"retry_after_ms", {{"type", "integer"}}}}},
        {"required",
         {"bundle_id", "complete", "received", "succeeded", "expected", "steps", "ready"}}};
    spec.tier_key = kResponseRead;
    // Per agent: the bundle's agent is checked against the view below, and an
    // invisible bundle reads as unknown.
    spec.access = ToolAccess{kResponseRead, AccessScope::kAgents, ""};
    spec.handler = [deps](const ToolCall& call) -> Result<json> {
        const std::string id = call.arguments.at("bundle_id").get<std::string>();
        const Status missing = Status::NotFound("bundle not found");
        const bool admin = access::is_administrator(deps.identity.rbac(), call.principal);
        auto bundle = deps.executions.bundles().get(id, call.principal.username, admin);
        bool visible = bundle.ok();
        if (visible) {
            visible = execution::in_view(call.view, bundle->agent_id);
        } else if (bundle.status().code() != StatusCode::kNotFound) {
            return bundle.status();
        }
        if (!visible) {
            // Someone else's bundle reads like an unknown one; only the audit
            // trail says it exists.
            if (deps.executions.bundles().get(id, call.principal.username, true).ok()) {
                audit_row(deps.audit, call, "bundle.read", "bundle", id, "denied",
                          "not the bundle's owner");
            }
            deps.polls.count("get_bundle_result", "not_found");
            return missing;
        }
        json out = execution::to_json(*bundle);
        add_poll_verdict(out, deps.polls, "get_bundle_result", bundle->complete);
        return out;
    };
    return spec;
}

}  // namespace

Status register_bundle_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    auto d = execution_tool_deps(deps);
    if (!d) return Status::Ok();
    YUZU_RETURN_IF_ERROR(tools.add(execute_bundle_tool(*d)));
    return tools.add(get_bundle_result_tool(*d));
}

}  // namespace yuzu::mcp
