#include "yuzu/mcp/mcp_server.hpp"

#include <algorithm>
#include <cassert>
#include <charconv>

#include "mcp/protocol/modern_results.hpp"
#include "mcp/protocol/tool_list_cache.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/mcp/bridge/call_stream.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/protocol_era.hpp"
#include "yuzu/mcp/session/session.hpp"
#include "yuzu/mcp/session/session_log.hpp"

namespace yuzu::mcp {
namespace {

constexpr size_t kMaxCompletionValues = 100;

// A string member of `obj`, or "" when it is absent or not a string (never
// throws on a hostile type).
std::string string_field(const nlohmann::json& obj, const char* key) {
    auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// One notifications/message per tools/call on the caller's session stream:
// refusals at warning (the default threshold), successes at info.
void log_tool_call(Session& session, CallStream& stream, const nlohmann::json& params,
                   const CallOutcome& outcome, const RequestInfo& info) {
    const LogLevel level =
        outcome.error || outcome.audit_result != "success" ? LogLevel::kWarning : LogLevel::kInfo;
    if (!session.wants_log(level)) return;
    const auto name = params.find("name");
    const std::string tool =
        name != params.end() && name->is_string() ? name->get<std::string>() : std::string();
    const std::string outcome_name = outcome.audit_result.empty() ? "error" : outcome.audit_result;
    nlohmann::json data = {{"event", "tools/call"},
                           {"tool", tool},
                           {"outcome", outcome_name},
                           {"correlation_id", info.correlation_id}};
    if (outcome.error) {
        data["code"] = outcome.error->code;
        data["message"] = outcome.error->message;
    }
    stream.log(level, "yuzu.mcp", std::move(data));
}

RpcError invalid_params(const std::string& message, const RequestInfo& info,
                        const std::string& remediation) {
    return RpcError{kInvalidParams, message,
                    error_envelope(info.correlation_id, std::nullopt, remediation)};
}

// Cursors are opaque to clients; ours is the decimal offset of the next page.
std::variant<size_t, RpcError> parse_cursor(const nlohmann::json& params, const RequestInfo& info) {
    if (!params.is_object()) return size_t{0};
    auto it = params.find("cursor");
    if (it == params.end() || it->is_null()) return size_t{0};
    if (!it->is_string()) {
        return invalid_params("cursor must be a string", info, "pass nextCursor back unchanged");
    }
    const auto& text = it->get_ref<const std::string&>();
    size_t offset = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), offset);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
        return invalid_params("invalid cursor", info, "pass nextCursor back unchanged");
    }
    return offset;
}

template <typename Items, typename ToJson>
std::variant<nlohmann::json, RpcError> paginate(const Items& items, const char* key,
                                                const nlohmann::json& params,
                                                const RequestInfo& info, size_t page_size,
                                                ToJson to_json) {
    auto cursor = parse_cursor(params, info);
    if (auto* err = std::get_if<RpcError>(&cursor)) return *err;
    const size_t offset = std::get<size_t>(cursor);
    if (offset > items.size()) {
        return invalid_params("invalid cursor", info, "pass nextCursor back unchanged");
    }
    nlohmann::json page = nlohmann::json::array();
    const size_t end = std::min(items.size(), offset + page_size);
    for (size_t i = offset; i < end; ++i) page.push_back(to_json(items[i]));
    nlohmann::json result = {{key, std::move(page)}};
    if (end < items.size()) result["nextCursor"] = std::to_string(end);
    return result;
}

}  // namespace

bool McpServer::tool_reports_progress(const std::string& name) const {
    const ToolSpec* tool = tools_.find(name);
    return tool != nullptr && tool->reports_progress;
}

bool is_supported_protocol_version(const std::string& version) {
    return std::find(kSupportedProtocolVersions.begin(), kSupportedProtocolVersions.end(),
                     version) != kSupportedProtocolVersions.end();
}

