// Ids the execution module mints and the name rules it checks. Ids are
// random (OpenSSL's DRBG via auth::random_hex), so they are not guessable:
// an agent cannot answer another agent's command by guessing its id.
#pragma once

#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::execution {

Result<std::string> new_execution_id();                       // 32 hex
Result<std::string> new_agent_command_id();                   // 32 hex
Result<std::string> new_command_id(std::string_view plugin);  // "<plugin>-<16 hex>"
Result<std::string> new_bundle_id();                          // "bundle-<32 hex>"
Result<std::string> new_definition_id();                      // "def-<16 hex>"

// [a-z0-9_]{1,64}: plugin and action names.
bool is_plugin_name(std::string_view name);
// [a-z0-9][a-z0-9._-]{0,127}
bool is_definition_id(std::string_view id);
// "bundle-" followed by 32 lowercase hex.
bool is_bundle_id(std::string_view id);
// Non-empty, at most max_bytes, no ASCII control characters.
bool is_printable_text(std::string_view text, size_t max_bytes);
// At most max_bytes and no control characters other than tab and newline
// (free text such as descriptions and reasons; may be empty).
bool is_free_text(std::string_view text, size_t max_bytes);

}  // namespace yuzu::execution
