#include "yuzu/audit/field_limits.hpp"

#include <cassert>
#include <cstdint>

#include "yuzu/common/utf8.hpp"

namespace yuzu::audit {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence starting at text[pos], or 0 when
// the byte there does not start one.
size_t valid_sequence_length(std::string_view text, size_t pos) {
    if (static_cast<uint8_t>(text[pos]) < 0x80) return 1;
    return utf8::sequence_length(text, pos);
}

// Whether clamp_utf8(text, max_bytes) would give `text` back unchanged: it
// fits and is well-formed. Nearly every value is, and is then not copied.
bool kept_as_is(std::string_view text, size_t max_bytes) {
    if (text.size() > max_bytes) return false;
    for (size_t pos = 0; pos < text.size();) {
        const size_t len = valid_sequence_length(text, pos);
        if (len == 0) return false;
        pos += len;
    }
    return true;
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
        if (!kept_as_is(*field, kFieldMaxBytes)) *field = clamp_utf8(*field, kFieldMaxBytes);
    }
    if (!kept_as_is(event.detail, kDetailMaxBytes)) {
        event.detail = clamp_utf8(event.detail, kDetailMaxBytes);
    }
    if (!kept_as_is(event.user_agent, kUserAgentMaxBytes)) {
        event.user_agent = clamp_utf8(event.user_agent, kUserAgentMaxBytes);
    }
}

}  // namespace yuzu::audit
