// The 2026-07-28 header rules (SEP-2243): headers that repeat what the body
// says, so a proxy can route on them without reading the body, and must
// therefore agree with it. Private to transport/.
//
//   MCP-Protocol-Version   = params._meta's protocol version
//   Mcp-Method             = method (requests; values are case-sensitive)
//   Mcp-Name               = params.name of tools/call and prompts/get,
//                            params.uri of resources/read
//   Mcp-Param-<H>          = arguments[p] of tools/call, for each input-schema
//                            property p with "x-mcp-header": "<H>"
//
// A value is trimmed of surrounding spaces and tabs (RFC 9110 §5.5). One of
// the form =?base64?<data>?= is the base64 of the UTF-8 value; its data must
// be canonical base64 (the alphabet, padding to a multiple of 4); any other
// value is literal. A header that is missing while the body has the value,
// or that disagrees with it, is a -32020 HeaderMismatch.
#pragma once

#include <httplib.h>

#include <optional>
#include <string>
#include <string_view>

#include "yuzu/mcp/jsonrpc.hpp"

namespace yuzu::mcp {

class ToolCatalogue;
struct RequestMeta;

// MCP-Protocol-Version against a string params._meta version, before that
// version is judged: -32020 when both are there and differ.
std::optional<RpcError> check_version_header(const httplib::Request& req, const RpcMessage& message,
                                             const std::string& correlation_id);

// nullopt when every rule holds; else the -32020 error to answer with 400.
std::optional<RpcError> check_modern_headers(const httplib::Request& req, const RpcMessage& message,
                                             const RequestMeta& meta, const ToolCatalogue& tools,
                                             const std::string& correlation_id);

// A header value without the spaces and tabs around it (RFC 9110 §5.5).
std::string_view trim_header_ows(std::string_view value);
// Exposed for unit tests. The value a header stands for: trimmed, and
// decoded when it is in the base64 form; nullopt for a malformed base64 form
// or a plain value with a byte outside visible ASCII, space and tab.
std::optional<std::string> decode_mcp_header_value(std::string_view raw);
// The header text of an argument: strings as they are, booleans true/false,
// numbers as JSON writes them; nullopt for null, objects and arrays.
std::optional<std::string> mcp_header_text_of(const nlohmann::json& argument);

}  // namespace yuzu::mcp
