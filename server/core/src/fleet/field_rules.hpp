// Field rules shared by the fleet services: what an agent may call itself,
// what an id looks like, which text is printable.
//
// Thread-safety: pure functions; safe to call from any thread.
#pragma once

#include <cstddef>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::fleet {

struct Heartbeat;

inline constexpr size_t kAgentIdHexChars = 32;
inline constexpr size_t kMaxHostnameBytes = 253;
inline constexpr size_t kMaxShortFieldBytes = 64;  // os, arch, agent version
inline constexpr size_t kMaxOsVersionBytes = 256;

// Well-formed UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF.
bool is_valid_utf8(std::string_view text);
// A C0 control character, DEL, or a C1 control (U+0080..U+009F).
bool has_control_chars(std::string_view text);
// 32 lowercase hex characters.
bool is_agent_id(std::string_view id);
// 64 lowercase hex digits: a SHA-256 as agents send it.
bool is_sha256_hex(std::string_view text);

// InvalidArgument naming `field` unless `value` is min..max bytes of valid
// UTF-8 without control characters (and without spaces unless allowed).
Status check_text_field(std::string_view field, std::string_view value, size_t min_bytes,
                        size_t max_bytes, bool allow_spaces);

// What an agent says about itself at enrollment and on every heartbeat.
// InvalidArgument naming the first bad field.
Status check_self_description(std::string_view hostname, std::string_view os,
                              std::string_view os_version, std::string_view arch,
                              std::string_view agent_version);

// A heartbeat as AgentRegistry::record_heartbeat() accepts it: the
// self-description above, uptime_s >= -1, perf percentages finite and
// 0..100, load1 finite and >= 0, perf.at_ms >= 0. InvalidArgument naming the
// first bad field.
Status check_heartbeat(const Heartbeat& beat);

}  // namespace yuzu::fleet
