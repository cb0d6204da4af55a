// McpServer: routes one JSON-RPC message to its method. Transport-agnostic
// (the HTTP binding is in http_transport.hpp). Safe to call from any thread
// once constructed.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "yuzu/auth/principal.hpp"
#include "yuzu/mcp/call_context.hpp"
#include "yuzu/mcp/catalogue.hpp"
#include "yuzu/mcp/jsonrpc.hpp"
#include "yuzu/mcp/pipeline.hpp"
#include "yuzu/mcp/tool_call_metrics.hpp"

namespace yuzu::metrics {
class Registry;
}
namespace yuzu::auth {
class Identity;
}
namespace yuzu::fleet {
class Fleet;
}

namespace yuzu::mcp {

// Newest first; an unknown requested version is answered with the first.
// A session's later requests may name its version or an older supported one
// (transport/http_transport.cpp).
inline const std::vector<std::string> kSupportedProtocolVersions = {"2025-11-25", "2025-06-18",
                                                                    "2025-03-26"};
// Assumed when a request carries no MCP-Protocol-Version header.
inline constexpr char kDefaultProtocolVersion[] = "2025-03-26";
bool is_supported_protocol_version(const std::string& version);

struct McpServerOptions {
    std::string server_version;
    std::string instructions;
    size_t page_size = 100;  // list pagination
    // Where tools/call counts and latencies go; null = not measured. Must
    // outlive the server.
    metrics::Registry* metrics = nullptr;
    // What the access step needs for per-group and per-agent tools; null →
    // those tools are refused. Must outlive the server.
    auth::Identity* identity = nullptr;
    fleet::Fleet* fleet = nullptr;
};

class ToolListCache;

class McpServer {
  public:
    // `approvals` may be null (approval-gated calls then get -32004).
    McpServer(const ToolCatalogue& tools, const ResourceCatalogue& resources,
              const PromptCatalogue& prompts, const McpSettings& settings, audit::AuditLog* audit,
              const auth::Authorizer* authorizer, McpServerOptions options,
              approval::ApprovalManager* approvals = nullptr);
    ~McpServer();
    McpServer(const McpServer&) = delete;
    McpServer& operator=(const McpServer&) = delete;

    // The JSON-RPC response, or kAccepted for a notification or a client
    // response (the transport answers those with 202). With a session in
    // `ctx`, logging/setLevel sets its threshold and each tools/call's
    // outcome is logged to its stream as notifications/message.
    Reply handle(const RpcMessage& message, const auth::Principal& who, const RequestInfo& info,
                 const CallContext& ctx = {}) const;
    // Whether tools/call of `name` reports progress (ToolSpec::reports_progress).
    bool tool_reports_progress(const std::string& name) const;
    const ToolCatalogue& tools() const { return tools_; }

  private:
    using MethodResult = std::variant<nlohmann::json, RpcError>;
    MethodResult initialize(const nlohmann::json& params, std::string* version) const;
    // What initialize and server/discover (discover.cpp) both declare.
    nlohmann::json capabilities(bool modern) const;
    // server/discover, the 2026 era's only way to learn the server.
    MethodResult discover() const;
    MethodResult list_tools(const nlohmann::json& params, const auth::Principal& who,
                            const RequestInfo& info) const;
    // tools/list through tool_list_cache_: the serialized result, or the error.
    std::variant<std::shared_ptr<const std::string>, RpcError> list_tools_text(
        const nlohmann::json& params, const auth::Principal& who, const RequestInfo& info) const;
    MethodResult list_resources(const nlohmann::json& params, const RequestInfo& info) const;
    MethodResult list_resource_templates(const nlohmann::json& params,
                                         const RequestInfo& info) const;
    MethodResult read_resource(const nlohmann::json& params, const auth::Principal& who,
                               const RequestInfo& info) const;
    MethodResult list_prompts(const nlohmann::json& params, const RequestInfo& info) const;
    MethodResult get_prompt(const nlohmann::json& params, const RequestInfo& info) const;
    MethodResult complete(const nlohmann::json& params, const auth::Principal& who,
                          const RequestInfo& info) const;
    MethodResult set_logging_level(const nlohmann::json& params, const RequestInfo& info,
                                   const CallContext& ctx) const;

    const ToolCatalogue& tools_;
    const ResourceCatalogue& resources_;
    const PromptCatalogue& prompts_;
    std::unique_ptr<ToolCallMetrics> call_metrics_;
    std::unique_ptr<ToolListCache> tool_list_cache_;  // thread-safe itself
    PipelineEnv env_;
    McpServerOptions options_;
};

}  // namespace yuzu::mcp
