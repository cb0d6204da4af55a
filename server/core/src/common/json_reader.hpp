// read_json: the fast path of parse_json (yuzu/common/json_parse.hpp).
//
// A recursive-descent reader that builds the nlohmann::json document
// directly, without nlohmann's lexer (which copies every token into two
// growing buffers) or its SAX indirection: several times fewer
// instructions for the small bodies the MCP endpoint and the agent plane
// receive. It accepts a subset of what nlohmann::json::parse() accepts and
// builds the same document for it, value types included; anything else
// (malformed text, a byte-order mark, nesting past max_depth, a number
// strtod would round to infinity) it declines, and parse_json hands the
// text to nlohmann, which words the error. The jsonrpc_envelope fuzz target
// holds the two to that.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string_view>

namespace yuzu::detail {

// True with `out` set to the document when `text` is one JSON value that
// nlohmann::json::parse(text) accepts and it is nested at most max_depth
// levels; false (out unspecified) otherwise. Never throws but bad_alloc.
bool read_json(std::string_view text, int max_depth, nlohmann::json& out);

}  // namespace yuzu::detail