McpServer::McpServer(const ToolCatalogue& tools, const ResourceCatalogue& resources,
                     const PromptCatalogue& prompts, const McpSettings& settings,
                     audit::AuditLog* audit, const auth::Authorizer* authorizer,
                     McpServerOptions options, approval::ApprovalManager* approvals)
    : tools_(tools),
      resources_(resources),
      prompts_(prompts),
      env_{tools, settings, audit, authorizer, approvals},
      options_(std::move(options)) {
    tool_list_cache_ = std::make_unique<ToolListCache>();
    env_.identity = options_.identity;
    env_.fleet = options_.fleet;
    if (options_.metrics != nullptr) {
        call_metrics_ = std::make_unique<ToolCallMetrics>(tools, *options_.metrics);
        env_.call_metrics = call_metrics_.get();
    }
}

McpServer::~McpServer() = default;

Reply McpServer::handle(const RpcMessage& message, const auth::Principal& who,
                        const RequestInfo& info, const CallContext& ctx) const {
    Reply reply;
    if (message.kind != RpcMessage::Kind::kRequest) return reply;
    reply.kind = Reply::Kind::kJson;
    static const nlohmann::json kNoParams = nlohmann::json::object();
    const nlohmann::json& params = message.params.is_null() ? kNoParams : message.params;
    const std::string& m = message.method;
    const bool modern = ctx.modern != nullptr;
    const auto answer_error = [&](const RpcError& err) {
        reply.negotiated_version.clear();
        reply.error_code = err.code;
        reply.body = make_error(message.id, err);
        return reply;
    };
    MethodResult r;
    if (modern ? is_removed_in_modern_era(m) : m == "server/discover") {
        r = method_not_found(m, modern, info);
    } else if (m == "server/discover") {
        r = discover();
    } else if (m == "initialize") {
        r = initialize(params, &reply.negotiated_version);
    } else if (m == "ping") {
        r = nlohmann::json::object();
    } else if (m == "tools/list") {
        auto page = list_tools_text(params, who, info);
        if (auto* err = std::get_if<RpcError>(&page)) return answer_error(*err);
        reply.body = make_result_text(
            message.id, modern ? with_modern_list_fields(*std::get<0>(page)) : *std::get<0>(page));
        return reply;
    } else if (m == "tools/call") {
        if (modern) {
            if (auto missing = missing_client_capability(tools_, params, *ctx.modern, info)) {
                return answer_error(*missing);
            }
        }
        CallStream stream(ctx.session, ctx.record);
        CallOutcome outcome =
            run_tool_call(env_, who, params, info, ctx.session ? &stream : nullptr);
        // A 2026 request's session is its own: it logs only when the
        // request asked for a level.
        if (ctx.session && (!modern || ctx.modern->log_level)) {
            log_tool_call(*ctx.session, stream, params, outcome, info);
        }
        if (outcome.error) return answer_error(*outcome.error);
        if (modern) add_modern_result_fields(m, *outcome.result);
        reply.body = make_result(message.id, std::move(*outcome.result));
        return reply;
    } else if (m == "resources/list") {
        r = list_resources(params, info);
    } else if (m == "resources/templates/list") {
        r = list_resource_templates(params, info);
    } else if (m == "resources/read") {
        r = read_resource(params, who, info);
    } else if (m == "prompts/list") {
        r = list_prompts(params, info);
    } else if (m == "prompts/get") {
        r = get_prompt(params, info);
    } else if (m == "completion/complete") {
        r = complete(params, who, info);
    } else if (m == "logging/setLevel") {
        r = set_logging_level(params, info, ctx);
    } else {
        r = method_not_found(m, modern, info);
    }
    if (auto* err = std::get_if<RpcError>(&r)) return answer_error(*err);
    auto& result = std::get<nlohmann::json>(r);
    if (modern) add_modern_result_fields(m, result);
    reply.body = make_result(message.id, std::move(result));
    return reply;
}

