// The yuzu-server configuration file (--config FILE): flag values written
// in a strict subset of TOML 1.0, one `key = value` per line, e.g.
//
//   # /etc/yuzu/server.toml
//   listen = "0.0.0.0:8080"
//   data-dir = '/var/lib/yuzu'        # literal string: no escapes
//   agent-heartbeat-interval = 30
//   mcp-read-only = true
//   mcp-allowed-origin = ["http://127.0.0.1:6274", 'https://mcp.example:443',]
//
// Accepted:
//   - UTF-8 text, optionally starting with a byte order mark (a U+FEFF
//     anywhere else outside a string is refused); lines end in LF or CRLF;
//     the last line may lack its ending.
//   - Blank lines and `#` comments, on their own line or after a value.
//   - `key = value`, with spaces or tabs around either. A key is
//     [a-z0-9-]+ and does not start with '-': the flag's long name without
//     its dashes ("data-dir" for --data-dir).
//   - A value is one of
//       "basic string"    escapes \" \\ \n \t and \uXXXX (four hex digits; a
//                         Unicode scalar value that is not a control
//                         character, so not \u0000 and not a surrogate)
//       'literal string'  no escapes: everything up to the next '
//       integer           optional sign, decimal digits, '_' only between
//                         digits, no leading zero, within int64
//       true, false
//       array             ["a", 'b'] of strings only, on one line; a
//                         trailing comma is allowed, [] is an empty array
//
// Refused, with an error naming the line and what is not supported: tables
// ([section], [[section]]), dotted and quoted keys, inline tables,
// multi-line strings, floats, dates and times, hexadecimal, octal and binary
// integers, other escapes (\r, \b, \f, \e, \U...), nested arrays, arrays of
// non-strings, a key given twice, control characters other than tab (raw or
// as \u escapes; a lone CR; NUL), invalid UTF-8 (including overlong
// encodings, encoded surrogates and code points above U+10FFFF), and
// anything else that is not one of the forms above.
//
// Bounds: kMaxConfigFileBytes of text (the BOM included),
// kMaxConfigLineBytes per line (its LF or CRLF and the BOM not counted),
// kMaxConfigEntries keys, kMaxConfigArrayElements elements per array.
//
// Every error is StatusCode::kInvalidArgument with a one-line message for
// the operator: "<source>:<line>: <what>" (line 1-based), or "<source>:
// <what>" for problems with the file as a whole (size, type, access).
//
// The parser only recognises the syntax; which keys exist and what their
// values mean is the caller's business (flags.cpp hands them to CLI11).
//
// Thread-safety: both functions are free of shared state; safe to call from
// any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::app {

inline constexpr size_t kMaxConfigFileBytes = size_t{64} * 1024;
inline constexpr size_t kMaxConfigLineBytes = 4096;
inline constexpr size_t kMaxConfigEntries = 256;
inline constexpr size_t kMaxConfigArrayElements = 64;

// One `key = value` line.
struct ConfigEntry {
    enum class Kind { kString, kInteger, kBoolean, kArray };

    std::string key;
    Kind kind = Kind::kString;
    // One element for a scalar, the elements (possibly none) for an array.
    // Strings are decoded (valid UTF-8, no NUL). Integers are in canonical
    // decimal: no '_', no '+', no "-0" ("+1_000" -> "1000"). Booleans are
    // "true" or "false": text to hand to CLI11 as the flag's value.
    std::vector<std::string> values;
    int line = 0;  // 1-based

    bool operator==(const ConfigEntry&) const = default;
};

// "string", "integer", "boolean" or "array", for the caller's messages.
std::string_view config_kind_name(ConfigEntry::Kind kind);

// Parses the text of a config file; `source_name` (usually the path) starts
// every error message. Entries come in file order.
Result<std::vector<ConfigEntry>> parse_config_text(std::string_view text,
                                                   std::string_view source_name);

// Reads and parses the file at `path`. Refuses a missing path, a directory,
// anything that is not a regular file, a file that cannot be opened, and a
// file larger than kMaxConfigFileBytes (without reading more than one byte
// past the bound), each with a one-line reason naming the path.
Result<std::vector<ConfigEntry>> read_config_file(const std::string& path);

}  // namespace yuzu::app
