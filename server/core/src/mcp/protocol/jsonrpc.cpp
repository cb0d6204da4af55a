#include "yuzu/mcp/jsonrpc.hpp"

#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/mcp/error_codes.hpp"

namespace yuzu::mcp {

std::variant<RpcMessage, RpcError> parse_message(const std::string& body) {
    auto parsed = parse_json(body);
    if (!parsed.ok()) return RpcError{kParseError, "Parse error: " + parsed.status().message(), {}};
    nlohmann::json j = std::move(parsed).value();
    if (!j.is_object()) {
        return RpcError{kInvalidRequest,
                        "Invalid Request: expected one JSON-RPC 2.0 object (batches are not "
                        "supported)",
                        {}};
    }
    auto version = j.find("jsonrpc");
    if (version == j.end() || !version->is_string() || *version != "2.0") {
        return RpcError{kInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\"", {}};
    }
    RpcMessage msg;
    auto id = j.find("id");
    const bool has_id = id != j.end();
    if (has_id && !(id->is_string() || id->is_number_integer())) {
        return RpcError{kInvalidRequest, "Invalid Request: id must be a string or an integer", {}};
    }
    auto method = j.find("method");
    if (method == j.end()) {
        // A response from the client to a server-initiated request.
        if (has_id && (j.contains("result") || j.contains("error"))) {
            msg.kind = RpcMessage::Kind::kResponse;
            msg.id = *id;
            return msg;
        }
        return RpcError{kInvalidRequest, "Invalid Request: method is missing", {}};
    }
    if (!method->is_string() || method->get_ref<const std::string&>().empty()) {
        return RpcError{kInvalidRequest, "Invalid Request: method must be a non-empty string", {}};
    }
    // j is ours: its members move into the message rather than being copied.
    msg.method = std::move(method->get_ref<std::string&>());
    auto params = j.find("params");
    if (params != j.end()) {
        if (!params->is_object()) {
            return RpcError{kInvalidRequest, "Invalid Request: params must be an object", {}};
        }
        msg.params = std::move(*params);
    }
    if (has_id) {
        msg.kind = RpcMessage::Kind::kRequest;
        msg.id = *id;
    } else {
        msg.kind = RpcMessage::Kind::kNotification;
    }
    return msg;
}

std::string make_result(const nlohmann::json& id, const nlohmann::json& result) {
    // Written around the result's text rather than dumped from a new
    // envelope object: building that object costs as much as the dump.
    // (The id, dumped on its own, comes from a parsed request, so it is
    // valid UTF-8 and never adds a second count to the invalid-UTF-8 total.)
    return make_result_text(id, dump_json(result));
}

std::string make_result_text(const nlohmann::json& id, std::string_view result_json) {
    // make_result() dumps an object whose keys nlohmann keeps sorted.
    const std::string id_text = dump_json(id);
    std::string out;
    out.reserve(result_json.size() + id_text.size() + 32);
    out.append(R"({"id":)").append(id_text).append(R"(,"jsonrpc":"2.0","result":)");
    out.append(result_json).append("}");
    return out;
}

std::string make_error(const nlohmann::json& id, const RpcError& error) {
    nlohmann::json err = {{"code", error.code}, {"message", error.message}};
    if (!error.data.is_null()) err["data"] = error.data;
    nlohmann::json out = {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}};
    return dump_json(out);
}

nlohmann::json error_envelope(const std::string& correlation_id,
                              std::optional<int64_t> retry_after_ms,
                              const std::string& remediation) {
    nlohmann::json data = {{"correlation_id", correlation_id}, {"remediation", remediation}};
    data["retry_after_ms"] = retry_after_ms ? nlohmann::json(*retry_after_ms) : nlohmann::json();
    return data;
}

}  // namespace yuzu::mcp