McpServer::MethodResult McpServer::initialize(const nlohmann::json& params,
                                              std::string* negotiated) const {
    std::string version = kSupportedProtocolVersions.front();
    if (auto it = params.find("protocolVersion"); it != params.end() && it->is_string()) {
        if (is_supported_protocol_version(it->get<std::string>())) version = it->get<std::string>();
    }
    *negotiated = version;
    nlohmann::json result = {
        {"protocolVersion", version},
        {"capabilities", capabilities(false)},
        {"serverInfo",
         {{"name", "yuzu-server"}, {"title", "Yuzu"}, {"version", options_.server_version}}},
    };
    if (!options_.instructions.empty()) result["instructions"] = options_.instructions;
    return result;
}

McpServer::MethodResult McpServer::list_tools(const nlohmann::json& params,
                                              const auth::Principal& who,
                                              const RequestInfo& info) const {
    // Only what this caller's tier can ever reach: a readonly token does not
    // pay for write tools it cannot call. Approval-gated ones are listed and
    // marked.
    std::vector<const ToolSpec*> reachable;
    for (const auto& t : tools_.tools()) {
        if (tier_can_reach(t, who.mcp_tier)) reachable.push_back(&t);
    }
    auto r =
        paginate(reachable, "tools", params, info, options_.page_size,
                 [this, &who](const ToolSpec* t) { return tools_.list_entry(*t, who.mcp_tier); });
    if (auto* e = std::get_if<RpcError>(&r)) return *e;
    return std::get<nlohmann::json>(r);
}

std::variant<std::shared_ptr<const std::string>, RpcError> McpServer::list_tools_text(
    const nlohmann::json& params, const auth::Principal& who, const RequestInfo& info) const {
    auto cursor = parse_cursor(params, info);
    if (auto* err = std::get_if<RpcError>(&cursor)) return *err;
    const size_t offset = std::get<size_t>(cursor);
    std::optional<RpcError> error;
    auto page = tool_list_cache_->get(tools_.generation(), who.mcp_tier, offset,
                                      options_.page_size > 0 && offset % options_.page_size == 0,
                                      [&]() -> std::optional<std::string> {
                                          auto r = list_tools(params, who, info);
                                          if (auto* e = std::get_if<RpcError>(&r)) {
                                              error = std::move(*e);
                                              return std::nullopt;
                                          }
                                          return dump_json(std::get<nlohmann::json>(r));
                                      });
    if (page == nullptr) {
        assert(error.has_value());
        return *std::move(error);
    }
    return page;
}

McpServer::MethodResult McpServer::list_resources(const nlohmann::json& params,
                                                  const RequestInfo& info) const {
    auto r = paginate(resources_.resources(), "resources", params, info, options_.page_size,
                      [](const ResourceSpec& s) {
                          return nlohmann::json{{"uri", s.uri},
                                                {"name", s.name},
                                                {"title", s.title},
                                                {"description", s.description},
                                                {"mimeType", s.mime_type}};
                      });
    if (auto* e = std::get_if<RpcError>(&r)) return *e;
    return std::get<nlohmann::json>(r);
}

McpServer::MethodResult McpServer::list_resource_templates(const nlohmann::json& params,
                                                           const RequestInfo& info) const {
    auto r = paginate(resources_.templates(), "resourceTemplates", params, info, options_.page_size,
                      [](const ResourceTemplateSpec& s) {
                          return nlohmann::json{{"uriTemplate", s.uri_template},
                                                {"name", s.name},
                                                {"title", s.title},
                                                {"description", s.description},
                                                {"mimeType", s.mime_type}};
                      });
    if (auto* e = std::get_if<RpcError>(&r)) return *e;
    return std::get<nlohmann::json>(r);
}

