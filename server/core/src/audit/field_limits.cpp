#include "yuzu/audit/field_limits.hpp"

#include <cassert>
#include <cstdint>

namespace yuzu::audit {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence starting at text[pos], or 0 when
// the byte there does not start one (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF).
size_t valid_sequence_length(std::string_view text, size_t pos) {
    const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[pos + i]); };
    const auto continuation = [&](size_t i, uint8_t lo = 0x80, uint8_t hi = 0xBF) {
        return pos + i < text.size() && byte(i) >= lo && byte(i) <= hi;
    };
    const uint8_t lead = byte(0);
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) return continuation(1) ? 2 : 0;
    if (lead >= 0xE0 && lead <= 0xEF) {
        const uint8_t lo = lead == 0xE0 ? 0xA0 : 0x80;  // E0: no overlongs
        const uint8_t hi = lead == 0xED ? 0x9F : 0xBF;  // ED: no surrogates
        return continuation(1, lo, hi) && continuation(2) ? 3 : 0;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        const uint8_t lo = lead == 0xF0 ? 0x90 : 0x80;  // F0: no overlongs
        const uint8_t hi = lead == 0xF4 ? 0x8F : 0xBF;  // F4: not above U+10FFFF
        return continuation(1, lo, hi) && continuation(2) && continuation(3) ? 4 : 0;
    }
    return 0;
}

}  // namespace

std::string clamp_utf8(std::string_view text, size_t max_bytes) {
    assert(max_bytes >= kTruncationMarker.size());
    const size_t keep_limit = max_bytes - kTruncationMarker.size();
    std::string out;
    out.reserve(text.size() < max_bytes ? text.size() : max_bytes);
    size_t keep = 0;  // length of `out` to keep if the value must be cut
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t len = valid_sequence_length(text, pos);
        const std::string_view piece = len > 0 ? text.substr(pos, len) : kReplacement;
        pos += len > 0 ? len : 1;
        if (out.size() + piece.size() > max_bytes) {
            out.resize(keep);
            out.append(kTruncationMarker);
            return out;
        }
        out.append(piece);
        if (out.size() <= keep_limit) keep = out.size();
    }
    return out;
}

void apply_field_limits(AuditEvent& event) {
    for (std::string* field :
         {&event.principal, &event.principal_kind, &event.action, &event.target_type,
          &event.target_id, &event.source_ip, &event.correlation_id}) {
        *field = clamp_utf8(*field, kFieldMaxBytes);
    }
    event.detail = clamp_utf8(event.detail, kDetailMaxBytes);
    event.user_agent = clamp_utf8(event.user_agent, kUserAgentMaxBytes);
}

}  // namespace yuzu::audit
