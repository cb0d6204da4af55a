// Validation of a plugin's "params" object. Every accessor names the
// parameter in its error so the operator sees which one was refused.
// Private to yuzu_agent_plugins. Thread-safety: a Params is immutable.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::agent::plugins {

inline constexpr size_t kMaxPathChars = 4096;

class Params {
  public:
    // Parses params_json (must be a JSON object) and refuses any key not in
    // `allowed`.
    static Result<Params> parse(const std::string& params_json,
                                std::initializer_list<std::string_view> allowed);

    // A string parameter: absent -> nullopt. Refuses non-strings, empty
    // strings, strings over max_chars bytes and control characters (NUL
    // included).
    Result<std::optional<std::string>> text(std::string_view key, size_t max_chars) const;
    // As text(), but absence is an error.
    Result<std::string> required_text(std::string_view key, size_t max_chars) const;
    // An integer in [min, max]: absent -> nullopt. Refuses floats, booleans,
    // strings and out-of-range values.
    Result<std::optional<int64_t>> integer(std::string_view key, int64_t min, int64_t max) const;
    // One of `choices`: absent -> nullopt.
    Result<std::optional<std::string>> choice(
        std::string_view key, std::initializer_list<std::string_view> choices) const;

  private:
    explicit Params(nlohmann::json object) : object_(std::move(object)) {}
    const nlohmann::json* find(std::string_view key) const;

    nlohmann::json object_;
};

// Quotes a parameter name (or a refused key) for an error message: short,
// printable, so a hostile 1 MB key cannot flood the log.
std::string quoted_key(std::string_view key);

// Absolute, normalised path rules shared by the file and disk plugins: starts
// with '/', no ".", ".." or empty components, no trailing '/', (other than
// "/" itself). `key` names the parameter in the error.
Status check_absolute_path(std::string_view key, const std::string& path);

// True when every byte of `text` is an ASCII letter or digit or appears in
// `extra`; bytes >= 0x80 (UTF-8) are allowed when allow_utf8.
bool only_chars(std::string_view text, std::string_view extra, bool allow_utf8);

// Matches `text` against `pattern`, where '*' matches any run of characters
// (including none) and every other character matches itself.
bool wildcard_match(std::string_view pattern, std::string_view text);

}  // namespace yuzu::agent::plugins
