#include <algorithm>

#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/protocol_era.hpp"

namespace yuzu::mcp {
namespace {

constexpr size_t kMaxEchoedVersionBytes = 64;

RpcError invalid_meta(const std::string& message, const std::string& correlation_id,
                      const std::string& remediation) {
    return RpcError{kInvalidParams, message,
                    error_envelope(correlation_id, std::nullopt, remediation)};
}

const nlohmann::json* meta_of(const nlohmann::json& params) {
    if (!params.is_object()) return nullptr;
    auto it = params.find("_meta");
    return it == params.end() ? nullptr : &*it;
}

}  // namespace

bool is_modern_request(const RpcMessage& message, const std::string& protocol_version_header) {
    const nlohmann::json* meta = meta_of(message.params);
    if (meta != nullptr && meta->is_object() && meta->contains(kMetaProtocolVersion)) return true;
    // initialize is 2026 only by its own _meta (and then a removed method);
    // otherwise its MCP-Protocol-Version header is judged by the 2025 rules.
    if (message.kind == RpcMessage::Kind::kRequest && message.method == "initialize") return false;
    return protocol_version_header == kModernProtocolVersion;
}

std::variant<RequestMeta, RpcError> parse_request_meta(const nlohmann::json& params,
                                                       const std::string& correlation_id) {
    const nlohmann::json* meta = meta_of(params);
    if (meta == nullptr || !meta->is_object()) {
        return invalid_meta("a 2026-07-28 request needs params._meta", correlation_id,
                            std::string("send params._meta with ") + kMetaProtocolVersion +
                                " and " + kMetaClientCapabilities);
    }
    RequestMeta out;
    auto version = meta->find(kMetaProtocolVersion);
    if (version == meta->end() || !version->is_string()) {
        return invalid_meta(
            std::string("params._meta needs ") + kMetaProtocolVersion + " (a string)",
            correlation_id, "send the protocol version, e.g. 2026-07-28");
    }
    out.protocol_version = version->get<std::string>();
    if (std::find(kModernProtocolVersions.begin(), kModernProtocolVersions.end(),
                  out.protocol_version) == kModernProtocolVersions.end()) {
        nlohmann::json data = error_envelope(
            correlation_id, std::nullopt,
            "use one of the supported versions, or initialize for the 2025 session protocol");
        data["supported"] = kModernProtocolVersions;
        data["requested"] = out.protocol_version.substr(0, kMaxEchoedVersionBytes);
        return RpcError{kUnsupportedProtocolVersion,
                        "Unsupported protocol version: " +
                            out.protocol_version.substr(0, kMaxEchoedVersionBytes),
                        std::move(data)};
    }
    auto capabilities = meta->find(kMetaClientCapabilities);
    if (capabilities == meta->end() || !capabilities->is_object()) {
        return invalid_meta(
            std::string("params._meta needs ") + kMetaClientCapabilities + " (an object)",
            correlation_id, "send the client's capabilities ({} for none)");
    }
    out.client_capabilities = *capabilities;
    if (auto info = meta->find(kMetaClientInfo); info != meta->end()) {
        if (!info->is_object()) {
            return invalid_meta(std::string(kMetaClientInfo) + " must be an object", correlation_id,
                                "send {name, version}, or leave it out");
        }
        out.client_info = *info;
    }
    if (auto level = meta->find(kMetaLogLevel); level != meta->end()) {
        std::optional<LogLevel> parsed;
        if (level->is_string()) parsed = parse_log_level(level->get<std::string>());
        if (!parsed) {
            return invalid_meta(std::string(kMetaLogLevel) +
                                    " must be one of debug, info, notice, warning, error, "
                                    "critical, alert, emergency",
                                correlation_id, "pass an RFC 5424 level name");
        }
        out.log_level = parsed;
    }
    return out;
}

}  // namespace yuzu::mcp
