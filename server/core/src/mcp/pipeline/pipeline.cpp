#include "yuzu/mcp/pipeline.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

#include "pipeline_support.hpp"
#include "yuzu/access/permission_check.hpp"
#include "yuzu/audit/audit_log.hpp"
#include "yuzu/auth/authorizer.hpp"
#include "yuzu/auth/tier_policy.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/jsonschema/json_schema.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/retry.hpp"
#include "yuzu/mcp/tool_call_metrics.hpp"

namespace yuzu::mcp {
namespace {

constexpr char kEscalate[] = "use a higher-tier MCP token, or the REST API / dashboard";

}  // namespace

namespace detail {

Denial make_denial(int code, std::string message, const RequestInfo& info,
                   std::optional<int64_t> retry, const std::string& remediation, std::string result,
                   std::string detail) {
    Denial d;
    d.error.code = code;
    d.error.message = std::move(message);
    d.error.data = error_envelope(info.correlation_id, retry, remediation);
    d.audit_result = std::move(result);
    d.audit_detail = std::move(detail);
    return d;
}

void write_audit(const PipelineEnv& env, const auth::Principal& who, const std::string& tool,
                 const std::string& result, const std::string& detail, const RequestInfo& info) {
    if (env.audit == nullptr) return;
    audit::AuditEvent ev;
    ev.principal = who.username;
    ev.principal_kind = std::string(auth::principal_kind_name(who.kind));
    ev.action = "mcp." + tool;
    ev.target_type = "mcp_tool";
    ev.target_id = tool;
    ev.detail = detail;
    ev.source_ip = info.source_ip;
    ev.user_agent = info.user_agent;
    ev.result = audit::parse_audit_result(result).value_or(audit::AuditResult::kError);
    ev.correlation_id = info.correlation_id;
    if (Status s = env.audit->record(std::move(ev)); !s.ok()) {
        spdlog::error("correlation_id={} audit write for mcp.{} failed: {}", info.correlation_id,
                      tool, s.message());
    }
}

RpcError map_failure(const Status& s, const RequestInfo& info, const std::string& tool) {
    RpcError e;
    e.code = jsonrpc_code_for(s.code());
    e.message = s.message();
    switch (e.code) {
        case kInvalidParams:
            e.data = error_envelope(info.correlation_id, std::nullopt,
                                    "correct the arguments and call again");
            break;
        case kPermissionDenied:
            e.data = error_envelope(info.correlation_id, std::nullopt,
                                    "ask an administrator for the permission, or use the "
                                    "dashboard");
            break;
        default:
            if (s.code() == StatusCode::kUnavailable ||
                s.code() == StatusCode::kResourceExhausted) {
                e.data = error_envelope(info.correlation_id, kMcpStoreFaultRetryMs,
                                        "a store or subsystem is temporarily unavailable; retry "
                                        "after retry_after_ms");
                break;
            }
            // Internals stay in the log, keyed by the correlation id.
            spdlog::error("correlation_id={} tool {} failed: {}", info.correlation_id, tool,
                          s.to_string());
            e.code = kInternalError;
            e.message = "Internal error";
            e.data = error_envelope(info.correlation_id, std::nullopt,
                                    "report the correlation_id to the server operator");
            break;
    }
    return e;
}

std::string audit_result_for(const Status& s) {
    return std::string(yuzu::audit_result_for(s.code()));
}

}  // namespace detail

namespace {

using detail::make_denial;
using detail::write_audit;

// The error for a checked handler's ToolFailure: mapped by its code, with its
// own remediation and retry hint when it carries them.
RpcError map_tool_failure(const ToolFailure& f, const RequestInfo& info, const std::string& tool) {
    RpcError e = detail::map_failure(f.status, info, tool);
    if (!f.remediation.empty()) e.data["remediation"] = f.remediation;
    if (f.retry_after_ms) {
        e.data["retry_after_ms"] = *f.retry_after_ms;
    } else if (f.status.code() == StatusCode::kPermissionDenied) {
        e.data["retry_after_ms"] = nullptr;
    }
    return e;
}

// A copy of `arguments` without the top-level approval_id, and its value.
nlohmann::json split_approval_id(const nlohmann::json& arguments,
                                 std::optional<std::string>& approval_id) {
    auto it = arguments.find("approval_id");
    if (it == arguments.end()) return arguments;
    if (it->is_string()) approval_id = it->get<std::string>();
    nlohmann::json rest = arguments;
    rest.erase("approval_id");
    return rest;
}

}  // namespace

std::optional<Denial> check_read_only(const McpSettings& settings, const ToolSpec& tool,
                                      const RequestInfo& info) {
    if (!settings.read_only.load() || !tool.is_write()) return std::nullopt;
    return make_denial(kTierDenied, "MCP is in read-only mode", info, std::nullopt,
                       "the operator started yuzu-server with --mcp-read-only; use the REST API "
                       "or dashboard for changes",
                       "denied", "read-only mode");
}

std::optional<Denial> check_registration(const ToolSpec& tool, const RequestInfo& info) {
    if (tool.tier_key) return std::nullopt;
    spdlog::error("correlation_id={} tool {} has no security registration; refusing",
                  info.correlation_id, tool.name);
    return make_denial(
        kInternalError, "tool is not configured for authorization", info, std::nullopt,
        "server misconfiguration; report the correlation_id", "denied",
        "misconfiguration: no security registration correlation_id=" + info.correlation_id);
}

std::optional<Denial> check_tier(const ToolSpec& tool, const auth::Principal& who,
                                 const RequestInfo& info) {
    const auto& key = *tool.tier_key;
    if (auth::tier_allows(who.mcp_tier, key.type, key.op)) return std::nullopt;
    return make_denial(kTierDenied, access::tier_denied_message(who, key), info, std::nullopt,
                       kEscalate, "denied", "tier=" + who.mcp_tier);
}

std::optional<Denial> check_arguments(const ToolSpec& tool, const nlohmann::json& arguments,
                                      const RequestInfo& info) {
    auto violation = tool.compiled_input_schema->validate(arguments);
    if (!violation) return std::nullopt;
    const std::string field =
        violation->instance_path.empty() ? std::string("arguments") : violation->instance_path;
    return make_denial(
        kInvalidParams, "Invalid arguments: " + violation->message, info, std::nullopt,
        "fix '" + field + "' (" + violation->keyword +
            ") to match the tool's inputSchema and call again",
        "denied", "schema: " + violation->message + " correlation_id=" + info.correlation_id);
}

// Takes the result by value: a large one (a page of agent states) moves
// into the envelope instead of being copied.
nlohmann::json tool_result(nlohmann::json structured) {
    // Built member by member: an initializer list would copy every value
    // out of it once more.
    nlohmann::json block = nlohmann::json::object();
    block["type"] = "text";
    block["text"] = dump_json(structured);
    nlohmann::json content = nlohmann::json::array();
    content.push_back(std::move(block));
    nlohmann::json out = nlohmann::json::object();
    out["content"] = std::move(content);
    out["structuredContent"] = std::move(structured);
    out["isError"] = false;
    return out;
}

namespace {

constexpr size_t kMaxAuditNoteBytes = 256;

// Step 7 and the call's final audit row.
void run_handler(const PipelineEnv& env, const auth::Principal& who, const ToolSpec& tool,
                 const ToolCall& call, const RequestInfo& info, const std::string& described,
                 CallOutcome& out) {
    auto detail = [&described](std::string text) {
        if (described.empty()) return text;
        return text.empty() ? described : text + " " + described;
    };
    // A handler's note is bounded and printable whatever it holds.
    auto note = [&call] {
        std::string n = call.audit_note ? call.audit_note->substr(0, kMaxAuditNoteBytes) : "";
        for (char& c : n) {
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
        }
        return n;
    };
    if (tool.checked_handler) {
        auto checked = tool.checked_handler(call);
        if (auto* failure = std::get_if<ToolFailure>(&checked)) {
            out.audit_result = detail::audit_result_for(failure->status);
            write_audit(env, who, tool.name, out.audit_result,
                        detail(failure->audit_detail.empty() ? failure->status.message()
                                                             : failure->audit_detail),
                        info);
            out.error = map_tool_failure(*failure, info, tool.name);
            return;
        }
        write_audit(env, who, tool.name, "success", detail(note()), info);
        out.audit_result = "success";
        out.result = tool_result(std::move(std::get<nlohmann::json>(checked)));
        return;
    }
    Result<nlohmann::json> result =
        tool.content_handler ? tool.content_handler(call) : tool.handler(call);
    if (!result.ok()) {
        const Status& s = result.status();
        out.audit_result = detail::audit_result_for(s);
        write_audit(env, who, tool.name, out.audit_result, detail(s.message()), info);
        out.error = detail::map_failure(s, info, tool.name);
        return;
    }
    if (tool.content_handler) {
        const bool tool_error = result->is_object() && result->value("isError", false);
        out.audit_result = tool_error ? "failure" : "success";
        write_audit(env, who, tool.name, out.audit_result,
                    detail(tool_error ? "tool reported isError" : ""), info);
        out.result = std::move(*result);
        return;
    }
    write_audit(env, who, tool.name, "success", detail(note()), info);
    out.audit_result = "success";
    out.result = tool_result(std::move(*result));
}

// A handler that threw: the client gets -32603 with the envelope, the audit
// log an error row, the operator a log line; nothing leaves the pipeline.
void contain_handler_exception(const PipelineEnv& env, const auth::Principal& who,
                               const ToolSpec& tool, const RequestInfo& info, CallOutcome& out,
                               const char* what) {
    spdlog::error("correlation_id={} tool {} threw: {}", info.correlation_id, tool.name, what);
    out = CallOutcome{};
    out.audit_result = "error";
    write_audit(env, who, tool.name, "error",
                "handler exception correlation_id=" + info.correlation_id, info);
    out.error = RpcError{kInternalError, "Internal error",
                         error_envelope(info.correlation_id, std::nullopt,
                                        "report the correlation_id to the server operator")};
}

// Steps 1–8 of run_tool_call; every return after the tool is known has
// written the call's one final audit row and set out.audit_result.
CallOutcome run_steps(const PipelineEnv& env, const auth::Principal& who,
                      const nlohmann::json& params, const RequestInfo& info, CallStream* stream) {
    CallOutcome out;
    auto name_it = params.find("name");
    if (name_it == params.end() || !name_it->is_string()) {
        out.error = RpcError{kInvalidParams, "tools/call needs params.name (a string)",
                             error_envelope(info.correlation_id, std::nullopt,
                                            "pass the tool name from tools/list")};
        return out;
    }
    const std::string& name = name_it->get_ref<const std::string&>();
    static const nlohmann::json kNoArguments = nlohmann::json::object();
    const nlohmann::json* given = &kNoArguments;
    if (auto a = params.find("arguments"); a != params.end() && !a->is_null()) {
        if (!a->is_object()) {
            out.error = RpcError{kInvalidParams, "params.arguments must be an object",
                                 error_envelope(info.correlation_id, std::nullopt,
                                                "send arguments as a JSON object")};
            return out;
        }
        given = &*a;
    }
    const nlohmann::json& arguments = *given;

    const ToolSpec* tool = env.tools.find(name);
    if (tool == nullptr) {
        write_audit(env, who, name.substr(0, 64), "failure", "unknown tool", info);
        out.error = RpcError{kInvalidParams, "Unknown tool: " + name.substr(0, 64),
                             error_envelope(info.correlation_id, std::nullopt,
                                            "call tools/list for the tools this server offers")};
        return out;
    }

    std::optional<Denial> denial = check_read_only(env.settings, *tool, info);
    if (!denial) denial = check_registration(*tool, info);
    if (!denial) denial = check_tier(*tool, who, info);
    if (!denial) denial = check_arguments(*tool, arguments, info);
    // describe() reads the arguments as the schema typed them: never before.
    const bool arguments_valid = !denial;
    // On a gated tool, approval_id is the recall's ticket: handlers and the
    // ticket's canonical arguments never see it.
    std::optional<std::string> approval_id;
    std::optional<nlohmann::json> without_ticket;
    if (tool->approval_gated) without_ticket = split_approval_id(arguments, approval_id);
    const nlohmann::json& call_arguments = without_ticket ? *without_ticket : arguments;
    ToolCall call{who, call_arguments, info.correlation_id, info.source_ip};
    call.stream = stream;
    std::string audit_note;
    call.audit_note = &audit_note;
    if (!denial) denial = check_precheck(*tool, call, info);
    if (!denial) denial = check_approval(env, *tool, call, approval_id, info);
    if (!denial) denial = check_access(env, *tool, call, info);
    const std::string described =
        tool->describe && arguments_valid ? tool->describe(call) : std::string();
    if (denial) {
        write_audit(
            env, who, tool->name, denial->audit_result,
            described.empty() ? denial->audit_detail : denial->audit_detail + " " + described,
            info);
        out.audit_result = denial->audit_result;
        out.error = std::move(denial->error);
        return out;
    }

    run_handler(env, who, *tool, call, info, described, out);
    return out;
}

// run_steps with every exception contained: a throwing handler, hook or
// service answers -32603 with an `error` audit row for the tool it named.
CallOutcome run_contained(const PipelineEnv& env, const auth::Principal& who,
                          const nlohmann::json& params, const RequestInfo& info,
                          CallStream* stream) {
    const char* what = "a non-standard exception";
    std::string message;
    try {
        return run_steps(env, who, params, info, stream);
    } catch (const std::exception& e) {
        message = e.what();
        what = message.c_str();
    } catch (...) {
    }
    CallOutcome out;
    const ToolSpec* tool = nullptr;
    if (auto n = params.find("name"); n != params.end() && n->is_string()) {
        tool = env.tools.find(n->get<std::string>());
    }
    if (tool != nullptr) {
        contain_handler_exception(env, who, *tool, info, out, what);
    } else {
        spdlog::error("correlation_id={} tools/call threw: {}", info.correlation_id, what);
        out.error = RpcError{kInternalError, "Internal error",
                             error_envelope(info.correlation_id, std::nullopt,
                                            "report the correlation_id to the server operator")};
    }
    return out;
}

}  // namespace

CallOutcome run_tool_call(const PipelineEnv& env, const auth::Principal& who,
                          const nlohmann::json& params, const RequestInfo& info,
                          CallStream* stream) {
    const auto start = std::chrono::steady_clock::now();
    CallOutcome out = run_contained(env, who, params, info, stream);
    if (env.call_metrics != nullptr) {
        if (out.audit_result.empty()) {
            env.call_metrics->observe_unknown_tool();
        } else {
            // A non-empty audit_result means params.name named a catalogued tool.
            env.call_metrics->observe(
                params["name"].get_ref<const std::string&>(), out.audit_result,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
    }
    return out;
}

}  // namespace yuzu::mcp
