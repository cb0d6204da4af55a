// Canonical JSON: object keys sorted by byte value, no insignificant
// whitespace, strings as UTF-8 (invalid bytes replaced by U+FFFD). Two values
// that are equal as JSON give the same text, so an approval ticket can store
// a tool's arguments as text and a recall can compare them byte for byte.
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace yuzu::approval {

std::string canonical_json(const nlohmann::json& value);

// The canonical JSON of a tool's arguments with the top-level "approval_id"
// left out (a recall carries it; the mint did not).
std::string canonical_arguments(const nlohmann::json& arguments);

}  // namespace yuzu::approval