McpServer::MethodResult McpServer::read_resource(const nlohmann::json& params,
                                                 const auth::Principal& who,
                                                 const RequestInfo& info) const {
    auto it = params.find("uri");
    if (it == params.end() || !it->is_string()) {
        return invalid_params("resources/read needs params.uri (a string)", info,
                              "pass a uri from resources/list");
    }
    const std::string uri = it->get<std::string>();
    const ResourceSpec* spec = resources_.find(uri);
    if (spec == nullptr) {
        UriVariables vars;
        if (const ResourceTemplateSpec* tmpl = resources_.find_template(uri, vars)) {
            auto text = tmpl->read(vars, who);
            if (!text.ok()) {
                return invalid_params(
                    "cannot read " + uri.substr(0, 256) + ": " + text.status().message(), info,
                    "pass a uri that matches a resource template");
            }
            return nlohmann::json{
                {"contents",
                 nlohmann::json::array(
                     {{{"uri", uri}, {"mimeType", tmpl->mime_type}, {"text", *text}}})}};
        }
        // data.uri names what was not found (SEP-2164), bounded like the message.
        RpcError missing = invalid_params("Unknown resource URI: " + uri.substr(0, 256), info,
                                          "pass a uri from resources/list");
        missing.data["uri"] = uri.substr(0, 256);
        return missing;
    }
    if (spec->authorize) {
        if (Status s = spec->authorize(who); !s.ok()) {
            return RpcError{kPermissionDenied, s.message(),
                            error_envelope(info.correlation_id, std::nullopt,
                                           "ask an administrator for the needed role")};
        }
    }
    auto text = spec->read(who);
    if (!text.ok()) {
        return RpcError{kInternalError, "resource unavailable: " + uri,
                        error_envelope(info.correlation_id, std::nullopt,
                                       "retry later; report the correlation_id if it persists")};
    }
    return nlohmann::json{
        {"contents", nlohmann::json::array({{{"uri", uri},
                                             {"mimeType", spec->mime_type},
                                             {spec->base64_blob ? "blob" : "text", *text}}})}};
}

McpServer::MethodResult McpServer::list_prompts(const nlohmann::json& params,
                                                const RequestInfo& info) const {
    auto r = paginate(
        prompts_.prompts(), "prompts", params, info, options_.page_size, [](const PromptSpec& p) {
            nlohmann::json args = nlohmann::json::array();
            for (const auto& a : p.arguments) {
                args.push_back(
                    {{"name", a.name}, {"description", a.description}, {"required", a.required}});
            }
            return nlohmann::json{{"name", p.name},
                                  {"title", p.title},
                                  {"description", p.description},
                                  {"arguments", args}};
        });
    if (auto* e = std::get_if<RpcError>(&r)) return *e;
    return std::get<nlohmann::json>(r);
}

McpServer::MethodResult McpServer::get_prompt(const nlohmann::json& params,
                                              const RequestInfo& info) const {
    auto it = params.find("name");
    if (it == params.end() || !it->is_string()) {
        return invalid_params("prompts/get needs params.name", info,
                              "pass a name from prompts/list");
    }
    const PromptSpec* spec = prompts_.find(it->get<std::string>());
    if (spec == nullptr) {
        return invalid_params("Unknown prompt: " + it->get<std::string>().substr(0, 128), info,
                              "pass a name from prompts/list");
    }
    // Arguments may arrive under params.arguments (the spec) or at the top
    // level of params (older clients).
    const nlohmann::json* source = &params;
    if (auto a = params.find("arguments"); a != params.end() && a->is_object()) source = &*a;
    std::map<std::string, std::string> rendered;
    for (const auto& arg : spec->arguments) {
        auto v = source->find(arg.name);
        const bool present = v != source->end() && !v->is_null();
        if (!present) {
            if (arg.required) {
                return invalid_params("missing required argument: " + arg.name, info,
                                      "supply '" + arg.name + "'");
            }
            if (!arg.allowed_values.empty()) rendered[arg.name] = arg.allowed_values.front();
            continue;
        }
        std::string text = v->is_string() ? v->get<std::string>() : v->dump();
        if (!arg.allowed_values.empty()) {
            // Closed enum: the caller's text never reaches the prompt.
            auto match = std::find(arg.allowed_values.begin(), arg.allowed_values.end(), text);
            rendered[arg.name] =
                match == arg.allowed_values.end() ? arg.allowed_values.front() : *match;
        } else if (arg.is_integer) {
            int64_t n = 0;
            auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
            if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
                return invalid_params("argument '" + arg.name + "' must be an integer", info,
                                      "pass a whole number");
            }
            rendered[arg.name] = std::to_string(n);
        } else {
            if (text.size() > 4096) {
                return invalid_params("argument '" + arg.name + "' is longer than 4096 bytes", info,
                                      "shorten it");
            }
            rendered[arg.name] = wrap_untrusted_argument(arg.name, text);
        }
    }
    if (spec->render_messages) {
        auto messages = spec->render_messages(rendered);
        if (!messages.ok()) {
            return invalid_params(messages.status().message(), info, "check the prompt arguments");
        }
        return nlohmann::json{{"description", spec->description}, {"messages", *messages}};
    }
    auto body = spec->render(rendered);
    if (!body.ok()) {
        return invalid_params(body.status().message(), info, "check the prompt arguments");
    }
    return nlohmann::json{
        {"description", spec->description},
        {"messages", nlohmann::json::array(
                         {{{"role", "user"}, {"content", {{"type", "text"}, {"text", *body}}}}})}};
}

