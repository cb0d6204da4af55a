#include "fleet/field_rules.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "yuzu/fleet/agent_registry.hpp"

namespace yuzu::fleet {
namespace {

Status check_percent(std::string_view field, const std::optional<double>& v) {
    if (v && !(std::isfinite(*v) && *v >= 0.0 && *v <= 100.0)) {
        return Status::InvalidArgument("perf." + std::string(field) +
                                       " must be a number from 0 to 100");
    }
    return Status::Ok();
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
    size_t i = 0;
    while (i < text.size()) {
        const auto lead = static_cast<uint8_t>(text[i]);
        size_t extra = 0;
        uint32_t cp = 0;
        if (lead < 0x80) {
            ++i;
            continue;
        } else if ((lead & 0xE0) == 0xC0) {
            extra = 1;
            cp = lead & 0x1F;
        } else if ((lead & 0xF0) == 0xE0) {
            extra = 2;
            cp = lead & 0x0F;
        } else if ((lead & 0xF8) == 0xF0) {
            extra = 3;
            cp = lead & 0x07;
        } else {
            return false;
        }
        if (extra > text.size() - i - 1) return false;  // truncated sequence
        for (size_t k = 1; k <= extra; ++k) {
            const auto cont = static_cast<uint8_t>(text[i + k]);
            if ((cont & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (cont & 0x3F);
        }
        // The smallest code point each length may carry (rejects overlongs).
        static constexpr uint32_t kMinForLength[] = {0, 0x80, 0x800, 0x10000};
        if (cp < kMinForLength[extra]) return false;
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += extra + 1;
    }
    return true;
}

bool has_control_chars(std::string_view text) {
    for (size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<uint8_t>(text[i]);
        if (c < 0x20 || c == 0x7F) return true;
        // U+0080..U+009F are encoded as C2 80..C2 9F.
        if (c == 0xC2 && i + 1 < text.size()) {
            const auto next = static_cast<uint8_t>(text[i + 1]);
            if (next >= 0x80 && next <= 0x9F) return true;
        }
    }
    return false;
}

bool is_sha256_hex(std::string_view text) {
    return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

bool is_agent_id(std::string_view id) {
    return id.size() == kAgentIdHexChars && std::all_of(id.begin(), id.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

Status check_text_field(std::string_view field, std::string_view value, size_t min_bytes,
                        size_t max_bytes, bool allow_spaces) {
    const std::string name(field);
    if (value.size() < min_bytes || value.size() > max_bytes) {
        return Status::InvalidArgument(name + " must be " + std::to_string(min_bytes) + " to " +
                                       std::to_string(max_bytes) + " bytes long (got " +
                                       std::to_string(value.size()) + ")");
    }
    if (!is_valid_utf8(value)) return Status::InvalidArgument(name + " is not valid UTF-8");
    if (has_control_chars(value)) {
        return Status::InvalidArgument(name + " must not contain control characters");
    }
    if (!allow_spaces && value.find(' ') != std::string_view::npos) {
        return Status::InvalidArgument(name + " must not contain spaces");
    }
    return Status::Ok();
}

Status check_self_description(std::string_view hostname, std::string_view os,
                              std::string_view os_version, std::string_view arch,
                              std::string_view agent_version) {
    YUZU_RETURN_IF_ERROR(check_text_field("hostname", hostname, 1, kMaxHostnameBytes, false));
    YUZU_RETURN_IF_ERROR(check_text_field("os", os, 1, kMaxShortFieldBytes, false));
    YUZU_RETURN_IF_ERROR(check_text_field("os_version", os_version, 0, kMaxOsVersionBytes, true));
    YUZU_RETURN_IF_ERROR(check_text_field("arch", arch, 1, kMaxShortFieldBytes, false));
    YUZU_RETURN_IF_ERROR(
        check_text_field("agent_version", agent_version, 1, kMaxShortFieldBytes, false));
    return Status::Ok();
}

Status check_heartbeat(const Heartbeat& beat) {
    YUZU_RETURN_IF_ERROR(check_self_description(beat.hostname, beat.os, beat.os_version, beat.arch,
                                                beat.agent_version));
    if (beat.uptime_s < -1) {
        return Status::InvalidArgument("uptime_s must be zero or more (or -1 when unknown)");
    }
    if (!beat.perf) return Status::Ok();
    const PerfSample& p = *beat.perf;
    YUZU_RETURN_IF_ERROR(check_percent("cpu_pct", p.cpu_pct));
    YUZU_RETURN_IF_ERROR(check_percent("mem_used_pct", p.mem_used_pct));
    YUZU_RETURN_IF_ERROR(check_percent("disk_used_pct", p.disk_used_pct));
    if (p.load1 && !(std::isfinite(*p.load1) && *p.load1 >= 0.0)) {
        return Status::InvalidArgument("perf.load1 must be a number of zero or more");
    }
    if (p.at_ms < 0) return Status::InvalidArgument("perf.at_ms must not be negative");
    return Status::Ok();
}

}  // namespace yuzu::fleet
