#include "mcp/transport/modern_headers.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "yuzu/mcp/catalogue.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/protocol_era.hpp"

namespace yuzu::mcp {
namespace {

using nlohmann::json;

constexpr size_t kMaxEchoedBytes = 64;

RpcError mismatch(const std::string& header, const std::string& what,
                  const std::string& correlation_id) {
    json data = error_envelope(correlation_id, std::nullopt,
                               "send " + header + " with exactly the value the body carries");
    data["header"] = header;
    return RpcError{kHeaderMismatch, header + " " + what, std::move(data)};
}

// One header that must stand for `expected` (nullopt: the body has no
// value, so the header must be absent too).
// `integer`: the value is an integer argument, compared as a number (a
// header of "007" stands for 7).
std::optional<RpcError> check_one(const httplib::Request& req, const std::string& header,
                                  const std::optional<std::string>& expected,
                                  const std::string& correlation_id,
                                  const json* integer = nullptr) {
    const bool present = req.has_header(header);
    if (!expected) {
        if (!present) return std::nullopt;
        return mismatch(header, "is set but the body has no such value", correlation_id);
    }
    if (!present) return mismatch(header, "is missing", correlation_id);
    if (req.get_header_value_count(header) != 1) {
        return mismatch(header, "is sent more than once", correlation_id);
    }
    auto value = decode_mcp_header_value(req.get_header_value(header));
    if (!value) {
        return mismatch(header,
                        "has a malformed =?base64?...?= form, or bytes outside visible ASCII "
                        "that only that form may carry",
                        correlation_id);
    }
    if (integer != nullptr) {
        // Unsigned and signed apart, so a large value cannot wrap into a match.
        const char* end = value->data() + value->size();
        bool equal = false;
        if (integer->is_number_unsigned()) {
            uint64_t n = 0;
            auto [ptr, ec] = std::from_chars(value->data(), end, n);
            equal = ec == std::errc() && ptr == end && n == integer->get<uint64_t>();
        } else {
            int64_t n = 0;
            auto [ptr, ec] = std::from_chars(value->data(), end, n);
            equal = ec == std::errc() && ptr == end && n == integer->get<int64_t>();
        }
        if (value->empty() || !equal) {
            return mismatch(header, "does not match the body", correlation_id);
        }
        return std::nullopt;
    }
    if (*value != *expected) {
        return mismatch(header, "does not match the body", correlation_id);
    }
    return std::nullopt;
}

// The value Mcp-Name stands for, when the method has one.
std::optional<std::string> name_in_body(const RpcMessage& message) {
    const char* key = nullptr;
    if (message.method == "tools/call" || message.method == "prompts/get") key = "name";
    if (message.method == "resources/read") key = "uri";
    if (key == nullptr || !message.params.is_object()) return std::nullopt;
    auto it = message.params.find(key);
    if (it == message.params.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
}

// Walks `schema`'s properties (and their nested properties: x-mcp-header
// may sit at any depth reached through "properties" alone, which the schema
// compiler enforces). `arguments` is the body's object at the same path, or
// null when the body has none there. The depth is the schema's, bounded at
// compile time.
std::optional<RpcError> check_params_under(const httplib::Request& req, const json& schema,
                                           const json* arguments,
                                           const std::string& correlation_id) {
    auto properties = schema.find("properties");
    if (properties == schema.end() || !properties->is_object()) return std::nullopt;
    for (const auto& [property, sub] : properties->items()) {
        if (!sub.is_object()) continue;
        const json* value = nullptr;
        if (arguments != nullptr) {
            if (auto v = arguments->find(property); v != arguments->end()) value = &*v;
        }
        auto header = sub.find("x-mcp-header");
        if (header != sub.end() && header->is_string()) {
            std::optional<std::string> expected;
            const json* integer = nullptr;
            json whole;  // 7.0 in the body: the schema's integer, and a client sends "7"
            if (value != nullptr) {
                expected = mcp_header_text_of(*value);
                if (value->is_number_integer()) {
                    integer = value;
                } else if (value->is_number_float()) {
                    const double d = value->get<double>();
                    // 2^63 is exact as a double; the range keeps the cast defined.
                    if (std::isfinite(d) && std::trunc(d) == d && d >= -9223372036854775808.0 &&
                        d < 9223372036854775808.0) {
                        whole = static_cast<int64_t>(d);
                        integer = &whole;
                    }
                }
            }
            if (auto e = check_one(req, "Mcp-Param-" + header->get<std::string>(), expected,
                                   correlation_id, integer)) {
                return e;
            }
        }
        const json* nested = value != nullptr && value->is_object() ? value : nullptr;
        if (auto e = check_params_under(req, sub, nested, correlation_id)) return e;
    }
    return std::nullopt;
}

std::optional<RpcError> check_param_headers(const httplib::Request& req, const RpcMessage& message,
                                            const ToolCatalogue& tools,
                                            const std::string& correlation_id) {
    auto name = name_in_body(message);
    if (!name) return std::nullopt;
    const ToolSpec* tool = tools.find(*name);
    if (tool == nullptr) return std::nullopt;  // the call answers unknown-tool itself
    const json* arguments = nullptr;
    if (auto a = message.params.find("arguments"); a != message.params.end() && a->is_object()) {
        arguments = &*a;
    }
    return check_params_under(req, tool->input_schema, arguments, correlation_id);
}

}  // namespace

std::optional<RpcError> check_version_header(const httplib::Request& req, const RpcMessage& message,
                                             const std::string& correlation_id) {
    if (!message.params.is_object()) return std::nullopt;
    auto meta = message.params.find("_meta");
    if (meta == message.params.end() || !meta->is_object()) return std::nullopt;
    auto version = meta->find(kMetaProtocolVersion);
    if (version == meta->end() || !version->is_string()) return std::nullopt;
    const std::string header(trim_header_ows(req.get_header_value("MCP-Protocol-Version")));
    if (header.empty() || header == version->get_ref<const std::string&>()) return std::nullopt;
    return mismatch("MCP-Protocol-Version",
                    "(" + header.substr(0, kMaxEchoedBytes) + ") does not match params._meta",
                    correlation_id);
}

std::optional<RpcError> check_modern_headers(const httplib::Request& req, const RpcMessage& message,
                                             const RequestMeta& meta, const ToolCatalogue& tools,
                                             const std::string& correlation_id) {
    const std::string version =
        std::string(trim_header_ows(req.get_header_value("MCP-Protocol-Version")));
    if (version != meta.protocol_version) {
        return mismatch("MCP-Protocol-Version",
                        version.empty() ? "is missing"
                                        : "(" + version.substr(0, kMaxEchoedBytes) +
                                              ") does not match params._meta",
                        correlation_id);
    }
    if (message.kind != RpcMessage::Kind::kRequest) {
        // Clients send Mcp-Method with requests only; when present it must agree.
        if (!req.has_header("Mcp-Method")) return std::nullopt;
        return check_one(req, "Mcp-Method", message.method, correlation_id);
    }
    if (auto e = check_one(req, "Mcp-Method", message.method, correlation_id)) return e;
    if (auto e = check_one(req, "Mcp-Name", name_in_body(message), correlation_id)) return e;
    if (message.method != "tools/call") return std::nullopt;
    return check_param_headers(req, message, tools, correlation_id);
}

}  // namespace yuzu::mcp