McpServer::MethodResult McpServer::complete(const nlohmann::json& params,
                                            const auth::Principal& who,
                                            const RequestInfo& info) const {
    auto ref = params.find("ref");
    auto argument = params.find("argument");
    if (ref == params.end() || !ref->is_object() || argument == params.end() ||
        !argument->is_object()) {
        return invalid_params("completion/complete needs params.ref and params.argument", info,
                              "see the MCP completion specification");
    }
    nlohmann::json values = nlohmann::json::array();
    const std::string ref_type = string_field(*ref, "type");
    if (ref_type == "ref/prompt") {
        const std::string ref_name = string_field(*ref, "name");
        const PromptSpec* spec = prompts_.find(ref_name);
        if (spec == nullptr) {
            return invalid_params("Unknown prompt: " + ref_name.substr(0, 128), info,
                                  "pass a name from prompts/list");
        }
        const std::string arg_name = string_field(*argument, "name");
        const std::string prefix = string_field(*argument, "value");
        for (const auto& a : spec->arguments) {
            if (a.name != arg_name) continue;
            std::vector<std::string> candidates = a.allowed_values;
            if (a.complete_values) candidates = a.complete_values(who);
            for (const auto& v : candidates) {
                if (v.rfind(prefix, 0) == 0) values.push_back(v);
            }
        }
    } else if (ref_type != "ref/resource") {
        return invalid_params("ref.type must be ref/prompt or ref/resource", info,
                              "see the MCP completion specification");
    }
    // The specification caps a completion at 100 values.
    const size_t total = values.size();
    if (values.size() > kMaxCompletionValues) {
        values.erase(values.begin() + kMaxCompletionValues, values.end());
    }
    return nlohmann::json{{"completion",
                           {{"values", std::move(values)},
                            {"total", total},
                            {"hasMore", total > kMaxCompletionValues}}}};
}

McpServer::MethodResult McpServer::set_logging_level(const nlohmann::json& params,
                                                     const RequestInfo& info,
                                                     const CallContext& ctx) const {
    auto it = params.find("level");
    if (it == params.end() || !it->is_string() || !parse_log_level(it->get<std::string>())) {
        return invalid_params(
            "level must be one of debug, info, notice, warning, error, "
            "critical, alert, emergency",
            info, "pass an RFC 5424 level name");
    }
    // notifications/message go to the session's stream; a sessionless
    // caller has no stream, so the level is accepted and nothing is sent.
    if (ctx.session) ctx.session->set_log_level(*parse_log_level(it->get<std::string>()));
    return nlohmann::json::object();
}

}  // namespace yuzu::mcp
