#include "mcp/protocol/modern_results.hpp"

#include <array>
#include <cassert>
#include <string_view>

#include "yuzu/mcp/catalogue.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/pipeline.hpp"
#include "yuzu/mcp/protocol_era.hpp"

namespace yuzu::mcp {
namespace {

constexpr std::array<std::string_view, 5> kRemovedMethods = {
    "initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"};

bool has_caching_hints(const std::string& method) {
    return method == "tools/list" || method == "prompts/list" || method == "resources/list" ||
           method == "resources/templates/list" || method == "resources/read" ||
           method == "server/discover";
}

}  // namespace

bool is_removed_in_modern_era(const std::string& method) {
    for (auto removed : kRemovedMethods) {
        if (method == removed) return true;
    }
    return false;
}

RpcError method_not_found(const std::string& method, bool modern, const RequestInfo& info) {
    return RpcError{kMethodNotFound, "Method not found: " + method.substr(0, 128),
                    error_envelope(info.correlation_id, std::nullopt,
                                   modern ? "see the capabilities server/discover answers"
                                          : "see the server's capabilities from initialize")};
}

std::optional<RpcError> missing_client_capability(const ToolCatalogue& tools,
                                                  const nlohmann::json& params,
                                                  const RequestMeta& meta,
                                                  const RequestInfo& info) {
    auto name = params.find("name");
    if (name == params.end() || !name->is_string()) return std::nullopt;
    const ToolSpec* tool = tools.find(name->get<std::string>());
    if (tool == nullptr) return std::nullopt;
    nlohmann::json missing = nlohmann::json::object();
    for (const auto& capability : tool->required_client_capabilities) {
        auto declared = meta.client_capabilities.find(capability);
        if (declared == meta.client_capabilities.end() || !declared->is_object()) {
            missing[capability] = nlohmann::json::object();
        }
    }
    if (missing.empty()) return std::nullopt;
    nlohmann::json data =
        error_envelope(info.correlation_id, std::nullopt,
                       "declare the capabilities in params._meta's clientCapabilities, or call "
                       "another tool");
    data["requiredCapabilities"] = std::move(missing);
    return RpcError{
        kMissingClientCapability,
        "tool '" + tool->name + "' needs client capabilities the request does not declare",
        std::move(data)};
}

void add_modern_result_fields(const std::string& method, nlohmann::json& result) {
    assert(result.is_object());
    result["resultType"] = "complete";
    if (!has_caching_hints(method)) return;
    result["ttlMs"] = method == "resources/read" ? kResourceReadTtlMs : kListTtlMs;
    result["cacheScope"] = kCacheScope;
}

std::string with_modern_list_fields(const std::string& result_json) {
    assert(result_json.size() > 2 && result_json.front() == '{' && result_json[1] == '"');
    std::string out = R"({"resultType":"complete","ttlMs":)" + std::to_string(kListTtlMs) +
                      R"(,"cacheScope":")" + kCacheScope + "\",";
    out.append(result_json, 1, std::string::npos);
    return out;
}

}  // namespace yuzu::mcp
