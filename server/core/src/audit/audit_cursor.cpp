#include "yuzu/audit/audit_cursor.hpp"

#include <cassert>
#include <cstdio>
#include <limits>
#include <optional>

namespace yuzu::audit {
namespace {

constexpr size_t kHexDigits = 16;  // per 64-bit field

// Lowercase hex only, so each cursor has exactly one spelling.
std::optional<uint64_t> parse_hex64(std::string_view digits) {
    uint64_t value = 0;
    for (const char c : digits) {
        int nibble = -1;
        if (c >= '0' && c <= '9') nibble = c - '0';
        if (c >= 'a' && c <= 'f') nibble = c - 'a' + 10;
        if (nibble < 0) return std::nullopt;
        value = (value << 4) | static_cast<uint64_t>(nibble);
    }
    return value;
}

Status malformed() {
    return Status::InvalidArgument(
        "malformed audit cursor: pass next_cursor from a previous page unchanged, or omit it "
        "to start from the newest row");
}

}  // namespace

std::string AuditCursor::encode() const {
    assert(timestamp_ms >= 0 && id >= 1);
    char buf[2 * kHexDigits + 1];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(timestamp_ms),
                  static_cast<unsigned long long>(id));
    return std::string(buf, 2 * kHexDigits);
}

Result<AuditCursor> AuditCursor::decode(std::string_view text) {
    if (text.size() != 2 * kHexDigits) return malformed();
    auto ts = parse_hex64(text.substr(0, kHexDigits));
    auto id = parse_hex64(text.substr(kHexDigits));
    constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    if (!ts || !id || *ts > kMax || *id > kMax || *id == 0) return malformed();
    return AuditCursor{static_cast<int64_t>(*ts), static_cast<int64_t>(*id)};
}

}  // namespace yuzu::audit
