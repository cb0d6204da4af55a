// Length caps of audit text fields, applied by every AuditLog on record().
//
// An audit write must never fail because a client sent a huge or malformed
// header, so over-long values are cut (at a UTF-8 character boundary, ending
// in the marker "…") and invalid UTF-8 bytes become U+FFFD, rather than the
// row being refused. Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "yuzu/audit/audit_event.hpp"

namespace yuzu::audit {

inline constexpr size_t kDetailMaxBytes = 4096;
inline constexpr size_t kUserAgentMaxBytes = 512;
inline constexpr size_t kFieldMaxBytes = 256;  // every other text field

// "…" (U+2026), appended to a value that was cut.
inline constexpr std::string_view kTruncationMarker = "\xE2\x80\xA6";

// Returns `text` as valid UTF-8 of at most `max_bytes` bytes: each byte that
// is not part of a well-formed UTF-8 sequence is replaced by U+FFFD, and a
// result longer than `max_bytes` is cut at a character boundary and ends in
// kTruncationMarker. Reads at most about `max_bytes` bytes of `text`, so a
// multi-megabyte input costs no more than a short one. `max_bytes` must be at
// least the marker's size (asserted).
std::string clamp_utf8(std::string_view text, size_t max_bytes);

// Applies clamp_utf8 with the caps above to every text field of `event`.
void apply_field_limits(AuditEvent& event);

}  // namespace yuzu::audit
