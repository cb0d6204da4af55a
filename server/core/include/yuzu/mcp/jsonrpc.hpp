// JSON-RPC 2.0 framing for the MCP endpoint: parse one message, build
// results and errors. Stateless; safe from any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace yuzu::mcp {

struct RpcError {
    int code = 0;
    std::string message;
    nlohmann::json data;  // null, or the A4 envelope object
};

struct RpcMessage {
    enum class Kind { kRequest, kNotification, kResponse };
    Kind kind = Kind::kRequest;
    nlohmann::json id;  // string or integer for requests; null otherwise
    std::string method;
    nlohmann::json params;  // object, or null when absent
};

// Parses a POST body. Malformed JSON → -32700; a body that is not a single
// JSON-RPC 2.0 object → -32600 (batches are not part of the protocol
// versions we serve).
std::variant<RpcMessage, RpcError> parse_message(const std::string& body);

std::string make_result(const nlohmann::json& id, const nlohmann::json& result);
// The same bytes as make_result() for a result already serialized (a cached
// tools/list page).
std::string make_result_text(const nlohmann::json& id, std::string_view result_json);
std::string make_error(const nlohmann::json& id, const RpcError& error);

// The A4 envelope: {correlation_id, retry_after_ms (null when not
// retryable), remediation}.
nlohmann::json error_envelope(const std::string& correlation_id,
                              std::optional<int64_t> retry_after_ms,
                              const std::string& remediation);

}  // namespace yuzu::mcp
