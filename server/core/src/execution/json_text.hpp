// JSON text in and out of executions.db: parameters are checked and stored
// canonically; agent output is stored as valid JSON whatever arrived; every
// string the module writes is valid UTF-8, so later serialisation (REST,
// MCP, SSE) cannot fail on it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::execution {

// `text` with every byte that is not part of a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF included)
// replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

// Serialises compactly; invalid UTF-8 inside strings becomes U+FFFD instead
// of throwing.
std::string dump_json(const nlohmann::json& value);

// Parses dispatch parameters: a JSON object of at most kMaxParams keys, each
// key ≤ kMaxParamKeyBytes and each value ≤ kMaxParamValueBytes serialised.
// Returns the canonical text; InvalidArgument naming the problem. `what`
// prefixes messages ("params", "step 2 params").
Result<std::string> canonical_params(std::string_view text, std::string_view what);

// Agent output as stored: canonical JSON text. Text that does not parse is
// stored as "null" and `error` gets a note (an agent bug must not lose the
// rest of the result).
std::string canonical_output(std::string_view text, std::string& error);

// Parses text this module stored; null when it does not parse (it always
// does unless someone edited the file by hand).
nlohmann::json parse_stored(std::string_view text);

}  // namespace yuzu::execution
