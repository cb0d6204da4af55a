// The two protocol eras one /mcp/v1/ endpoint serves (docs/user-manual/mcp.md,
// "Protocol eras"):
//
//   2025 (2025-03-26 … 2025-11-25): initialize opens a session; later
//     requests name it with Mcp-Session-Id; GET is its server→client stream.
//   2026 (2026-07-28): stateless. Every request carries its own _meta
//     (io.modelcontextprotocol/protocolVersion, clientCapabilities,
//     optionally clientInfo and logLevel), headers that repeat what the body
//     says (Mcp-Method, Mcp-Name, Mcp-Param-*), and gets its own response
//     stream. No initialize, no session, no GET channel.
//
// A request is 2026 when its params._meta names a protocol version, or when
// it sends MCP-Protocol-Version: 2026-07-28 (and is then refused for lacking
// the _meta); an initialize only by its _meta. Everything else is 2025.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "yuzu/mcp/jsonrpc.hpp"
#include "yuzu/mcp/session/session.hpp"

namespace yuzu::mcp {

inline constexpr char kModernProtocolVersion[] = "2026-07-28";
// Newest first: what an UnsupportedProtocolVersionError lists.
inline const std::vector<std::string> kModernProtocolVersions = {kModernProtocolVersion};

// The _meta keys of the 2026 request envelope.
inline constexpr char kMetaProtocolVersion[] = "io.modelcontextprotocol/protocolVersion";
inline constexpr char kMetaClientCapabilities[] = "io.modelcontextprotocol/clientCapabilities";
inline constexpr char kMetaClientInfo[] = "io.modelcontextprotocol/clientInfo";
inline constexpr char kMetaLogLevel[] = "io.modelcontextprotocol/logLevel";
inline constexpr char kMetaServerInfo[] = "io.modelcontextprotocol/serverInfo";

// What a 2026 request says about its client, from params._meta.
struct RequestMeta {
    std::string protocol_version;
    nlohmann::json client_capabilities = nlohmann::json::object();
    nlohmann::json client_info;         // null when not sent (it is a SHOULD)
    std::optional<LogLevel> log_level;  // unset: no notifications/message at all
};

// Whether `message` opens or continues the 2026 era (see above).
bool is_modern_request(const RpcMessage& message, const std::string& protocol_version_header);

// params._meta of a 2026 request, validated: -32602 for a missing _meta,
// protocol version or client capabilities, or a bad logLevel; -32022 (data:
// {supported, requested}) for a version this server does not speak.
std::variant<RequestMeta, RpcError> parse_request_meta(const nlohmann::json& params,
                                                       const std::string& correlation_id);

}  // namespace yuzu::mcp
