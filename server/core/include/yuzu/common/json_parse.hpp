// parse_json: the one way Yuzu turns text into nlohmann::json. Every body a
// peer sends (REST, MCP, the agent plane) and every JSON text read back from
// a store goes through it, so no document deeper than kMaxJsonDepth levels
// ever exists in memory: copying, comparing, dumping and validating a
// nlohmann::json all recurse once per level, and a 140,000-level body would
// overflow the stack of the thread that touches it.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu {

// Objects and arrays nested deeper than this are refused. Real documents
// (inventory reports, instruction parameters, JSON-RPC messages, schemas)
// stay under 16.
inline constexpr int kMaxJsonDepth = 64;

// The parsed document, or InvalidArgument saying why not: malformed JSON
// (with the byte offset), or nesting deeper than `max_depth`. Parsing stops
// at the first level too deep, so a hostile body costs no more than its
// first max_depth levels. Never throws.
Result<nlohmann::json> parse_json(std::string_view text, int max_depth = kMaxJsonDepth);

// True when `s` is parse_json's refusal of a document nested too deep (as
// opposed to malformed text), for callers that word the two differently.
bool is_json_too_deep(const Status& s);

// The same, for callers that only need to know it failed: a discarded value
// (is_discarded()) instead of a Status.
nlohmann::json parse_json_or_discarded(std::string_view text, int max_depth = kMaxJsonDepth);

}  // namespace yuzu
